#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import GeoKit

/// Validation work stays bounded: dense valid shapes validate through the sweep, crossings in
/// them are still found, and shapes whose edges' boxes all overlap are refused as too complex.
struct ValidationWorkTests {
    /// A zig-zag of `teeth` vertices laid out around `center`, teeth along `across`, progressing
    /// along `along`, closed by two vertices below: a simple ring.
    static func zigzag(_ teeth: Int, center: S2Point, along: S2Point, across: S2Point,
                       width: Double = 0.1, depth: Double = 0.01) -> [LatLng] {
        func at(_ u: Double, _ v: Double) -> LatLng { LatLng((center + along * u + across * v).normalized) }
        var ring = (0..<teeth).map { i -> LatLng in
            let u: Double = width * (Double(i) / Double(teeth - 1) - 0.5)
            return at(u, i % 2 == 0 ? 0 : depth)
        }
        ring += [at(width / 2, -depth), at(-width / 2, -depth)]
        return ring + [ring[0]]
    }

    static let equator = S2Point(x: 1, y: 0, z: 0)
    static let diagonal = S2Point(x: 1, y: 1, z: 1).normalized

    /// Teeth along the meridians, and turned 45° against every axis: both validate (the old
    /// axis-aligned box sweep compared each tooth with hundreds of others).
    @Test func denseZigzagsValidate() throws {
        let plain = try Loop(geoJSONRing: Self.zigzag(20_000, center: Self.equator,
                                                      along: S2Point(x: 0, y: 1, z: 0), across: S2Point(x: 0, y: 0, z: 1)))
        #expect(plain.count == 20_002)
        let along = S2Point(x: 1, y: -1, z: 0).normalized
        let turned = try Loop(geoJSONRing: Self.zigzag(20_000, center: Self.diagonal, along: along,
                                                       across: Self.diagonal.cross(along).normalized))
        #expect(turned.count == 20_002)
    }

    /// One tooth of a dense zig-zag bent over its neighbour: the sweep still finds the crossing.
    @Test func crossingInDenseZigzagIsFound() {
        var ring = Self.zigzag(20_000, center: Self.equator, along: S2Point(x: 0, y: 1, z: 0), across: S2Point(x: 0, y: 0, z: 1))
        ring[10_001] = LatLng(degreesLatitude: ring[10_001].lat.degrees, longitude: ring[10_004].lng.degrees)
        #expect(throws: GeoError.invalidLoop) { try Loop(geoJSONRing: ring) }
    }

    /// A "sea urchin": spikes in every direction from a tiny core, so every edge's box overlaps
    /// every other's whatever the sweep direction: refused once the budget is spent.
    static func urchin(_ spikes: Int) -> [LatLng] {
        var ring: [LatLng] = []
        for k in 0..<(2 * spikes) {
            let angle = Double.pi * Double(k) / Double(spikes)
            let radius = k % 2 == 0 ? 10.0 : 1e-4
            ring.append(LatLng(degreesLatitude: 20 + radius * sin(angle), longitude: 30 + radius * cos(angle)))
        }
        return ring + [ring[0]]
    }

    @Test func edgesOverlappingEverywhereAreTooComplex() throws {
        let small = try Loop(geoJSONRing: Self.urchin(200))
        #expect(small.count == 400)
        #expect(throws: GeoError.tooComplex(edges: 0)) { try Loop(geoJSONRing: Self.urchin(2_000)) }
        let error = GeoError.tooComplex(edges: 4_000)
        #expect(error.message.hasPrefix("Polygon is too complex to validate"))
    }

    @Test func budgetGrowsWithTheEdges() {
        #expect(EdgeSweep.budget(for: 10) == EdgeSweep.minimumBudget)
        #expect(EdgeSweep.budget(for: 100_000) == 100_000 * EdgeSweep.stepsPerBox)
        #expect(EdgeSweep.budget(for: Int.max) == Int.max)
    }

    /// 2,500 small holes in a grid: holes are compared only with holes nearby (the old check
    /// compared every pair), and one nested pair among them is still found.
    @Test func manyHolesAreComparedOnlyWithNeighbours() throws {
        let shell = LoopTests.ring([(0, 0), (0, 20), (20, 20), (20, 0)])
        var holes: [[LatLng]] = []
        for row in 0..<50 {
            for column in 0..<50 {
                let lat = 0.5 + Double(row) * 0.38, lng = 0.5 + Double(column) * 0.38
                holes.append(LoopTests.ring([(lat, lng), (lat, lng + 0.3), (lat + 0.3, lng)]))
            }
        }
        let polygon = try Polygon(geoJSONRings: [shell] + holes)
        #expect(polygon.holes.count == 2_500)
        let nested = LoopTests.ring([(0.55, 0.55), (0.55, 0.6), (0.6, 0.55)])
        #expect(throws: GeoError.overlappingLoops) { try Polygon(geoJSONRings: [shell] + holes + [nested]) }
    }
}
