#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import GeoKit

/// Spherical loops: boundary semantics, winding, validity, antimeridian and poles.
struct LoopTests {
    /// A closed GeoJSON-style ring from (lat, lng) pairs in degrees.
    static func ring(_ coordinates: [(Double, Double)]) -> [LatLng] {
        let points = coordinates.map { ll($0.0, $0.1) }
        return points + [points[0]]
    }

    /// (lat, lng): east along the equator, north, west, south — counter-clockwise seen from outside.
    static let square = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0)]

    @Test func vertexAndEdgePointsAreInside() throws {
        let loop = try Loop(geoJSONRing: Self.ring(Self.square))
        for k in 0..<loop.count {
            let a = loop.vertex(k), b = loop.vertex(k + 1)
            #expect(loop.contains(a))
            for t in [0.001, 0.25, 0.5, 0.9, 0.999] {
                #expect(loop.contains(interpolate(a, b, t)), "edge \(k) t \(t)")
                #expect(loop.isOnBoundary(interpolate(a, b, t)))
            }
        }
        // Meridian edge points given in degrees.
        #expect(loop.contains(pt(5, 0)) && loop.contains(pt(3.3, 10)))
        #expect(loop.contains(pt(5, 5)))
        #expect(!loop.contains(pt(5, -0.001)) && !loop.contains(pt(-0.001, 5)) && !loop.contains(pt(5, 10.001)))
        // Great-circle edges bulge poleward of the 10° parallel.
        // (the edge from (10, 10) to (10, 0) peaks at atan(tan 10° / cos 5°) ≈ 10.0374°).
        #expect(loop.contains(pt(10.03, 5)))
        #expect(!loop.contains(pt(10.045, 5)))
        #expect(!loop.contains(pt(-5, -175)))
        // Just outside the tolerance band is outside; just inside it counts.
        let edgeMid = interpolate(pt(0, 0), pt(0, 10), 0.5)
        let outward = S2Point.southPole
        #expect(loop.contains((edgeMid + outward * 0.5e-9).normalized))
        #expect(!loop.contains((edgeMid + outward * 5e-9).normalized))
    }

    @Test func windingIgnoredGivesTheSmallerRegion() throws {
        let clockwise = try Loop(geoJSONRing: Self.ring(Self.square))
        let counterClockwise = try Loop(geoJSONRing: Self.ring(Self.square.reversed()))
        var rng = SplitMix64(seed: 41)
        for _ in 0..<2_000 {
            let p = rng.next() % 2 == 0 ? rng.point() : rng.pointNear(pt(5, 5), within: 0.2)
            #expect(clockwise.contains(p) == counterClockwise.contains(p))
        }
        #expect(!clockwise.isLargerThanHemisphere && !counterClockwise.isLargerThanHemisphere)
        #expect(abs(clockwise.turningAngle.radians - counterClockwise.turningAngle.radians) < 1e-12)
    }

    @Test func strictWindingKeepsTheLeftSide() throws {
        // The reversed square runs clockwise seen from outside, so the region to its left is
        // everything except the square.
        let big = try Loop(geoJSONRing: Self.ring(Self.square.reversed()), winding: .counterClockwise)
        #expect(big.isLargerThanHemisphere)
        #expect(!big.contains(pt(5, 5)))
        #expect(big.contains(pt(-45, 100)) && big.contains(.northPole) && big.contains(.southPole))
        #expect(big.contains(pt(0, 5)) && big.contains(pt(10, 10)))  // boundary still inside
        let small = try Loop(geoJSONRing: Self.ring(Self.square), winding: .counterClockwise)
        #expect(!small.isLargerThanHemisphere && small.contains(pt(5, 5)) && !small.contains(pt(-45, 100)))
        #expect(big.rectBound.isFull || big.rectBound.hasFullLongitude)
    }

    @Test func validity() throws {
        let bowTie = [(0.0, 0.0), (10.0, 10.0), (10.0, 0.0), (0.0, 10.0)]
        #expect(throws: GeoError.invalidLoop) { try Loop(geoJSONRing: Self.ring(bowTie)) }
        #expect(!Loop(vertices: bowTie.map { pt($0.0, $0.1) }).isValid)
        #expect(Loop(vertices: Self.square.map { pt($0.0, $0.1) }).isValid)
        // A vertex touching a non-adjacent edge.
        let touching = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (0.0, 5.0), (10.0, 0.0)]
        #expect(!Loop(vertices: touching.map { pt($0.0, $0.1) }).isValid)
        // A spike doubling back along the previous edge.
        let spike = [(0.0, 0.0), (0.0, 10.0), (0.0, 5.0), (10.0, 5.0)]
        #expect(!Loop(vertices: spike.map { pt($0.0, $0.1) }).isValid)
        #expect(throws: GeoError.loopNotClosed) {
            try Loop(geoJSONRing: Self.square.map { ll($0.0, $0.1) })
        }
        #expect(throws: GeoError.tooFewVertices) {
            try Loop(geoJSONRing: [ll(0, 0), ll(1, 1), ll(1, 1), ll(0, 0)])
        }
        #expect(throws: GeoError.self) { try Loop(geoJSONRing: Self.ring([(0, 0), (91, 0), (0, 1)])) }
        // Adjacent duplicates are dropped.
        let duplicated = try Loop(geoJSONRing: [ll(0, 0), ll(0, 10), ll(0, 10), ll(10, 10), ll(0, 0)])
        #expect(duplicated.count == 3)
    }

    @Test("a large random star-shaped ring is valid; one crossing makes it invalid (seed 42)")
    func validityAtScale() {
        var rng = SplitMix64(seed: 42)
        let center = pt(20, 30)
        let n = 5_000
        var vertices: [S2Point] = []
        let u = center.orthogonal, w = center.cross(u)
        for k in 0..<n {
            let phi = 2 * Double.pi * Double(k) / Double(n)
            let r = 0.2 * rng.uniform(0.6, 1)
            let dir = u * cos(phi) + w * sin(phi)
            vertices.append((center * cos(r) + dir * sin(r)).normalized)
        }
        #expect(Loop(vertices: vertices).isValid)
        vertices.swapAt(100, 2_600)
        #expect(!Loop(vertices: vertices).isValid)
    }

    @Test func antimeridian() throws {
        let loop = try Loop(geoJSONRing: Self.ring([(-10, 170), (-10, -170), (10, -170), (10, 170)]))
        #expect(loop.contains(pt(0, 180)) && loop.contains(pt(0, -180)) && loop.contains(pt(5, 179.9)))
        #expect(loop.contains(pt(-9, -175)))
        #expect(!loop.contains(pt(0, 0)) && !loop.contains(pt(0, 160)) && !loop.contains(pt(0, -160)))
        #expect(loop.rectBound.crossesAntimeridian)
    }

    @Test func aroundThePoles() throws {
        let north = try Loop(geoJSONRing: Self.ring([(80, 0), (80, 90), (80, 180), (80, -90)]))
        #expect(north.contains(.northPole) && north.contains(pt(85, 45)) && !north.contains(pt(70, 10)))
        #expect(!north.contains(.southPole))
        #expect(north.rectBound.hasFullLongitude && north.rectBound.latHi.radians == Double.pi / 2)
        let south = try Loop(geoJSONRing: Self.ring([(-80, 0), (-80, 120), (-80, -120)]))
        #expect(south.contains(.southPole) && !south.contains(.northPole) && !south.contains(pt(-70, 0)))
        // A ring through a pole.
        let through = try Loop(geoJSONRing: Self.ring([(90, 0), (60, 0), (60, 90)]))
        #expect(through.contains(.northPole) && through.contains(pt(70, 45)) && !through.contains(pt(70, 135)))
    }

    @Test func tinyLoop() throws {
        // ~1 m square near Paris.
        let d = 1e-5
        let loop = try Loop(geoJSONRing: Self.ring([(48.85, 2.35), (48.85, 2.35 + d), (48.85 + d, 2.35 + d), (48.85 + d, 2.35)]))
        #expect(loop.contains(pt(48.85 + d / 2, 2.35 + d / 2)))
        #expect(!loop.contains(pt(48.85 + d / 2, 2.35 + 2 * d)))
        #expect(!loop.isLargerThanHemisphere)
    }

    @Test("containment agrees with a winding-angle reference off the boundary (seed 43)")
    func randomContainment() {
        var rng = SplitMix64(seed: 43)
        for _ in 0..<40 {
            let center = rng.point()
            let radius = exp(rng.uniform(log(1e-6), log(1.4)))
            let n = 3 + Int(rng.next() % 30)
            let u = center.orthogonal, w = center.cross(u)
            var vertices: [S2Point] = []
            for k in 0..<n {
                let phi = 2 * Double.pi * (Double(k) + rng.uniform(0, 0.8)) / Double(n)
                let r = radius * rng.uniform(0.4, 1)
                vertices.append((center * cos(r) + (u * cos(phi) + w * sin(phi)) * sin(r)).normalized)
            }
            let loop = Loop(vertices: vertices)
            #expect(loop.isValid && !loop.isLargerThanHemisphere)
            for _ in 0..<200 {
                let p = rng.pointNear(center, within: radius * 1.5)
                guard loop.boundaryDistance(to: p).radians > 1e-8 else { continue }
                // Reference: the star-shaped loop contains p iff p is within the vertex fan.
                #expect(loop.contains(p) == Self.windingContains(vertices, p))
            }
        }
    }

    /// Sum of signed angles subtended at p (valid for loops smaller than a hemisphere, p away
    /// from the antipodal region).
    static func windingContains(_ v: [S2Point], _ p: S2Point) -> Bool {
        var total = 0.0
        for i in v.indices {
            let a = v[i], b = v[(i + 1) % v.count]
            let ta = p.cross(a), tb = p.cross(b)
            total += atan2(ta.cross(tb).dot(p), ta.dot(tb))
        }
        return total > Double.pi
    }
}
