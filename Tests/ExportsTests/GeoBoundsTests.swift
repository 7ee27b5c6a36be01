import Exports
import Testing

@Suite("Bounding boxes")
struct GeoBoundsTests {
    private func bounds(_ positions: [(Double, Double)]) -> GeoBounds? {
        var accumulator = GeoBoundsAccumulator()
        for (lon, lat) in positions { accumulator.add(longitudeDegrees: lon, latitudeDegrees: lat) }
        return accumulator.bounds
    }

    @Test("nothing added: no box")
    func empty() {
        #expect(bounds([]) == nil)
        #expect(GeoBoundsAccumulator().isEmpty)
    }

    @Test("one position: a degenerate box")
    func single() {
        #expect(bounds([(4.9, 52.4)]) == GeoBounds(westDegrees: 4.9, southDegrees: 52.4, eastDegrees: 4.9, northDegrees: 52.4))
    }

    @Test("ordinary data: min/max in both axes, exact within a degree bin")
    func ordinary() {
        let box = bounds([(4.91, 52.3), (4.95, 52.1), (-3.7, 40.4), (13.4, 52.5)])
        #expect(box == GeoBounds(westDegrees: -3.7, southDegrees: 40.4, eastDegrees: 13.4, northDegrees: 52.5))
        #expect(box?.crossesAntimeridian == false)
    }

    @Test("data on both sides of ±180 gives west > east")
    func antimeridian() {
        let box = bounds([(178.5, -17.7), (-179.8, -16.2), (179.9, -18.1)])
        #expect(box == GeoBounds(westDegrees: 178.5, southDegrees: -18.1, eastDegrees: -179.8, northDegrees: -16.2))
        #expect(box?.crossesAntimeridian == true)
        #expect(box.map { abs($0.longitudeSpanDegrees - 1.7) < 1e-9 } == true)
        #expect(box?.contains(longitudeDegrees: 180, latitudeDegrees: -17) == true)
        #expect(box?.contains(longitudeDegrees: 0, latitudeDegrees: -17) == false)
    }

    @Test("points spread around the world keep the widest gap outside the box")
    func widestGap() {
        // Gaps: 10→100 (90°), 100→-170 (90°), -170→10 (180°, crossing nothing): box is 10…-170.
        let box = bounds([(10, 0), (100, 0), (-170, 0)])
        #expect(box == GeoBounds(westDegrees: 10, southDegrees: 0, eastDegrees: -170, northDegrees: 0))
        // On a tie the non-crossing box wins: gaps -90→90 and 90→-90 (via ±180) are both 180°.
        #expect(bounds([(-90, 0), (90, 0)]) == GeoBounds(westDegrees: -90, southDegrees: 0, eastDegrees: 90, northDegrees: 0))
    }

    @Test("-180 and 180 are one meridian")
    func dateLineItself() {
        #expect(bounds([(180, 1), (10, 2)]) == GeoBounds(westDegrees: 10, southDegrees: 1, eastDegrees: 180, northDegrees: 2))
        #expect(bounds([(-180, 1), (10, 2)]) == GeoBounds(westDegrees: 10, southDegrees: 1, eastDegrees: 180, northDegrees: 2))
    }

    @Test("expansion pads, enforces a minimum span and wraps longitudes")
    func expansion() {
        let point = GeoBounds(westDegrees: 179.99, southDegrees: 10, eastDegrees: 179.99, northDegrees: 10)
        let grown = point.expanded(byFraction: 0, minimumSpanDegrees: 0.1)
        #expect(abs(grown.longitudeSpanDegrees - 0.1) < 1e-9)
        #expect(grown.crossesAntimeridian)
        #expect(abs(grown.southDegrees - 9.95) < 1e-9 && abs(grown.northDegrees - 10.05) < 1e-9)
        let world = GeoBounds(westDegrees: -170, southDegrees: -80, eastDegrees: 170, northDegrees: 80)
            .expanded(byFraction: 0.1, minimumSpanDegrees: 0)
        #expect(world.westDegrees == -180 && world.eastDegrees == 180)
        #expect(world.southDegrees == -90 && world.northDegrees == 90)
    }
}
