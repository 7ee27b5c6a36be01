import Testing
import Timeline

/// Sparse histories as phones and imports produce them (OwnTracks' significant-changes mode
/// reports a fix on arrival and then nothing until the phone moves; an imported visit is two
/// fixes, its start and its end): the stay at the destination must survive the silence.
///
/// Each row is fixes at places `A` (home) and `B` (2 km east) or `C` (8 km north) at minutes
/// after 07:00, the segments expected, and the last stay's span in minutes.
@Suite struct SparseShapesTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        /// (minutes after 07:00, place)
        let fixes: [(minutes: Double, place: Character)]
        let kinds: [String]
        /// Start and end of the last stay, minutes after 07:00.
        let lastStay: (start: Double, end: Double)?
        var testDescription: String { name }
    }

    static let b = TrackBuilder.offset(home, east: 2_000, north: 0)
    static let c = TrackBuilder.offset(home, east: 0, north: 8_000)
    static let start: Int64 = 1_704_092_400_000  // 2024-01-01T07:00:00Z

    static let shapes: [Shape] = [
        Shape(name: "a short trip, then silence at the destination (issue #45: 8.5 h at B)",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (570, "B"), (570.00002, "B")],
              kinds: ["stay", "trip", "stay"], lastStay: (65, 570.00002)),
        Shape(name: "imported visits: two fixes each, at A then at B",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (570, "B")],
              kinds: ["stay", "trip", "stay"], lastStay: (65, 570)),
        Shape(name: "two fixes at the destination before the silence",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (67, "B"), (570, "B")],
              kinds: ["stay", "trip", "stay"], lastStay: (65, 570)),
        Shape(name: "a single fix on the way, then silence at the destination",
              fixes: [(0, "A"), (40, "A"), (50, "C"), (65, "B"), (400, "B")],
              kinds: ["stay", "trip", "stay"], lastStay: (65, 400)),
        Shape(name: "two fixes at the destination end the input: a stay at B of 20 minutes",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (85, "B")],
              kinds: ["stay", "trip", "stay"], lastStay: (65, 85)),
        Shape(name: "a moving trip, then a single fix and silence at the destination",
              fixes: [(0, "C"), (20, "A"), (25, "B"), (400, "B")],
              kinds: ["trip", "stay"], lastStay: (25, 400)),
        Shape(name: "back home after the silence: the fix at B was noise inside the stay",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (570, "A")],
              kinds: ["stay"], lastStay: (0, 570)),
        Shape(name: "somewhere else after the silence: the fix at B is a trip ending at the gap",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (570, "C")],
              kinds: ["stay", "trip", "trip"], lastStay: (0, 40)),
        Shape(name: "a silence longer than a day does not make a stay",
              fixes: [(0, "A"), (40, "A"), (65, "B"), (65 + 25 * 60, "B")],
              kinds: ["stay", "trip", "trip"], lastStay: (0, 40)),
    ]

    static func fixes(_ shape: Shape) -> [TimelineFix] {
        shape.fixes.map { minutes, place in
            let point = place == "A" ? home : place == "B" ? b : c
            return TimelineFix(timestamp: start + Int64((minutes * 60_000).rounded()), longitude: point.longitude,
                               latitude: point.latitude, accuracy: 10)
        }
    }

    @Test(arguments: shapes)
    func shape(_ shape: Shape) throws {
        let fixes = Self.fixes(shape)
        let segments = TimelineSegmenter.segments(of: fixes)
        #expect(segments.map(\.kind) == shape.kinds, "\(segments)")
        #expect(segments.map(\.fixes).reduce(0, +) == fixes.count)
        for (segment, next) in zip(segments, segments.dropFirst()) { #expect(segment.end <= next.start) }
        if let expected = shape.lastStay {
            let stay = try #require(segments.last { $0.stay != nil }?.stay)
            #expect(stay.start == Self.start + Int64((expected.start * 60_000).rounded()))
            #expect(stay.end == Self.start + Int64((expected.end * 60_000).rounded()))
        }
        // The same fixes in any streaming pieces give the same segments.
        var segmenter = TimelineSegmenter()
        var streamed: [TimelineSegment] = []
        for fix in fixes {
            segmenter.add(fix)
            streamed += segmenter.takeSegments()
        }
        segmenter.finish()
        streamed += segmenter.takeSegments()
        #expect(streamed == segments)
    }

    @Test func theIssuesStayAtBIsEightAndAHalfHours() throws {
        let segments = TimelineSegmenter.segments(of: Self.fixes(Self.shapes[0]))
        let stayAtB = try #require(segments.last?.stay)
        #expect(stayAtB.end - stayAtB.start == 505 * 60_000 + 1)
        #expect(metersBetween(stayAtB.location, Self.b) < 1)
        let trip = try #require(segments[1].trip)
        #expect(trip.fixes == 0 && abs(trip.distance - 2_000) < 20)
    }
}
