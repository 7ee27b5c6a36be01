import JSONCore

/// OwnTracks (iOS/Android) HTTP mode: one JSON message per request.
///
/// `_type: "location"` becomes a fix:
/// - `lat`, `lon` (degrees) and `tst` (epoch seconds) are required; `tst` follows the same
///   seconds/milliseconds rule as the native format (values above 1e11 are milliseconds).
/// - A `tst` before `FixRules.minTimestamp` that, counted from 2001-01-01 instead of 1970 (Apple's
///   reference date: Overland's OwnTracks mode sends `timeIntervalSinceReferenceDate`), lies
///   within `referenceDateWindow` before `now` (or up to the future limit after it) is read that
///   way. A clock that was never set counts from 1970 or a GPS epoch, which lands nowhere near.
/// - `acc` → accuracy (m), `alt` → altitude (m), `vel` km/h → speed m/s (× 1000 ÷ 3600), `cog` →
///   heading (degrees), `batt` → battery (%). The app omits zero values (absent → nil), and a
///   negative `acc`, `vel`, `cog` or `batt` is an "unknown" marker → nil, not an error. Other
///   out-of-range values are rejected with the same codes as the native format, with limits
///   shown in OwnTracks units.
/// - Ignored: `tid`, `vac`, `p`, `bs`, `conn`, `m`, `t`, `inregions`, `inrids`, `SSID`, `BSSID`,
///   `created_at` (when the message was built, not the fix time), `topic`, `_id`, and anything else.
/// - `clientID` is always nil. A queued message is resent unchanged, so its `tst` (the fix time)
///   is identical and the server's (device, timestamp) rule makes resends duplicates; `_id` is
///   Android-only and not documented to be stable across retries, so relying on it could store
///   a resent fix twice.
///
/// `parse` returns nil for every other `_type`. `read` (what the ingest endpoint uses) never
/// throws: it also reads `transition` (the phone's own region events), accepts the messages
/// that carry nothing to store (`knownTypes`), hands `encrypted` back to be opened, and lists
/// what cannot be stored as unusable.
public enum OwnTracksFormat {
    /// How long before `now` a `tst` counted from Apple's reference date may lie (7 days: the
    /// app sending it keeps only its newest point, so it is recent unless the phone was offline).
    public static let referenceDateWindow: Int64 = 7 * 86_400_000
    /// Milliseconds from 1970-01-01 to 2001-01-01 (Apple's reference date).
    static let referenceDateOffset: Int64 = 978_307_200_000

    /// Message types that carry nothing to store: accepted as they are.
    public static let knownTypes: Set<String> = [
        "lwt", "status", "card", "cmd", "waypoint", "waypoints", "steps", "beacon", "request", "configuration", "clear", "dump",
    ]

    /// What an OwnTracks request body holds.
    public enum Message: Sendable, Equatable {
        /// A plain message, read.
        case plain(AppPayload)
        /// An `encrypted` message: `data` is base64 of nonce, MAC and ciphertext, to be opened
        /// with the device's secret and read again.
        case encrypted(data: String)
    }

    /// Reads one message; what cannot be stored becomes `unusable` (with the message as its sample).
    public static func read(_ body: JSONValue, now: Int64, rules: FixRules = .standard) -> Message {
        guard case .object(let message) = body else {
            return .plain(AppPayload(unusable: .invalidBody("an OwnTracks message must be a JSON object, not \(body.typeWithArticle)"),
                                     json: body))
        }
        guard case .string(let type)? = message["_type"] else {
            return .plain(AppPayload(unusable: .invalidBody("an OwnTracks message must have a _type string"), json: body))
        }
        switch type {
        case "location":
            do {
                return .plain(AppPayload(fixes: [try location(message, now: now, rules: rules)]))
            } catch {
                var payload = AppPayload(unusable: error, json: body)
                payload.battery = battery(message, now: now, rules: rules)
                return .plain(payload)
            }
        case "transition":
            do {
                return .plain(AppPayload(transitions: [try transition(message, now: now, rules: rules)]))
            } catch {
                return .plain(AppPayload(unusable: error, json: body))
            }
        case "encrypted":
            guard case .string(let data)? = message["data"] else {
                return .plain(AppPayload(unusable: .invalidBody("an OwnTracks encrypted message needs data, a base64 string"), json: body))
            }
            return .encrypted(data: data)
        case _ where knownTypes.contains(type):
            return .plain(AppPayload())
        default:
            return .plain(AppPayload(unusable: FixError(code: .unsupportedMessage, message: "OwnTracks messages of _type \(JSONValue.string(type)) are not read"),
                                     json: body))
        }
    }

