#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import GeoKit

/// Conservative bounds: sampled points of a shape always fall inside its bounds.
struct BoundsTests {
    /// A random point of `cell` (uniform in (u, v); includes edges and corners sometimes).
    static func sample(_ cell: Cell, _ rng: inout SplitMix64) -> S2Point {
        let b = cell.uvBounds
        var u = rng.uniform(b.uLo, b.uHi), v = rng.uniform(b.vLo, b.vHi)
        switch rng.next() % 6 {
        case 0: u = rng.next() % 2 == 0 ? b.uLo : b.uHi
        case 1: v = rng.next() % 2 == 0 ? b.vLo : b.vHi
        default: break
        }
        return FaceProjection.faceUVToXYZ(cell.face, u, v).normalized
    }

    /// A random cell, biased towards the poles, faces' edges and the antimeridian.
    static func randomCell(_ rng: inout SplitMix64) -> Cell? {
        var p = rng.point()
        switch rng.next() % 4 {
        case 0: p = rng.pointNear(rng.next() % 2 == 0 ? .northPole : .southPole, within: 0.3)
        case 1: p = LatLng(degreesLatitude: rng.uniform(-89, 89), longitude: 180).toPoint()
        default: break
        }
        return Cell(CellID(p).parent(level: Int(rng.next() % 31)))
    }

    @Test("cell rect and cap bounds contain the cell (seed 31)")
    func cellBounds() throws {
        var rng = SplitMix64(seed: 31)
        for _ in 0..<1_500 {
            let cell = try #require(Self.randomCell(&rng))
            let rect = cell.rectBound
            let cap = cell.capBound
            for _ in 0..<40 {
                let p = Self.sample(cell, &rng)
                #expect(rect.contains(p), "cell \(cell.id) point \(LatLng(p))")
                #expect(cap.contains(p))
            }
            for k in 0..<4 {
                #expect(rect.contains(cell.vertex(k)))
            }
        }
        // Cells around the poles get all longitudes.
        let pole = try #require(Cell(CellID(S2Point.northPole).parent(level: 5)))
        #expect(pole.rectBound.hasFullLongitude && pole.rectBound.latHi.radians == Double.pi / 2)
        #expect(Cell.face(2).rectBound.hasFullLongitude)
    }

