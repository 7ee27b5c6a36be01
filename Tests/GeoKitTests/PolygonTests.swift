import Testing
@testable import GeoKit

/// Polygons with holes and multipolygons.
struct PolygonTests {
    static func ring(_ coordinates: [(Double, Double)]) -> [LatLng] {
        LoopTests.ring(coordinates)
    }

    static let shell = [(0.0, 0.0), (0.0, 20.0), (20.0, 20.0), (20.0, 0.0)]
    static let hole = [(5.0, 5.0), (5.0, 10.0), (10.0, 10.0), (10.0, 5.0)]

    @Test func holes() throws {
        let polygon = try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole)])
        #expect(polygon.contains(pt(2, 2)) && polygon.contains(pt(15, 15)))
        #expect(!polygon.contains(pt(7, 7)))
        // The hole's boundary belongs to the polygon: vertices and edge points.
        #expect(polygon.contains(pt(5, 5)) && polygon.contains(pt(10, 10)))
        #expect(polygon.contains(pt(7, 5)) && polygon.contains(pt(5, 7.5)))
        #expect(!polygon.contains(pt(7, 5.001)))
        // The shell's boundary too.
        #expect(polygon.contains(pt(0, 10)) && polygon.contains(pt(20, 0)))
        #expect(!polygon.contains(pt(-1, 10)))
        // Hole winding does not matter.
        let reversedHole = try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole.reversed())])
        var rng = SplitMix64(seed: 51)
        for _ in 0..<2_000 {
            let p = rng.pointNear(pt(10, 10), within: 0.3)
            #expect(polygon.contains(p) == reversedHole.contains(p))
        }
    }

    @Test func invalidPolygons() throws {
        let outside = [(30.0, 30.0), (30.0, 35.0), (35.0, 35.0)]
        #expect(throws: GeoError.holeNotContained) {
            try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(outside)])
        }
        let crossing = [(10.0, 10.0), (10.0, 30.0), (15.0, 30.0), (15.0, 10.0)]
        #expect(throws: GeoError.overlappingLoops) {
            try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(crossing)])
        }
        let nested = [(6.0, 6.0), (6.0, 7.0), (7.0, 7.0), (7.0, 6.0)]
        #expect(throws: GeoError.overlappingLoops) {
            try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole), Self.ring(nested)])
        }
        #expect(throws: GeoError.strictWindingHoles) {
            try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole)], winding: .counterClockwise)
        }
        // A hole that shares two of the shell's edges and covers the shell's fourth vertex
        // reaches outside the shell (found by the geoloop fuzzer, near the antimeridian).
        let notched = [(0.0, 0.0), (0.0, 4.0), (4.0, 4.0), (1.0, 3.0)]
        #expect(throws: GeoError.holeNotContained) {
            try Polygon(geoJSONRings: [Self.ring(notched), Self.ring([(0.0, 0.0), (0.0, 4.0), (4.0, 4.0)])])
        }
        #expect(throws: GeoError.emptyPolygon) { try Polygon(geoJSONRings: []) }
        let valid = try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole)])
        #expect(valid.isValid)
    }

    @Test func multiPolygon() throws {
        let multi = try MultiPolygon(geoJSONPolygons: [
            [Self.ring(Self.shell)],
            [Self.ring([(-10, 170), (-10, -170), (10, -170), (10, 170)])],
        ])
        #expect(multi.contains(pt(10, 10)) && multi.contains(pt(0, 180)) && multi.contains(pt(0, -175)))
        #expect(!multi.contains(pt(0, 90)) && !multi.contains(pt(-30, 0)))
        #expect(multi.rectBound.contains(pt(0, 180)) && multi.rectBound.contains(pt(10, 10)))
        #expect(multi.capBound.contains(pt(0, 180)) && multi.capBound.contains(pt(10, 10)))
    }

    @Test("cell predicates are conservative against sampled points (seed 52)")
    func cellPredicates() throws {
        let polygon = try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole)])
        var rng = SplitMix64(seed: 52)
        var contained = 0, disjoint = 0
        for _ in 0..<1_500 {
            let cell = try #require(Cell(CellID(rng.pointNear(pt(8, 8), within: 0.3)).parent(level: 3 + Int(rng.next() % 12))))
            let samples = (0..<40).map { _ in polygon.contains(BoundsTests.sample(cell, &rng)) }
            if polygon.contains(cell) {
                contained += 1
                #expect(samples.allSatisfy { $0 })
            }
            if !polygon.mayIntersect(cell) {
                disjoint += 1
                #expect(!samples.contains(true))
            }
        }
        // The predicates are not trivially false/true.
        #expect(contained > 30 && disjoint > 100, "contained \(contained) disjoint \(disjoint)")
    }

    /// `relate` answers `mayIntersect` and `contains` together, for polygons with holes and
    /// multipolygons, at every level around their boundaries.
    @Test("relate agrees with mayIntersect and contains (seed 53)")
    func relateAgrees() throws {
        let polygon = try Polygon(geoJSONRings: [Self.ring(Self.shell), Self.ring(Self.hole)])
        let multi = try MultiPolygon(geoJSONPolygons: [
            [Self.ring(Self.shell), Self.ring(Self.hole)],
            [Self.ring([(-10, 170), (-10, -170), (10, -170), (10, 170)])],
        ])
        var rng = SplitMix64(seed: 53)
        var seen: Set<[Bool]> = []
        for _ in 0..<1_500 {
            let center = rng.next() % 2 == 0 ? pt(8, 8) : pt(0, 178)
            let cell = try #require(Cell(CellID(rng.pointNear(center, within: 0.3)).parent(level: 3 + Int(rng.next() % 14))))
            let one = polygon.relate(cell), many = multi.relate(cell)
            #expect(one.mayIntersect == polygon.mayIntersect(cell) && one.contains == polygon.contains(cell), "\(cell.id)")
            #expect(many.mayIntersect == multi.mayIntersect(cell) && many.contains == multi.contains(cell), "\(cell.id)")
            seen.insert([one.mayIntersect, one.contains, many.mayIntersect, many.contains])
        }
        #expect(seen.count >= 4, "the cells hit too few cases: \(seen)")
    }
}
