import Testing
@testable import GeoKit

/// Sizes at the ends of `Double`'s range pick a level instead of trapping (a denormal width
/// used to make `level(forMinimumWidth:)` convert an infinite level to `Int`).
struct ExtremeWidthTests {
    @Test(arguments: [Double.leastNonzeroMagnitude, Double.leastNormalMagnitude / 1e4, Double.leastNormalMagnitude])
    func aVanishinglySmallWidthIsTheDeepestLevel(radians: Double) {
        #expect(CellID.level(forMinimumWidth: Angle(radians: radians)) == CellID.maxLevel)
    }

    @Test(arguments: [Double.greatestFiniteMagnitude, Double.infinity, 4.0])
    func aWidthWiderThanAFaceIsLevelZero(radians: Double) {
        #expect(CellID.level(forMinimumWidth: Angle(radians: radians)) == 0)
    }

    @Test(arguments: [0.0, -1.0, Double.nan])
    func noWidthIsTheDeepestLevel(radians: Double) {
        #expect(CellID.level(forMinimumWidth: Angle(radians: radians)) == CellID.maxLevel)
    }

    @Test func aCapOfADenormalRadiusIsCoveredByItsCentresCells() {
        let center = LatLng(degreesLatitude: 40.7, longitude: -74.0).toPoint()
        let cap = Cap(center: center, radius: Angle(radians: Double.leastNormalMagnitude / 1e4))
        let covering = RegionCoverer(maxLevel: 30).covering(of: cap)
        #expect(!covering.isEmpty)
        #expect(covering.contains { $0.contains(CellID(center)) })
    }
}
