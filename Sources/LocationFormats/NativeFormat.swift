import JSONCore
import Timestamps

/// The server's own body for `POST /v1/devices/{id}/locations`.
///
/// One fix:
/// ```json
/// {"location": [lon, lat, alt?], "timestamp": "2026-11-30T08:15:00.000Z",
///  "accuracy": 5, "altitude": 20, "speed": 1.5, "heading": 90, "battery": 80, "id": "fix-1"}
/// ```
/// or a batch `{"locations": [fix, ...]}` of 1…`FixRules.maxBatch` fixes.
///
/// - `location`: `[longitude, latitude, ...]` with MongoDB 2dsphere rules and wording. A numeric
///   third element is the altitude when there is no `altitude` member; further elements are ignored.
/// - `timestamp`: an RFC 3339 string with a zone (`Z`, `+01:00`, `+0100`; fractions beyond
///   milliseconds are truncated), or a number of epoch **seconds** — or **milliseconds** when the
///   number is greater than 1e11 (1e11 s is the year 5138, 1e11 ms is 1973, so nothing valid is
///   ambiguous); fractional numbers are rounded to the millisecond. Missing or null: `now`.
///   Rejected when before `FixRules.minTimestamp` (2000-01-01) or more than
///   `FixRules.maxFutureMilliseconds` after `now`.
/// - `accuracy` 0…100,000 m, `altitude` −12,000…100,000 m, `speed` 0…1,000 m/s, `heading`
///   0…360 (360 allowed), `battery` 0…100 %: numbers; negative speed/heading/accuracy are
///   errors here (the app formats map their `-1` "unknown" markers to nil instead).
/// - `id`: the client's own id, a string of 1…128 UTF-8 bytes.
/// - JSON null counts as absent for every optional member; unknown members are ignored (clients
///   may send more than we store, and newer clients must keep working with older servers).
///
/// A malformed body throws; an invalid fix is reported in `FixBatch.rejected` with its index
/// (0 for a single fix, with `isSingle` set so the caller answers 400 with that error).
public enum NativeFormat {
    public static func parse(_ body: JSONValue, now: Int64, rules: FixRules = .standard) throws(FixError) -> FixBatch {
        guard case .object(let object) = body else {
            throw .invalidBody("the body must be a JSON object: one fix {\"location\": [longitude, latitude], ...} or a batch {\"locations\": [fix, ...]}, not \(body.typeWithArticle)")
        }
        switch (object["location"], object["locations"]) {
        case (nil, nil):
            throw .invalidBody("the body must have location (one fix) or locations (a batch of fixes)")
        case (.some, .some):
            throw .invalidBody("the body must have either location (one fix) or locations (a batch), not both")
        case (.some, nil):
            do {
                return FixBatch(fixes: [(0, try fix(object, now: now, rules: rules))], isSingle: true)
            } catch {
                return FixBatch(rejected: [(0, error)], isSingle: true)
            }
        case (nil, .some(let list)):
            guard case .array(let items) = list else {
                throw .invalidBody("locations must be an array of fixes, not \(list.typeWithArticle)")
            }
            guard !items.isEmpty else {
                throw FixError(code: .emptyBatch, message: "locations must hold at least one fix")
            }
            guard items.count <= rules.maxBatch else { throw .batchTooLarge(count: items.count, rules: rules) }
            var batch = FixBatch(isSingle: false)
            batch.fixes.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                do throws(FixError) {
                    guard case .object(let fixObject) = item else {
                        throw FixError.invalidFix("each element of locations must be a fix object, not \(item.typeWithArticle)")
                    }
                    batch.fixes.append((index, try fix(fixObject, now: now, rules: rules)))
                } catch {
                    batch.rejected.append((index, error))
                }
            }
            return batch
        }
    }

    /// Validates one fix object. Checks run in member order of the documentation (location,
    /// timestamp, accuracy, altitude, speed, heading, battery, id); the first failure is reported.
    static func fix(_ object: JSONObject, now: Int64, rules: FixRules) throws(FixError) -> Fix {
        let point = try FixCheck.coordinates(object["location"], notArray: .locationNotArray)

        var timestamp = now
        var given = false
        if let value = object.present("timestamp") {
            timestamp = try FixCheck.window(try milliseconds(value), now: now, rules: rules)
            given = true
        }

        let accuracy = try Measure.accuracy(rules: rules, app: false).value(object["accuracy"])
        var altitude = try Measure.altitude(rules: rules).value(object["altitude"])
        if altitude == nil, let third = point.third {
            altitude = try Measure.altitude("location[2] (altitude)", rules: rules).value(third)
        }
        let speed = try Measure.speed(rules: rules, app: false).value(object["speed"])
        let heading = try Measure.heading(app: false).value(object["heading"])
        let battery = try Measure.battery(app: false).value(object["battery"])
        let id = try FixCheck.clientID(object["id"], field: "id", rules: rules)

        return Fix(longitude: point.longitude, latitude: point.latitude, timestamp: timestamp,
                   timestampWasGiven: given, accuracy: accuracy, altitude: altitude, speed: speed,
                   heading: heading, battery: battery, clientID: id)
    }

    static let timestampFormatError = FixError.invalidTimestamp(
        "timestamp must be an RFC 3339 date-time with a zone (2026-11-30T08:15:00.000Z) or a number of epoch seconds or milliseconds")

    /// RFC 3339 string or epoch seconds/milliseconds, before the window check.
    static func milliseconds(_ value: JSONValue) throws(FixError) -> Int64 {
        switch value {
        case .string(let text):
            guard let ms = Timestamp.parseRFC3339(text) else { throw timestampFormatError }
            return ms
        case .number(let number):
            guard let ms = FixCheck.epochMilliseconds(number) else { throw timestampFormatError }
            return ms
        default:
            throw timestampFormatError
        }
    }
}
