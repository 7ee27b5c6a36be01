import GeoKit
import Testing
@testable import GeoQuery

struct DistanceTests {
    @Test func earthRadiusChecks() {
        #expect(Swift.abs(GeoDistance.meters(from: point(0, 0), to: point(1, 0)) - 111_318.845) < 1e-3)
        #expect(Swift.abs(GeoDistance.meters(from: point(0, 0), to: point(0, 1)) - 111_318.845) < 1e-3)
        #expect(Swift.abs(GeoDistance.meters(from: point(0, 0), to: point(90, 0)) - 10_018_696.05) < 1e-2)
        #expect(Swift.abs(GeoDistance.meters(from: point(10, 0), to: point(10, 90)) - 10_018_696.05) < 1e-2)
        #expect(Swift.abs(GeoDistance.meters(from: point(0, 0), to: point(180, 0)) - 6_378_100 * Double.pi) < 1e-2)
        #expect(GeoDistance.meters(from: point(12.5, 41.9), to: point(12.5, 41.9)) == 0)
        #expect(GeoDistance.angle(from: point(0, 0), to: point(0, 45)).degrees.isApproximately(45))
    }

    @Test func unitsConvertBothWays() {
        #expect(DistanceUnits.meters.angle(111_318.84502145034).degrees.isApproximately(1))
        #expect(DistanceUnits.meters.value(of: Angle(degrees: 1)).isApproximately(111_318.84502145034))
        #expect(DistanceUnits.radians.angle(0.25) == Angle(radians: 0.25))
        #expect(DistanceUnits.radians.value(of: Angle(radians: 0.25)) == 0.25)
    }
}

extension Double {
    func isApproximately(_ other: Double, relative: Double = 1e-12) -> Bool {
        Swift.abs(self - other) <= relative * Swift.max(1, Swift.abs(other))
    }
}
