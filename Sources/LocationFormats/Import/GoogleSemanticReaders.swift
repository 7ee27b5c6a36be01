import JSONCore
import Timestamps

/// Semantic Location History (`Semantic Location History/2019/2019_APRIL.json`): one element of
/// `timelineObjects` at a time.
///
/// - `placeVisit`: `location.latitudeE7/longitudeE7` (else `centerLatE7/centerLngE7`) at
///   `duration.startTimestamp` and again at `duration.endTimestamp` (a stay has two ends), plus
///   the points of `simplifiedRawPath.points` (`latE7`, `lngE7`, `timestamp`, `accuracyMeters`).
/// - `activitySegment`: `startLocation` at the start, `endLocation` at the end, the points of
///   `simplifiedRawPath`, and the `waypointPath.waypoints` (`latE7`, `lngE7`), which carry no
///   time: they get times evenly spaced between the segment's start and end.
///
/// Times may also be `startTimestampMs` / `endTimestampMs` (older exports). Each point is
/// validated like a native fix; a bad duration rejects the points that need it.
enum SemanticHistoryReader {
    static func timelineObject(_ value: JSONValue, _ collector: inout ImportCollector) {
        if let visit = value["placeVisit"]?.objectValue {
            placeVisit(visit, &collector)
        } else if let segment = value["activitySegment"]?.objectValue {
            activitySegment(segment, &collector)
        } else {
            collector.reject(FixError(code: .invalidRecord, message: "each element of timelineObjects must hold a placeVisit or an activitySegment"))
        }
    }

    static func placeVisit(_ visit: JSONObject, _ collector: inout ImportCollector) {
        let (start, end) = duration(visit["duration"])
        let location = visit["location"]?.objectValue ?? [:]
        let useCenter = location["latitudeE7"] == nil && visit["centerLatE7"] != nil
        let lat = useCenter ? visit["centerLatE7"] : location["latitudeE7"]
        let lng = useCenter ? visit["centerLngE7"] : location["longitudeE7"]
        let names = useCenter ? ("centerLatE7", "centerLngE7") : ("location.latitudeE7", "location.longitudeE7")
        emit(lat: lat, lng: lng, names: names, time: start, &collector)
        if case .success(let s) = start, case .success(let e) = end, e != s {
            emit(lat: lat, lng: lng, names: names, time: end, &collector)
        }
        rawPath(visit["simplifiedRawPath"], &collector)
    }

    static func activitySegment(_ segment: JSONObject, _ collector: inout ImportCollector) {
        let (start, end) = duration(segment["duration"])
        let from = segment["startLocation"]
        emit(lat: from?["latitudeE7"], lng: from?["longitudeE7"], names: ("startLocation.latitudeE7", "startLocation.longitudeE7"),
             time: start, &collector)
        let waypoints = segment["waypointPath"]?["waypoints"]?.arrayValue ?? []
        for (k, waypoint) in waypoints.enumerated() {
            let time: Result<Int64, FixError> = switch (start, end) {
            case (.success(let s), .success(let e)):
                // Evenly spaced strictly inside the segment (the ends are the start/end locations).
                evenlySpaced(from: s, to: e, step: k + 1, of: waypoints.count + 1).map { .success($0) }
                    ?? .failure(.invalidTimestamp("duration spans more than ±292 million years"))
            case (.failure(let error), _), (_, .failure(let error)):
                .failure(error)
            }
            emit(lat: waypoint["latE7"], lng: waypoint["lngE7"], names: ("waypoints.latE7", "waypoints.lngE7"), time: time, &collector)
        }
        rawPath(segment["simplifiedRawPath"], &collector)
        let to = segment["endLocation"]
        emit(lat: to?["latitudeE7"], lng: to?["longitudeE7"], names: ("endLocation.latitudeE7", "endLocation.longitudeE7"),
             time: end, &collector)
    }

    /// `simplifiedRawPath.points`: `latE7`, `lngE7`, `timestamp` or `timestampMs`, `accuracyMeters`.
    static func rawPath(_ path: JSONValue?, _ collector: inout ImportCollector) {
        for point in path?["points"]?.arrayValue ?? [] {
            let time = Result { () throws(FixError) in
                try GoogleRecordFields.milliseconds(point["timestamp"], point["timestampMs"])
            }
            emit(lat: point["latE7"], lng: point["lngE7"], names: ("points.latE7", "points.lngE7"), time: time,
                 accuracy: point["accuracyMeters"], &collector)
        }
    }

