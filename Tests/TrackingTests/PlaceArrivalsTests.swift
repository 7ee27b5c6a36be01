import Foundation
import GeoKit
import Testing
import Tracking

/// `PlaceShape` (the place index's covering and probes) and `PlaceArrivals` (the rule over an
/// append's positions).
@Suite struct PlaceArrivalsTests {
    static let center = (lat: 40.6892, lon: -74.0445)   // Liberty Island

    /// A position `meters` east of the centre.
    static func east(_ meters: Double, accuracy: Double? = 8, at timestamp: Int64 = 0) -> PlaceArrivals.Position {
        let degrees = meters / (Earth.radiusMeters * .pi / 180) / cos(center.lat * .pi / 180)
        return PlaceArrivals.Position(longitude: center.lon + degrees, latitude: center.lat, accuracyMeters: accuracy, timestamp: timestamp)
    }

    static func circle(_ radius: Double) -> PlaceShape {
        PlaceShape(region: .circle(center: LatLng(degreesLatitude: center.lat, longitude: center.lon), radiusMeters: radius))
    }

    @Test(arguments: [25.0, 100, 1_000, 50_000])
    func theCoveringHoldsEveryPointOfTheCircleAndProbesFindIt(radius: Double) {
        let shape = Self.circle(radius)
        #expect(!shape.covering.isEmpty && shape.covering.count <= 8)
        #expect(shape.covering.allSatisfy { PlaceShape.indexLevels.contains($0.level) })
        for step in 0...500 {
            let position = Self.east(Double(step) / 500 * radius)
            #expect(shape.mayContain(position.leaf))
            // The index finds the place by probing the leaf's ancestors at the index levels.
            let probes = Set(PlaceShape.probeCells(containing: position.leaf))
            #expect(shape.covering.contains { probes.contains($0) })
        }
        if radius <= 1_000 { #expect(!shape.mayContain(Self.east(radius * 3 + 1_000).leaf)) }
    }

    @Test func commonAncestorContainsEveryLeaf() {
        let leaves = [0.0, 40, 300, 2_000].map { Self.east($0).leaf }
        let common = PlaceShape.commonAncestor(of: leaves)
        #expect(common.map { c in leaves.allSatisfy { c.contains($0) } } == true)
        #expect(common.map { $0.level < 30 } == true)
        #expect(PlaceShape.commonAncestor(of: [leaves[0]]) == leaves[0])
        #expect(PlaceShape.commonAncestor(of: []) == nil)
        let otherFace = PlaceArrivals.Position(longitude: 120, latitude: -30, accuracyMeters: nil, timestamp: 0).leaf
        #expect(PlaceShape.commonAncestor(of: [leaves[0], otherFace]) == nil)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let remembered: PlacePresence?
        let meters: [Double]
        let accuracy: Double?
        let presence: PlacePresence?
        let crossings: [(PlaceCrossing, Int)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a batch that walks in and out", remembered: .outside, meters: [300, 150, 50, 20, 80, 140, 400], accuracy: 8,
             presence: .outside, crossings: [(.enter, 2), (.exit, 5)]),
        Case(name: "jitter at the edge inside one batch", remembered: .outside, meters: [150, 95, 110, 98, 115, 99, 120], accuracy: 8,
             presence: .inside, crossings: [(.enter, 1)]),
        Case(name: "first positions set the state silently", remembered: nil, meters: [50, 60, 300], accuracy: 8,
             presence: .outside, crossings: [(.exit, 2)]),
        Case(name: "first positions outside, silent", remembered: nil, meters: [500, 400], accuracy: 8, presence: .outside, crossings: []),
        Case(name: "far outside and known outside: nothing", remembered: .outside, meters: [5_000, 6_000], accuracy: 8,
             presence: nil, crossings: []),
        Case(name: "inaccurate fixes change nothing", remembered: .inside, meters: [900, 2_000], accuracy: 500,
             presence: nil, crossings: []),
    ]

    @Test(arguments: cases)
    func batches(_ c: Case) {
        let positions = c.meters.enumerated().map { Self.east($1, accuracy: c.accuracy, at: Int64($0) * 1_000) }
        let outcome = PlaceArrivals.evaluate(positions, candidates: [.init(key: "school", shape: Self.circle(100), remembered: c.remembered)])
        #expect(outcome.presence["school"] == c.presence)
        #expect(outcome.crossings.map(\.crossing) == c.crossings.map(\.0))
        #expect(outcome.crossings.map(\.position) == c.crossings.map(\.1))
    }

    @Test func crossingsOfSeveralPlacesComeInPositionOrder() {
        let positions = [600, 300, 40, 300, 600].enumerated().map { Self.east(Double($1), at: Int64($0)) }
        let outcome = PlaceArrivals.evaluate(positions, candidates: [
            .init(key: "park", shape: Self.circle(500), remembered: .outside),
            .init(key: "school", shape: Self.circle(100), remembered: .outside),
        ])
        #expect(outcome.crossings.map { "\($0.key) \($0.crossing.rawValue)" } == ["park enter", "school enter", "school exit", "park exit"])
    }
}
