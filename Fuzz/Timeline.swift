// fuzz-modules: Timeline GeoKit LocationFormats JSONCore Timestamps
// fuzz-support: FuzzCheck
// fuzz-max-len: 16384
//
// Stays and trips (Sources/Timeline: TimelineSegmenter) from fixes decoded from the input. The
// first byte picks the source: with its top bit set the rest is a history file whose fixes
// (HistoryImporter) are segmented in time order; otherwise the first two bytes pick the
// parameters and the place, and the rest is a track (see `TrackDecoder`), which reaches the
// poles, the antimeridian, gaps, time going backwards and any Int64/Double bit pattern.
// Invariants:
// - exactly the fixes the documentation says are ignored are ignored (`ignoredFixes`), and every
//   other fix lands in one segment (the segments' fixes add up);
// - segments are oldest first without overlap, within the accepted fixes' times; a stay lasts
//   at least `stayMinutes` with two fixes or more; a trip's path is at least the great-circle
//   distance between its ends, a trip without fixes lies between two stays, and a trip beside a
//   stay starts or ends exactly at its centre;
//   every position and number is finite and in range;
// - a silence never splits a place: two consecutive accepted fixes at the same position with the
//   same accuracy, at least `stayMinutes` apart and no further apart than a stay survives (the
//   gap that ends a trip, or `maxStayGapHours`), lie in one stay — whatever came before them (a
//   stay they left, a trip, an excursion of up to `maxOutlierFixes`) and whether the input ends
//   after them (issue #45: a short trip, then hours at the destination without a fix);
// - streaming (`takeSegments` at points the input picks) gives the segments of the whole input.
import Glibc
import GeoKit
import LocationFormats
import Timeline

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimeline(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let first = input.first else { return 0 }
    let track: DecodedTrack
    if first & 0x80 != 0 {
        let (fixes, _) = HistoryImporter.read(Array(input.dropFirst()), options: ImportOptions(now: 1_796_083_200_000))
        let ordered = fixes.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
        track = DecodedTrack(parameters: TimelineParameters(), fixes: ordered.map {
            TimelineFix(timestamp: $0.element.timestamp, longitude: $0.element.longitude,
                        latitude: $0.element.latitude, accuracy: $0.element.accuracy)
        }, checkpoints: [])
    } else {
        track = TrackDecoder.decode(input)
    }
    checkSegmentation(track, context: { "\(track.fixes.count) fixes, \(track.parameters), input \(input.prefix(64))" })
    return 0
}

func checkSegmentation(_ track: DecodedTrack, context: () -> String) {
    let parameters = track.parameters
    let whole = TimelineSegmenter.segments(of: track.fixes, parameters: parameters)

    var segmenter = TimelineSegmenter(parameters: parameters)
    var streamed: [TimelineSegment] = []
    for (i, fix) in track.fixes.enumerated() {
        segmenter.add(fix)
        if track.checkpoints.contains(i) { streamed += segmenter.takeSegments() }
    }
    segmenter.finish()
    streamed += segmenter.takeSegments()
    require(streamed == whole, "streaming gives \(streamed.count) segments, the whole input \(whole.count): \(context())")

    let accepted = acceptedFixes(track.fixes, parameters: parameters)
    require(segmenter.ignoredFixes == track.fixes.count - accepted.count,
            "\(segmenter.ignoredFixes) fixes ignored, the documented rule ignores \(track.fixes.count - accepted.count): \(context())")
    require(whole.map(\.fixes).reduce(0, +) == accepted.count,
            "segments hold \(whole.map(\.fixes).reduce(0, +)) fixes of \(accepted.count) accepted: \(context())")
    guard let firstTime = accepted.first?.timestamp, let lastTime = accepted.last?.timestamp else {
        require(whole.isEmpty, "segments without fixes: \(context())")
        return
    }
    let stayMilliseconds = parameters.stayMinutes * 60_000
    checkSilencesKeepPlaces(accepted, whole, parameters: parameters, context: context)
    for (i, segment) in whole.enumerated() {
        require(segment.start <= segment.end && segment.start >= firstTime && segment.end <= lastTime,
                "segment \(i) \(segment) outside \(firstTime)…\(lastTime): \(context())")
        if i + 1 < whole.count {
            require(segment.end <= whole[i + 1].start, "segments \(i) and \(i + 1) overlap: \(context())")
        }
        switch segment {
        case .stay(let stay):
            require(Double(stay.end - stay.start) >= stayMilliseconds && stay.fixes >= 2,
                    "stay \(stay) shorter than \(parameters.stayMinutes) minutes: \(context())")
            require(stay.radius.isFinite && stay.radius >= 0 && isValid(stay.location), "stay \(stay): \(context())")
        case .trip(let trip):
            require(trip.fixes >= 0 && trip.distance.isFinite && trip.distance >= 0 && trip.averageSpeed.isFinite
                    && trip.averageSpeed >= 0 && isValid(trip.from) && isValid(trip.to), "trip \(trip): \(context())")
            let direct = distance(trip.from, trip.to)
            require(trip.distance >= direct - 1e-6 * direct - 1e-3,
                    "trip \(trip) shorter than the \(direct) m between its ends: \(context())")
            // A trip beside a stay starts or ends exactly at that stay's (final) centre.
            if i > 0, let before = whole[i - 1].stay, before.end == trip.start {
                require(trip.from == before.location, "trip \(i) starts at \(trip.from), not at the stay before it \(before.location): \(context())")
            }
            if i + 1 < whole.count, let after = whole[i + 1].stay, after.start == trip.end {
                require(trip.to == after.location, "trip \(i) ends at \(trip.to), not at the stay after it \(after.location): \(context())")
            }
            if trip.fixes == 0 {
                let between = i > 0 && i + 1 < whole.count && whole[i - 1].stay?.end == trip.start && whole[i + 1].stay?.start == trip.end
                require(between, "trip \(i) without fixes does not join two stays: \(context())")
            }
        }
    }
}