    /// Step `k` of `parts` equal steps from `start` to `end` (milliseconds; 0 ≤ `k` ≤ `parts`),
    /// or nil when `end − start` does not fit in Int64 (the client's times can be any Int64,
    /// the window check comes later). The result lies between `start` and `end`.
    static func evenlySpaced(from start: Int64, to end: Int64, step k: Int, of parts: Int) -> Int64? {
        let (span, overflow) = end.subtractingReportingOverflow(start)
        guard !overflow, parts > 0, (0...parts).contains(k) else { return nil }
        return start + span / Int64(parts) * Int64(k)
    }

    /// `duration.startTimestamp` / `endTimestamp` (or the `…Ms` forms).
    static func duration(_ value: JSONValue?) -> (Result<Int64, FixError>, Result<Int64, FixError>) {
        let start = Result { () throws(FixError) in
            try GoogleRecordFields.milliseconds(value?["startTimestamp"], value?["startTimestampMs"])
        }
        let end = Result { () throws(FixError) in
            try GoogleRecordFields.milliseconds(value?["endTimestamp"], value?["endTimestampMs"])
        }
        return (start, end)
    }

    static func emit(lat: JSONValue?, lng: JSONValue?, names: (String, String), time: Result<Int64, FixError>,
                     accuracy: JSONValue? = nil, _ collector: inout ImportCollector) {
        let now = collector.now, rules = collector.rules
        collector.point(.googleSemantic) { () throws(FixError) in
            let latitude = try GoogleRecordFields.degrees(fromE7: lat, field: names.0)
            let longitude = try GoogleRecordFields.degrees(fromE7: lng, field: names.1)
            try FixCheck.point(longitude: longitude, latitude: latitude)
            let ms = try FixCheck.window(try time.get(), now: now, rules: rules)
            return Fix(longitude: longitude, latitude: latitude, timestamp: ms,
                       accuracy: try Measure.accuracy("accuracyMeters", rules: rules, app: false).value(accuracy))
        }
    }
}

/// The on-device Timeline export (2024 on): Android's `{"semanticSegments": [...],
/// "rawSignals": [...], "userLocationProfile": {...}}` and iOS's root array of segments.
///
/// - A segment (`startTime`, `endTime`, RFC 3339 with offsets): `timelinePath[]` points
///   (`point` and `time`, or on iOS `durationMinutesOffsetFromStartTime`); a `visit`'s
///   `topCandidate.placeLocation` (`latLng`, or the iOS string) at the start and at the end; an
///   `activity`'s `start` / `end` (`latLng`, or the iOS strings) at the start / end.
/// - A raw signal: `position` with `LatLng`, `timestamp`, `accuracyMeters`, `altitudeMeters`,
///   `speedMetersPerSecond` (m/s). Wi-Fi scans and activity records hold no position: skipped.
///
/// Points are text, latitude first: `"48.1°, 11.5°"`, `"48.1, 11.5"` or `"geo:48.1,11.5"`.
enum TimelineExportReader {
    static func segment(_ value: JSONValue, _ collector: inout ImportCollector) {
        guard case .object(let segment) = value else {
            collector.reject(.invalidFix("each segment must be an object, not \(value.typeWithArticle)"))
            return
        }
        let start = time(segment["startTime"], field: "startTime")
        let end = time(segment["endTime"], field: "endTime")
        for element in segment["timelinePath"]?.arrayValue ?? [] {
            let at: Result<Int64, FixError>
            if let offset = element["durationMinutesOffsetFromStartTime"] {
                at = start.flatMap { s in
                    minutes(offset).map { .success(s + $0 * 60_000) } ?? .failure(.invalidTimestamp("durationMinutesOffsetFromStartTime must be a whole number of minutes"))
                }
            } else {
                at = time(element["time"], field: "time")
            }
            emit(element["point"], field: "point", time: at, &collector)
        }
        if let visit = segment["visit"] {
            let place = visit["topCandidate"]?["placeLocation"]
            let point = place?["latLng"] ?? place
            emit(point, field: "placeLocation", time: start, &collector)
            if case .success(let s) = start, case .success(let e) = end, e != s {
                emit(point, field: "placeLocation", time: end, &collector)
            }
        }
        if let activity = segment["activity"] {
            emit(activity["start"]?["latLng"] ?? activity["start"], field: "activity.start", time: start, &collector)
            emit(activity["end"]?["latLng"] ?? activity["end"], field: "activity.end", time: end, &collector)
        }
    }

