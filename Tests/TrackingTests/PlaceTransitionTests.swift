import Foundation
import GeoKit
import Testing
import Tracking

/// The arrival rule of API.md as a table, plus the contract's named cases as walks.
@Suite struct PlaceTransitionTests {
    /// A 100 m circle at the origin of a local frame near Zurich.
    static let center = LatLng(degreesLatitude: 47.3769, longitude: 8.5417)
    static let school = PlaceRegion.circle(center: center, radiusMeters: 100)

    /// A point `meters` east of the centre.
    static func east(_ meters: Double) -> S2Point {
        let degrees = meters / (Earth.radiusMeters * .pi / 180) / cos(47.3769 * .pi / 180)
        return LatLng(degreesLatitude: 47.3769, longitude: 8.5417 + degrees).toPoint()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let remembered: PlacePresence?
        let meters: Double
        let accuracy: Double?
        let presence: PlacePresence?
        let crossing: PlaceCrossing?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "first position inside: silent", remembered: nil, meters: 50, accuracy: 10, presence: .inside, crossing: nil),
        Case(name: "first position outside: silent", remembered: nil, meters: 500, accuracy: 10, presence: .outside, crossing: nil),
        Case(name: "enters", remembered: .outside, meters: 99, accuracy: 10, presence: .inside, crossing: .enter),
        Case(name: "on the edge counts as inside", remembered: .outside, meters: 100, accuracy: 5, presence: .inside, crossing: .enter),
        Case(name: "just outside, still outside", remembered: .outside, meters: 101, accuracy: 5, presence: nil, crossing: nil),
        Case(name: "inside, stays", remembered: .inside, meters: 10, accuracy: 5, presence: nil, crossing: nil),
        Case(name: "20 m out is within the 25 m margin", remembered: .inside, meters: 120, accuracy: 5, presence: nil, crossing: nil),
        Case(name: "30 m out leaves", remembered: .inside, meters: 130, accuracy: 5, presence: .outside, crossing: .exit),
        Case(name: "60 m out with 80 m accuracy is within the margin", remembered: .inside, meters: 160, accuracy: 80, presence: nil, crossing: nil),
        Case(name: "a fix worse than the radius changes nothing", remembered: .inside, meters: 5_000, accuracy: 150, presence: nil, crossing: nil),
        Case(name: "a fix worse than the radius sets nothing either", remembered: nil, meters: 5, accuracy: 150, presence: nil, crossing: nil),
        Case(name: "no accuracy: the 25 m margin", remembered: .inside, meters: 126, accuracy: nil, presence: .outside, crossing: .exit),
    ]

    @Test(arguments: cases)
    func rule(_ c: Case) {
        let result = PlaceTransition.evaluate(region: Self.school, remembered: c.remembered, point: Self.east(c.meters), accuracyMeters: c.accuracy)
        #expect(result.presence == c.presence && result.crossing == c.crossing)
    }

    /// Walks a device along `meters` (accuracy 8 m), remembering presence; returns the crossings.
    static func walk(_ meters: [Double], region: PlaceRegion = school, start: PlacePresence? = nil) -> [PlaceCrossing] {
        var presence = start
        var crossings: [PlaceCrossing] = []
        for m in meters {
            let t = PlaceTransition.evaluate(region: region, remembered: presence, point: east(m), accuracyMeters: 8)
            if let p = t.presence { presence = p }
            if let c = t.crossing { crossings.append(c) }
        }
        return crossings
    }

    @Test func jitterAtTheEdgeGivesOneEnterAndOneExit() {
        // Arrives, then hovers around the 100 m edge (±20 m), then leaves for good.
        let path: [Double] = [400, 300, 150, 90, 105, 95, 118, 99, 112, 97, 120, 250, 600]
        #expect(Self.walk(path) == [.enter, .exit])
    }

    @Test func aPlaceDrawnAroundAParkedCarGivesNoEvent() {
        #expect(Self.walk([10, 12, 9, 11, 10]).isEmpty)
    }

    @Test func polygonsUseTheDistanceToTheirEdge() throws {
        // A 0.01° square around the centre (about 750 m × 1,100 m).
        let ring = [(-0.005, -0.005), (0.005, -0.005), (0.005, 0.005), (-0.005, 0.005), (-0.005, -0.005)].map {
            LatLng(degreesLatitude: 47.3769 + $0.1, longitude: 8.5417 + $0.0)
        }
        let square = PlaceRegion.polygon(try Polygon(geoJSONRings: [ring]))
        let halfWidth = 0.005 * Earth.radiusMeters * .pi / 180 * cos(47.3769 * .pi / 180)
        #expect(Self.walk([2_000, 0, halfWidth + 10, halfWidth + 20, halfWidth + 40], region: square) == [.enter, .exit])
        #expect(abs(square.metersOutside(Self.east(halfWidth + 40)) - 40) < 0.5)
    }
}