/// Consecutive accepted fixes at one position (and accuracy), `stayMinutes` to the longest
/// silence a stay survives apart, are inside one stay.
func checkSilencesKeepPlaces(_ accepted: [TimelineFix], _ segments: [TimelineSegment], parameters: TimelineParameters,
                             context: () -> String) {
    let stays = segments.compactMap(\.stay)
    let longest = max(parameters.maxGapMinutes, parameters.maxStayGapHours * 60) * 60_000
    for (p, q) in zip(accepted, accepted.dropFirst())
    where p.longitude == q.longitude && p.latitude == q.latitude && p.accuracy == q.accuracy {
        let apart = Double(q.timestamp - p.timestamp)  // |timestamps| ≤ 2⁵³: no overflow
        guard apart >= parameters.stayMinutes * 60_000 && apart <= longest else { continue }
        require(stays.contains { $0.start <= p.timestamp && $0.end >= q.timestamp },
                "fixes at one place \(p.timestamp)…\(q.timestamp) are in no one stay: \(segments): \(context())")
    }
}

/// The fixes the segmenter's documentation says it uses: finite coordinates in range, accuracy
/// not NaN and at most `maxAccuracy`, |timestamp| ≤ 2⁵³ ms, not older than the previous one used.
func acceptedFixes(_ fixes: [TimelineFix], parameters: TimelineParameters) -> [TimelineFix] {
    var accepted: [TimelineFix] = []
    for fix in fixes {
        guard fix.latitude.isFinite && fix.longitude.isFinite && fix.latitude.magnitude <= 90 && fix.longitude.magnitude <= 180
              && !(fix.accuracy?.isNaN ?? false) && (fix.accuracy ?? 0) <= parameters.maxAccuracy
              && fix.timestamp.magnitude <= 1 << 53 && fix.timestamp >= (accepted.last?.timestamp ?? .min) else { continue }
        accepted.append(fix)
    }
    return accepted
}

func isValid(_ p: TimelinePoint) -> Bool {
    p.latitude.isFinite && p.longitude.isFinite && p.latitude.magnitude <= 90 && p.longitude.magnitude <= 180
}

/// Great-circle meters between two points (R = 6,378,100 m, as the segmenter measures).
func distance(_ a: TimelinePoint, _ b: TimelinePoint) -> Double {
    Earth.distance(from: LatLng(degreesLatitude: a.latitude, longitude: a.longitude).toPoint(),
                   to: LatLng(degreesLatitude: b.latitude, longitude: b.longitude).toPoint()).meters
}

extension TimelineSegment {
    var stay: Stay? { if case .stay(let s) = self { s } else { nil } }
}

struct DecodedTrack {
    var parameters: TimelineParameters
    var fixes: [TimelineFix]
    /// Indices of fixes after which the streaming run takes the finished segments.
    var checkpoints: Set<Int>
}

