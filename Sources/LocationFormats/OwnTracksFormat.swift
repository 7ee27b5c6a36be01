import JSONCore

/// OwnTracks (iOS/Android) HTTP mode: one JSON message per request.
///
/// `_type: "location"` becomes a fix:
/// - `lat`, `lon` (degrees) and `tst` (epoch seconds) are required; `tst` follows the same
///   seconds/milliseconds rule as the native format (values above 1e11 are milliseconds).
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
/// Every other `_type` (`lwt`, `transition`, `waypoint`, `waypoints`, `card`, `status`, `steps`,
/// `beacon`, `encrypted`, or one we do not know yet) returns nil: accepted, nothing stored, so
/// the app does not queue and retry it. A body that is not an object or has no string `_type`
/// throws `invalid_body`.
public enum OwnTracksFormat {
    public static func parse(_ body: JSONValue, now: Int64, rules: FixRules = .standard) throws(FixError) -> Fix? {
        guard case .object(let message) = body else {
            throw .invalidBody("an OwnTracks message must be a JSON object, not \(body.typeWithArticle)")
        }
        guard case .string(let type)? = message["_type"] else {
            throw .invalidBody("an OwnTracks message must have a _type string")
        }
        guard type == "location" else { return nil }

        guard case .number(let lat)? = message["lat"], case .number(let lon)? = message["lon"] else {
            throw .invalidLocation("an OwnTracks location needs numeric lat and lon")
        }
        try FixCheck.point(longitude: lon.double, latitude: lat.double)

        guard case .number(let tst)? = message["tst"], let ms = FixCheck.epochMilliseconds(tst) else {
            throw .invalidTimestamp("an OwnTracks location needs tst, a number of epoch seconds")
        }
        let timestamp = try FixCheck.window(ms, now: now, rules: rules)

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
}