    @Test("cell distance bounds bracket sampled distances (seed 32)")
    func cellDistances() throws {
        var rng = SplitMix64(seed: 32)
        for _ in 0..<400 {
            let cell = try #require(Self.randomCell(&rng))
            let target = rng.next() % 2 == 0 ? rng.point() : rng.pointNear(cell.center, within: 0.1)
            let lower = cell.distance(to: target).radians
            let upper = cell.maxDistance(to: target).radians
            var sampledMin = Double.infinity, sampledMax = 0.0
            for _ in 0..<60 {
                let p = Self.sample(cell, &rng)
                let d = p.angle(to: target).radians
                sampledMin = min(sampledMin, d)
                sampledMax = max(sampledMax, d)
            }
            #expect(lower <= sampledMin && upper >= sampledMax)
            if cell.contains(target) { #expect(lower == 0) }
            // Tight: the exact nearest boundary point is no farther than the densest edge sample.
            var boundaryMin = Double.infinity
            for k in 0..<4 {
                for step in 0...50 {
                    let p = interpolate(cell.vertex(k), cell.vertex(k + 1), Double(step) / 50)
                    boundaryMin = min(boundaryMin, p.angle(to: target).radians)
                }
            }
            if !cell.contains(target) { #expect(lower <= boundaryMin && lower >= boundaryMin - 0.03) }
        }
    }

    @Test("cap rect bound and cell tests are conservative (seed 33)")
    func capBounds() throws {
        var rng = SplitMix64(seed: 33)
        for iteration in 0..<300 {
            let center = iteration % 5 == 0 ? rng.pointNear(.northPole, within: 0.2) : rng.point()
            let radius = Angle(radians: exp(rng.uniform(log(1e-7), log(3.0))))
            let cap = Cap(center: center, radius: radius)
            let rect = cap.rectBound
            for _ in 0..<30 {
                let p = rng.point(near: center, distance: radius.radians * rng.unit().squareRoot())
                #expect(rect.contains(p) && cap.contains(p))
            }
            let cell = try #require(Cell(CellID(rng.pointNear(center, within: radius.radians * 2))
                .parent(level: Int(rng.next() % 25))))
            let inside = (0..<30).map { _ in cap.contains(Self.sample(cell, &rng)) }
            if cap.contains(cell) { #expect(inside.allSatisfy { $0 }) }
            if !cap.mayIntersect(cell) { #expect(!inside.contains(true)) }
        }
        #expect(Cap.full.contains(Cell.face(3)))
        #expect(!Cap.empty.mayIntersect(Cell.face(3)))
        let hemisphere = Cap(center: .northPole, radius: .rightAngle)
        #expect(hemisphere.contains(Cell.face(2)))
        #expect(!hemisphere.contains(Cell.face(0)) && hemisphere.mayIntersect(Cell.face(0)))
        #expect(!hemisphere.mayIntersect(Cell.face(5)) || Cell.face(5).distance(to: .northPole) <= .rightAngle)
    }

    @Test func cellsAsRegions() throws {
        let cell = try #require(Cell(CellID(pt(40, -100)).parent(level: 9)))
        let next = try #require(Cell(cell.id.next))
        // Consecutive cells on the Hilbert curve share an edge, so the closed cells touch.
        #expect(cell.mayIntersect(next) && !cell.contains(next))
        #expect(cell.mayIntersect(cell.children[2]) && cell.contains(cell.children[2]))
        let far = try #require(Cell(CellID(pt(-40, 80)).parent(level: 9)))
        #expect(!cell.mayIntersect(far))
        let covering = RegionCoverer(minLevel: 0, maxLevel: 30, maxCells: 8).covering(of: cell)
        #expect(covering.contains { $0.contains(cell.id) })
        var rng = SplitMix64(seed: 35)
        for _ in 0..<500 {
            let p = Self.sample(cell, &rng)
            #expect(cell.contains(p))
            #expect(covering.contains { $0.contains(CellID(p)) })
        }
    }

    @Test func rectangles() {
        // Crossing the antimeridian: 170°E … 170°W.
        let rect = LatLngRect(southWest: ll(-10, 170), northEast: ll(10, -170))
        #expect(rect.crossesAntimeridian)
        #expect(rect.contains(ll(0, 180)) && rect.contains(ll(0, -180)) && rect.contains(ll(10, 175)))
        #expect(!rect.contains(ll(0, 0)) && !rect.contains(ll(11, 180)))
        // A rectangle reaching a pole contains the pole whatever its longitudes.
        let polar = LatLngRect(southWest: ll(80, 10), northEast: ll(90, 20))
        #expect(polar.contains(S2Point.northPole) && polar.contains(ll(90, -100)))
        #expect(!polar.contains(ll(85, 30)))
        // Cap bound of rectangles contains their points.
        var rng = SplitMix64(seed: 34)
        for _ in 0..<300 {
            let lat1 = rng.uniform(-90, 90), lat2 = rng.uniform(-90, 90)
            let r = LatLngRect(southWest: ll(min(lat1, lat2), rng.uniform(-180, 180)),
                               northEast: ll(max(lat1, lat2), rng.uniform(-180, 180)))
            let cap = r.capBound
            for _ in 0..<20 {
                let span = r.lngHi.degrees >= r.lngLo.degrees ? r.lngHi.degrees - r.lngLo.degrees
                    : r.lngHi.degrees - r.lngLo.degrees + 360
                let p = ll(rng.uniform(r.latLo.degrees, r.latHi.degrees), r.lngLo.degrees + rng.unit() * span).normalized
                #expect(r.contains(p) && cap.contains(p.toPoint()))
            }
        }
        #expect(LatLngRect.full.contains(Cell.face(4)))
        #expect(!LatLngRect.empty.mayIntersect(Cell.face(4)))
    }
}