    /// The fix of a `location` message; nil for every other `_type`.
    public static func parse(_ body: JSONValue, now: Int64, rules: FixRules = .standard) throws(FixError) -> Fix? {
        guard case .object(let message) = body else {
            throw .invalidBody("an OwnTracks message must be a JSON object, not \(body.typeWithArticle)")
        }
        guard case .string(let type)? = message["_type"] else {
            throw .invalidBody("an OwnTracks message must have a _type string")
        }
        guard type == "location" else { return nil }
        return try location(message, now: now, rules: rules)
    }

    static func location(_ message: JSONObject, now: Int64, rules: FixRules) throws(FixError) -> Fix {
        guard case .number(let lat)? = message["lat"], case .number(let lon)? = message["lon"] else {
            throw .invalidLocation("an OwnTracks location needs numeric lat and lon")
        }
        try FixCheck.point(longitude: lon.double, latitude: lat.double)
        let timestamp = try time(message["tst"], now: now, rules: rules, what: "location")
        return Fix(
            longitude: lon.double, latitude: lat.double, timestamp: timestamp, timestampWasGiven: true,
            accuracy: try Measure.accuracy("acc", rules: rules, app: true).value(message["acc"]),
            altitude: try Measure.altitude("alt", rules: rules).value(message["alt"]),
            speed: try Measure.speed("vel", unit: "km/h", metersPerHour: 1000, rules: rules, app: true)
                .value(message["vel"]),
            heading: try Measure.heading("cog", app: true).value(message["cog"]),
            battery: try Measure.battery("batt", app: true).value(message["batt"]),
            clientID: nil)
    }

    /// A `transition`: `event` `enter` or `leave` and `tst` are required; `desc` names the
    /// region; `lat`/`lon` and `acc` are kept when valid (dropped, not refused, otherwise); `t`
    /// says what detected it.
    static func transition(_ message: JSONObject, now: Int64, rules: FixRules) throws(FixError) -> RegionTransition {
        guard case .string(let name)? = message["event"], let event = RegionTransition.Event(rawValue: name) else {
            throw .invalidBody("an OwnTracks transition needs event \"enter\" or \"leave\"")
        }
        let timestamp = try time(message["tst"], now: now, rules: rules, what: "transition")
        var longitude: Double?, latitude: Double?
        if case .number(let lat)? = message["lat"], case .number(let lon)? = message["lon"],
           (try? FixCheck.point(longitude: lon.double, latitude: lat.double)) != nil {
            (longitude, latitude) = (lon.double, lat.double)
        }
        let accuracy = longitude == nil ? nil : (try? Measure.accuracy("acc", rules: rules, app: true).value(message["acc"])) ?? nil
        return RegionTransition(event: event, region: message["desc"]?.stringValue ?? "", timestamp: timestamp,
                                longitude: longitude, latitude: latitude, accuracy: accuracy, trigger: message["t"]?.stringValue)
    }

    /// `tst` in milliseconds within the time window (see the type's notes on Apple's reference date).
    static func time(_ value: JSONValue?, now: Int64, rules: FixRules, what: String) throws(FixError) -> Int64 {
        guard case .number(let tst)? = value, let ms = FixCheck.epochMilliseconds(tst) else {
            throw .invalidTimestamp("an OwnTracks \(what) needs tst, a number of epoch seconds")
        }
        if ms < rules.minTimestamp, ms > 0 {
            let (counted, overflow) = ms.addingReportingOverflow(referenceDateOffset)
            if !overflow, counted >= now - referenceDateWindow, let corrected = try? FixCheck.window(counted, now: now, rules: rules) {
                return corrected
            }
        }
        return try FixCheck.window(ms, now: now, rules: rules)
    }

    /// The `batt` of a location that cannot be stored, when its `tst` is usable.
    static func battery(_ message: JSONObject, now: Int64, rules: FixRules) -> BatteryReading? {
        guard let timestamp = try? time(message["tst"], now: now, rules: rules, what: "location"),
              let percent = (try? Measure.battery("batt", app: true).value(message["batt"])) ?? nil else { return nil }
        return BatteryReading(percent: percent, timestamp: timestamp)
    }
}

extension AppPayload {
    /// One message that cannot be used, its JSON as the sample.
    init(unusable error: FixError, json: JSONValue) {
        self.init(unusable: [UnusableMessage(error: error, json: json)])
    }
}
