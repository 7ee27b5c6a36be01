import Testing
import Timeline

let home = TimelinePoint(longitude: 11.5755, latitude: 48.1374)
let cafe = TrackBuilder.offset(home, east: 1000, north: 0)
let park = TrackBuilder.offset(cafe, east: 0, north: 800)

@Suite struct TimelineSegmenterTests {
    @Test func walkWithTwoStops() throws {
        var track = TrackBuilder(seed: 1)
        track.stay(at: home, minutes: 20)
        let leftHome = track.time - 60_000
        track.move(from: home, to: cafe, speed: 1.4)
        let arrivedCafe = track.time
        track.stay(at: cafe, minutes: 30)
        track.move(from: cafe, to: park, speed: 1.4)
        track.stay(at: park, minutes: 15)
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.map(\.kind) == ["stay", "trip", "stay", "trip", "stay"])
        let stays = segments.compactMap(\.stay), trips = segments.compactMap(\.trip)
        try #require(stays.count == 3 && trips.count == 2)
        for (stay, truth) in zip(stays, [home, cafe, park]) {
            #expect(metersBetween(stay.location, truth) < 15, "stay at \(stay.location)")
            #expect(stay.radius <= 100)
        }
        #expect(stays[0].start == track.fixes[0].timestamp)
        // The first step of the walk (84 m) is still within the 100-m circle.
        #expect(stays[0].end >= leftHome && stays[0].end <= leftHome + 60_000)
        #expect(abs(stays[1].start - arrivedCafe) <= 120_000)
        #expect(abs(trips[0].distance - 1000) < 150, "walk of \(trips[0].distance) m")
        #expect(abs(trips[1].distance - 800) < 150)
        #expect(trips[0].averageSpeed > 1.0 && trips[0].averageSpeed < 1.8)
        #expect(trips[0].start == stays[0].end && trips[0].end == stays[1].start)
        #expect(trips[0].from == stays[0].location && trips[0].to == stays[1].location)
        #expect(segments.map(\.fixes).reduce(0, +) == track.fixes.count)
    }

    @Test func standingStillJitterCloudIsOneStay() throws {
        var track = TrackBuilder(seed: 2)
        track.stay(at: home, minutes: 120, every: 30, jitter: 60, accuracy: 30)
        let segments = TimelineSegmenter.segments(of: track.fixes)
        let stay = try #require(segments.first?.stay)
        #expect(segments.count == 1)
        #expect(stay.fixes == track.fixes.count)
        #expect(metersBetween(stay.location, home) < 15)
        #expect(stay.radius <= 60 + 15, "jitter plus the centre's error")
        #expect(stay.end - stay.start == 120 * 60_000)
    }

    @Test func driveWithAGapIsTwoTrips() throws {
        var track = TrackBuilder(seed: 3)
        let a = home, b = TrackBuilder.offset(home, east: 16_000, north: 0)
        let c = TrackBuilder.offset(b, east: 40_000, north: 0), d = TrackBuilder.offset(c, east: 16_000, north: 0)
        track.move(from: a, to: b, speed: 14, every: 10)
        let lastBeforeGap = track.fixes[track.fixes.count - 1].timestamp
        track.silence(minutes: 90)
        let firstAfterGap = track.time
        track.move(from: c, to: d, speed: 14, every: 10)
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.map(\.kind) == ["trip", "trip"])
        let trips = segments.compactMap(\.trip)
        try #require(trips.count == 2)
        #expect(trips[0].end == lastBeforeGap && trips[1].start >= firstAfterGap)
        #expect(abs(trips[0].distance - 16_000) < 500 && abs(trips[1].distance - 16_000) < 500)
        #expect(abs(trips[0].averageSpeed - 14) < 1)
    }

    @Test func parkedThroughASilenceIsAStay() {
        var track = TrackBuilder(seed: 4)
        let work = TrackBuilder.offset(home, east: 5_000, north: 0)
        track.move(from: home, to: work, speed: 12, every: 10)
        track.silence(minutes: 180)
        track.stay(at: work, minutes: 2)
        track.move(from: work, to: home, speed: 12, every: 10)
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.map(\.kind) == ["trip", "stay", "trip"])
        #expect((segments[1].stay.map { $0.end - $0.start } ?? 0) >= 180 * 60_000)
    }

    @Test func oneOutlierDoesNotSplitAStay() throws {
        var track = TrackBuilder(seed: 5)
        track.stay(at: home, minutes: 60)
        let outlier = TrackBuilder.offset(home, east: 2_000, north: 0)
        track.fixes[30].longitude = outlier.longitude
        track.fixes[30].latitude = outlier.latitude
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.count == 1)
        let stay = try #require(segments.first?.stay)
        #expect(stay.fixes == track.fixes.count)
        #expect(stay.radius < 50, "the outlier must not count in the radius")
    }

    @Test func aBurstOfOutliersIsMergedBack() {
        var track = TrackBuilder(seed: 6)
        track.stay(at: home, minutes: 60)
        for k in 30..<34 {
            let p = TrackBuilder.offset(home, east: 700, north: Double(k) * 10)
            track.fixes[k].longitude = p.longitude
            track.fixes[k].latitude = p.latitude
        }
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.map(\.kind) == ["stay"])
        #expect(segments.first?.fixes == track.fixes.count)
    }

    /// Found by the `timeline` fuzz target (seed `Fuzz/Corpus/timeline/regress-trip-end-after-merge`):
    /// the trips beside a stay that absorbed the next one ended at the centres from before the merge.
    @Test func tripsMeetAMergedStayAtItsFinalCentre() throws {
        var track = TrackBuilder(seed: 9)
        track.move(from: cafe, to: home, speed: 1.4)
        track.stay(at: home, minutes: 30)
        for k in 0..<3 {
            let away = TrackBuilder.offset(home, east: 700, north: Double(k) * 10)
            track.fixes.append(TimelineFix(timestamp: track.time, longitude: away.longitude, latitude: away.latitude, accuracy: 10))
            track.time += 60_000
        }
        let shifted = TrackBuilder.offset(home, east: 40, north: 0)
        track.stay(at: shifted, minutes: 30)
        track.move(from: shifted, to: park, speed: 1.4)
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.map(\.kind) == ["trip", "stay", "trip"])
        let stays = segments.compactMap(\.stay), trips = segments.compactMap(\.trip)
        try #require(stays.count == 1 && trips.count == 2)
        #expect(trips[0].to == stays[0].location && trips[0].end == stays[0].start)
        #expect(trips[1].from == stays[0].location && trips[1].start == stays[0].end)
        #expect(segments.map(\.fixes).reduce(0, +) == track.fixes.count)
    }

    @Test func sparseHeartbeatsMakeOneStay() throws {
        var track = TrackBuilder(seed: 7)
        track.stay(at: home, minutes: 180, every: 600, jitter: 20, accuracy: 20)
        let lastHeartbeat = track.time - 600_000
        track.move(from: home, to: cafe, speed: 1.4)
        let segments = TimelineSegmenter.segments(of: track.fixes)
        #expect(segments.map(\.kind) == ["stay", "trip"])
        let stay = try #require(segments.first?.stay)
        #expect(stay.fixes == 19 || stay.fixes == 20, "19 heartbeats, and the first walking fix 84 m away may count")
        #expect(stay.start == track.fixes[0].timestamp)
        #expect(stay.end == lastHeartbeat || stay.end == lastHeartbeat + 600_000, "the walk starts at the next heartbeat slot")
    }

    @Test func inaccurateFixesAreIgnored() throws {
        var track = TrackBuilder(seed: 8)
        track.stay(at: home, minutes: 60)
        for k in stride(from: 5, to: 60, by: 7) {
            let p = TrackBuilder.offset(home, east: 600, north: 0)
            track.fixes[k] = TimelineFix(timestamp: track.fixes[k].timestamp, longitude: p.longitude, latitude: p.latitude, accuracy: 1_500)
        }
        var segmenter = TimelineSegmenter()
        for fix in track.fixes { segmenter.add(fix) }
        segmenter.finish()
        let segments = segmenter.takeSegments()
        #expect(segments.map(\.kind) == ["stay"])
        #expect(segmenter.ignoredFixes == 8)
        #expect(segments.first?.fixes == track.fixes.count - 8)
    }

    /// Found by the timeline fuzzer: with one-minute stays a walk of 80-m steps keeps confirming
    /// stays, and an excursion's fixes replayed after a stay ended used to confirm a second stay
    /// over the first one they had just made, losing its fixes.
    @Test func fixesReplayedAfterAnExcursionAreNeverLost() {
        var track = TrackBuilder(seed: 11)
        let away = TrackBuilder.offset(home, east: 3_000, north: 0)
        track.stay(at: home, minutes: 20, jitter: 10, accuracy: 10)
        track.move(from: home, to: away, speed: 80.0 / 60, every: 60)
        track.stay(at: away, minutes: 20, jitter: 10, accuracy: 10)
        let segments = TimelineSegmenter.segments(of: track.fixes, parameters: TimelineParameters(stayMinutes: 1))
        #expect(segments.map(\.fixes).reduce(0, +) == track.fixes.count)
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.end <= $1.start }, "oldest first, no overlap")
    }

    @Test func outOfOrderAndInvalidFixesAreIgnored() {
        var segmenter = TimelineSegmenter()
        segmenter.add(TimelineFix(timestamp: 1_000_000, longitude: 11, latitude: 48))
        segmenter.add(TimelineFix(timestamp: 999_999, longitude: 11, latitude: 48))
        segmenter.add(TimelineFix(timestamp: 1_000_001, longitude: .nan, latitude: 48))
        segmenter.add(TimelineFix(timestamp: 1_000_002, longitude: 11, latitude: 91))
        segmenter.add(TimelineFix(timestamp: 1_000_003, longitude: 11, latitude: 48, accuracy: .nan))
        segmenter.add(TimelineFix(timestamp: .max, longitude: 11, latitude: 48))
        segmenter.finish()
        #expect(segmenter.ignoredFixes == 5)
        #expect(segmenter.takeSegments().map(\.fixes) == [1])
    }

    @Test func streamingInPiecesGivesTheSameSegments() {
        var track = TrackBuilder(seed: 9)
        for _ in 0..<5 {
            track.stay(at: home, minutes: 40, every: 30, jitter: 30)
            track.move(from: home, to: park, speed: 3)
            track.stay(at: park, minutes: 25)
            track.silence(minutes: 70)
            track.move(from: park, to: home, speed: 3)
        }
        let whole = TimelineSegmenter.segments(of: track.fixes)
        var segmenter = TimelineSegmenter()
        var pieces: [TimelineSegment] = []
        for (i, fix) in track.fixes.enumerated() {
            segmenter.add(fix)
            if i % 17 == 0 { pieces += segmenter.takeSegments() }
        }
        segmenter.finish()
        pieces += segmenter.takeSegments()
        #expect(pieces == whole)
        #expect(whole == TimelineSegmenter.segments(of: track.fixes), "deterministic")
        #expect(zip(whole, whole.dropFirst()).allSatisfy { $0.end <= $1.start }, "oldest first, no overlap")
    }

    @Test func emptyAndSingleFix() {
        #expect(TimelineSegmenter.segments(of: []).isEmpty)
        let one = TimelineSegmenter.segments(of: [TimelineFix(timestamp: 5, longitude: 1, latitude: 2)])
        #expect(one == [.trip(Trip(start: 5, end: 5, fixes: 1, distance: 0, averageSpeed: 0,
                                   from: TimelinePoint(longitude: 1, latitude: 2), to: TimelinePoint(longitude: 1, latitude: 2)))])
    }

    @Test func parametersAreValidated() throws {
        let custom = try TimelineParameters.validated(stayRadius: 50, stayMinutes: 10)
        #expect(custom.stayRadius == 50 && custom.stayMinutes == 10)
        #expect(try TimelineParameters.validated(stayRadius: nil, stayMinutes: nil) == TimelineParameters())
        #expect(throws: TimelineParameterError.self) { try TimelineParameters.validated(stayRadius: 5, stayMinutes: nil) }
        do {
            _ = try TimelineParameters.validated(stayRadius: nil, stayMinutes: .nan)
            Issue.record("NaN accepted")
        } catch {
            #expect(error.message == "stayMinutes must be a number from 1 to 1440 (minutes)")
        }
    }

    @Test func longerStayMinutesTurnsAShortStopIntoPartOfTheTrip() {
        var track = TrackBuilder(seed: 10)
        track.stay(at: home, minutes: 30)
        track.move(from: home, to: cafe, speed: 1.4)
        track.stay(at: cafe, minutes: 8)
        track.move(from: cafe, to: park, speed: 1.4)
        track.stay(at: park, minutes: 30)
        let five = TimelineSegmenter.segments(of: track.fixes)
        let fifteen = TimelineSegmenter.segments(of: track.fixes, parameters: TimelineParameters(stayMinutes: 15))
        #expect(five.map(\.kind) == ["stay", "trip", "stay", "trip", "stay"])
        #expect(fifteen.map(\.kind) == ["stay", "trip", "stay"])
    }
}