    static func rawSignal(_ value: JSONValue, _ collector: inout ImportCollector) {
        guard let position = value["position"]?.objectValue else { return }
        let at = time(position["timestamp"], field: "timestamp")
        let rules = collector.rules
        emit(position["LatLng"] ?? position["latLng"], field: "LatLng", time: at, &collector) { fix throws(FixError) in
            fix.accuracy = try Measure.accuracy("accuracyMeters", rules: rules, app: false).value(position["accuracyMeters"])
            fix.altitude = try Measure.altitude("altitudeMeters", rules: rules).value(position["altitudeMeters"])
            fix.speed = try Measure.speed("speedMetersPerSecond", rules: rules, app: false).value(position["speedMetersPerSecond"])
        }
    }

    static func emit(_ point: JSONValue?, field: String, time: Result<Int64, FixError>, _ collector: inout ImportCollector,
                     measures: (inout Fix) throws(FixError) -> Void = { _ in }) {
        let now = collector.now, rules = collector.rules
        collector.point(.googleTimeline) { () throws(FixError) in
            let (latitude, longitude) = try TimelinePointText.parse(point, field: field)
            try FixCheck.point(longitude: longitude, latitude: latitude)
            let ms = try FixCheck.window(try time.get(), now: now, rules: rules)
            var fix = Fix(longitude: longitude, latitude: latitude, timestamp: ms)
            try measures(&fix)
            return fix
        }
    }

    static func time(_ value: JSONValue?, field: String) -> Result<Int64, FixError> {
        switch value {
        case nil, .null?: return .failure(ImportCollector.missingTimestamp)
        case .string(let text)?:
            guard let ms = Timestamp.parseRFC3339(text) else {
                return .failure(.invalidTimestamp("\(field) must be an RFC 3339 date-time (2024-04-01T10:15:00.000+02:00)"))
            }
            return .success(ms)
        default:
            return .failure(.invalidTimestamp("\(field) must be an RFC 3339 date-time string, not \(value?.typeWithArticle ?? "missing")"))
        }
    }

    /// Whole minutes written as a string ("12") or a number.
    static func minutes(_ value: JSONValue) -> Int64? {
        switch value {
        case .string(let text): ImportText.integer(text).flatMap { $0.magnitude <= 100_000_000 ? $0 : nil }
        case .number(let n): n.int64.flatMap { $0.magnitude <= 100_000_000 ? $0 : nil }
        default: nil
        }
    }
}

/// Timeline points as text, latitude first: `48.1°, 11.5°`, `48.1, 11.5`, `geo:48.1,11.5`.
enum TimelinePointText {
    static func parse(_ value: JSONValue?, field: String) throws(FixError) -> (latitude: Double, longitude: Double) {
        guard case .string(let text)? = value else {
            throw FixError.invalidLocation("\(field) must be a point written \"48.1°, 11.5°\" or \"geo:48.1,11.5\", not \(value?.typeWithArticle ?? "missing")")
        }
        var body = Substring(text)
        if body.hasPrefix("geo:") { body = body.dropFirst(4) }
        // `geo:` URIs may carry parameters after ';' (uncertainty, CRS).
        if let semicolon = body.firstIndex(of: ";") { body = body[..<semicolon] }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let latitude = FixCheck.decimal(clean(parts[0])), let longitude = FixCheck.decimal(clean(parts[1])) else {
            throw FixError.invalidLocation("\(field) must be a point written \"48.1°, 11.5°\" or \"geo:48.1,11.5\": \"\(text.prefix(64))\"")
        }
        return (latitude, longitude)
    }

    static func clean(_ part: Substring) -> String {
        var s = part.trimmingSpaces()
        if s.hasSuffix("°") { s.removeLast() }
        return s
    }
}