/// Decodes a track from bytes. Two header bytes: stay radius (10 m–10 km), place (Munich, near
/// the North Pole, at the antimeridian, at 0°/0°) and outlier count; stay minutes (1–1,440),
/// gap minutes, stay gap hours, maximum accuracy. Then records, by their first byte `tag`:
/// - `tag` < 0x80, 5 bytes: a step of `dt` (1 byte) seconds × 1/10/60/3,600 (tag bits 0–1),
///   backwards when bit 2 is set; east and north (signed bytes) × 1/10/100/10,000 m (bits 3–4);
///   accuracy (0: none, 255: NaN, else meters, × 4 with bit 5); bit 6: a streaming checkpoint;
/// - `tag` ≥ 0x80, 33 bytes: any timestamp, longitude, latitude and accuracy (bit 0: none) bit
///   patterns; the track continues from there when they are valid.
enum TrackDecoder {
    static let places = [(11.5755, 48.1374), (12.0, 89.9995), (179.9995, -17.8), (0.0, 0.0)]

    static func decode(_ input: [UInt8]) -> DecodedTrack {
        let h0 = input.count > 0 ? input[0] : 0, h1 = input.count > 1 ? input[1] : 0
        let parameters = TimelineParameters(
            stayRadius: [10, 30, 50, 100, 100, 200, 1_000, 10_000][Int(h0 & 7)],
            stayMinutes: [5, 1, 2, 10, 15, 30, 60, 1_440][Int(h1 & 7)],
            maxGapMinutes: [60, 10, 30, 120][Int(h1 >> 3 & 3)],
            maxStayGapHours: [24, 1, 6, 48][Int(h1 >> 5 & 3)],
            maxAccuracy: h1 & 0x80 == 0 ? 250 : 50,
            maxOutlierFixes: [2, 0, 1, 4][Int(h0 >> 5 & 3)])
        var (longitude, latitude) = places[Int(h0 >> 3 & 3)]
        var time: Int64 = 1_704_067_200_000
        var fixes: [TimelineFix] = []
        var checkpoints: Set<Int> = []
        var i = 2
        while i < input.count && fixes.count < 4_000 {
            let tag = input[i]
            if tag & 0x80 == 0 {
                guard i + 5 <= input.count else { break }
                let units: [Int64] = [1, 10, 60, 3_600]
                let step = Int64(input[i + 1]) * units[Int(tag & 3)] * 1_000
                time = tag & 4 == 0 ? time &+ step : time &- step
                let scale = [1.0, 10, 100, 10_000][Int(tag >> 3 & 3)]
                let east = Double(Int8(bitPattern: input[i + 2])) * scale, north = Double(Int8(bitPattern: input[i + 3])) * scale
                latitude = min(90, max(-90, latitude + north / 111_318.845))
                let metersPerDegree = 111_318.845 * cos(latitude * .pi / 180)
                if metersPerDegree > 1e-3 { longitude = (longitude + east / metersPerDegree).remainder(dividingBy: 360) }
                let a = input[i + 4]
                let accuracy: Double? = a == 0 ? nil : a == 255 ? .nan : Double(a) * (tag & 0x20 == 0 ? 1 : 4)
                fixes.append(TimelineFix(timestamp: time, longitude: longitude, latitude: latitude, accuracy: accuracy))
                if tag & 0x40 != 0 { checkpoints.insert(fixes.count - 1) }
                i += 5
            } else {
                guard i + 33 <= input.count else { break }
                func word(_ k: Int) -> UInt64 {
                    (0..<8).reduce(0) { $0 | UInt64(input[i + 1 + k * 8 + $1]) << ($1 * 8) }
                }
                let fix = TimelineFix(timestamp: Int64(bitPattern: word(0)), longitude: Double(bitPattern: word(1)),
                                      latitude: Double(bitPattern: word(2)), accuracy: tag & 1 == 0 ? Double(bitPattern: word(3)) : nil)
                fixes.append(fix)
                if fix.latitude.isFinite && fix.longitude.isFinite && fix.latitude.magnitude <= 90 && fix.longitude.magnitude <= 180 {
                    (longitude, latitude, time) = (fix.longitude, fix.latitude, fix.timestamp)
                }
                i += 33
            }
        }
        return DecodedTrack(parameters: parameters, fixes: fixes, checkpoints: checkpoints)
    }
}
