import JSONCore
import Timestamps

/// The OsmAnd protocol (Traccar Client and many GPS apps), with the device token as `id`.
///
/// **Parameters** (`GET` query or `POST` form body; names are case-sensitive):
/// - `id` or `deviceid` (required): the device token; returned as `deviceToken` for the caller to
///   authenticate. Both given with different values → `duplicate_parameter`.
/// - `lat` + `lon`, or `location=lat,lon` (latitude first) when `lat`/`lon` are absent: decimal
///   degrees, MongoDB point rules and wording.
/// - `timestamp`: epoch seconds, epoch milliseconds (numbers above 1e11), ISO 8601, or
///   `yyyy-MM-dd HH:mm:ss`; a time without zone is UTC. A `+` offset whose `+` arrived
///   unencoded (and so became a space) is still understood. Missing or empty: `now`.
/// - `speed` in **knots** → m/s (× 1852 ÷ 3600 ≈ 0.514444); `bearing` (or `heading` when there
///   is no `bearing`) in degrees; `altitude` and `accuracy` in meters; `batt` in percent.
/// - `hdop` is used only when there is no usable `accuracy`: accuracy ≈ hdop × `FixRules.metersPerHDOP`
///   (dropped when not a number or beyond `maxAccuracy`; it is only an estimate).
/// - `valid`: `false`/`0` → `fix_not_valid`. Traccar stores such fixes flagged as invalid, but we
///   keep no such flag and a fix the device itself calls bad must never become a latest location.
///   `true`/`1`/empty are fine; any other value is `invalid_parameter`.
/// - `charge` and every other parameter: ignored (OsmAnd's "extra attributes").
/// - Negative `speed`, `bearing`/`heading`, `accuracy` and `batt` are "unknown" → nil.
///   Empty values count as absent. A repeated parameter with differing values → `duplicate_parameter`.
/// - `clientID` is nil: the protocol has no fix id, so resends are recognised by timestamp
///   (fixes without a `timestamp` cannot be deduplicated).
///
/// **JSON form** (`parseJSON`, the Transistorsoft background-geolocation shape), see there.
public enum OsmAndFormat {
    public static func parseQuery(_ items: [(name: String, value: String)], now: Int64,
                                  rules: FixRules = .standard) throws(FixError) -> (deviceToken: String, fix: Fix) {
        var values: [String: String] = [:]
        for item in items where knownParameters.contains(item.name) {
            let key = item.name == "deviceid" ? "id" : item.name
            if let existing = values[key] {
                guard existing == item.value else {
                    let name = key == "id" ? "id (or deviceid)" : key
                    throw FixError(code: .duplicateParameter,
                                   message: "parameter \(name) is given more than once with different values")
                }
            } else {
                values[key] = item.value
            }
        }
        func value(_ key: String) -> String? {
            guard let text = values[key], !text.isEmpty else { return nil }
            return text
        }

        guard let token = value("id") else {
            throw FixError(code: .missingDeviceID, message: "the device token is required as id (or deviceid)")
        }

        let latitude: Double, longitude: Double
        if value("lat") != nil || value("lon") != nil {
            guard let lat = FixCheck.decimal(values["lat"] ?? ""), let lon = FixCheck.decimal(values["lon"] ?? "") else {
                throw .invalidLocation("lat and lon must both be decimal numbers (degrees)")
            }
            (latitude, longitude) = (lat, lon)
        } else if let location = value("location") {
            let parts = location.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let lat = FixCheck.decimal(trimmingSpaces(parts[0])),
                  let lon = FixCheck.decimal(trimmingSpaces(parts[1])) else {
                throw .invalidLocation("location must be latitude,longitude in decimal degrees")
            }
            (latitude, longitude) = (lat, lon)
        } else {
            throw .invalidLocation("lat and lon (or location=latitude,longitude) are required")
        }
        try FixCheck.point(longitude: longitude, latitude: latitude)

        var timestamp = now
        var given = false
        if let text = value("timestamp") {
            guard let ms = timestampMilliseconds(text) else {
                throw .invalidTimestamp(
                    "timestamp must be epoch seconds or milliseconds, ISO 8601, or yyyy-MM-dd HH:mm:ss (UTC)")
            }
            timestamp = try FixCheck.window(ms, now: now, rules: rules)
            given = true
        }

        let speed = try Measure.speed(unit: "knots", metersPerHour: 1852, rules: rules, app: true).value(text: value("speed"))
        let heading: Double?
        if let bearing = value("bearing") {
            heading = try Measure.heading("bearing", app: true).value(text: bearing)
        } else {
            heading = try Measure.heading(app: true).value(text: value("heading"))
        }
        let altitude = try Measure.altitude(rules: rules).value(text: value("altitude"))
        var accuracy = try Measure.accuracy(rules: rules, app: true).value(text: value("accuracy"))
        if accuracy == nil, let perHDOP = rules.metersPerHDOP, let hdop = value("hdop").flatMap(FixCheck.decimal),
           hdop >= 0, hdop * perHDOP <= rules.maxAccuracy {
            accuracy = hdop * perHDOP
        }
        let battery = try Measure.battery("batt", app: true).value(text: value("batt"))

        switch value("valid")?.lowercased() {
        case nil, "true", "1":
            break
        case "false", "0":
            throw FixError(code: .fixNotValid, message: "the device marked this fix as not valid (valid=false)")
        default:
            throw FixError(code: .invalidParameter, message: "valid must be true, false, 1 or 0")
        }

        let fix = Fix(longitude: longitude, latitude: latitude, timestamp: timestamp, timestampWasGiven: given,
                      accuracy: accuracy, altitude: altitude, speed: speed, heading: heading, battery: battery)
        return (token, fix)
    }

    /// An `application/x-www-form-urlencoded` body with the same parameters as `parseQuery`.
    public static func parseForm(_ body: [UInt8], now: Int64,
                                 rules: FixRules = .standard) throws(FixError) -> (deviceToken: String, fix: Fix) {
        try parseQuery(try decodeForm(body), now: now, rules: rules)
    }

    /// Decodes `application/x-www-form-urlencoded` bytes (also usable for a raw URL query string
    /// without its `?`): pairs separated by `&` (empty pairs skipped), name and value split at the
    /// first `=` (no `=`: empty value), `+` is a space, `%XX` is the byte XX (either case).
    /// A `%` not followed by two hex digits, or a result that is not UTF-8, is `invalid_form`.
    public static func decodeForm(_ bytes: [UInt8]) throws(FixError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for part in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((try decodeComponent(part[..<equals]), try decodeComponent(part[(equals + 1)...])))
            } else {
                pairs.append((try decodeComponent(part), ""))
            }
        }
        return pairs
    }

    /// The pairs of a form body that decode (see `decodeForm`), the others left out: where a
    /// form with one bad pair still names its device token.
    public static func decodeFormLeniently(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).compactMap { part in
            try? decodeForm(Array(part)).first
        }
    }

    /// The Transistorsoft background-geolocation JSON form that OsmAnd servers accept:
    /// ```json
    /// {"device_id": "<token>", "location": {"timestamp": "2023-11-14T22:13:20.000Z",
    ///  "coords": {"latitude": 51.5, "longitude": -0.12, "accuracy": 5, "speed": 3.2,
    ///             "heading": 90, "altitude": 20},
    ///  "is_moving": true, "odometer": 0, "battery": {"level": 0.8, "is_charging": false}, ...}}
    /// ```
    /// - `device_id` (a non-empty string, required) is the device token.
    /// - `location` must be an object (one fix); `coords.latitude` and `coords.longitude` are required.
    /// - `timestamp`: ISO 8601 (no zone means UTC) or epoch seconds/milliseconds; missing → `now`.
    /// - `coords.speed` is already m/s; negative `speed`, `heading`, `accuracy` and `battery.level`
    ///   are "unknown" → nil. `battery.level` 0…1 → percent (× 100).
    /// - `location.uuid` (the plugin's id of the record, resent unchanged), when a string of
    ///   1…`maxClientIDBytes` bytes, becomes `clientID`; otherwise it is ignored.
    /// - Everything else (`is_moving`, `odometer`, `event`, `activity`, `extras`, `is_charging`, …)
    ///   is ignored.
    public static func parseJSON(_ body: JSONValue, now: Int64,
                                 rules: FixRules = .standard) throws(FixError) -> (deviceToken: String, fix: Fix) {
        guard case .object(let root) = body else {
            throw .invalidBody("an OsmAnd JSON body must be an object, not \(body.typeWithArticle)")
        }
        guard case .string(let token)? = root["device_id"], !token.isEmpty else {
            throw FixError(code: .missingDeviceID, message: "the device token is required as device_id (a string)")
        }
        return (token, try parseJSONLocation(root["location"], now: now, rules: rules))
    }

    /// One `location` object of the background-geolocation JSON form (see `parseJSON`).
    static func parseJSONLocation(_ value: JSONValue?, now: Int64, rules: FixRules) throws(FixError) -> Fix {
        guard case .object(let location)? = value else {
            throw .invalidLocation("location must be an object with coords {latitude, longitude, ...}")
        }
        guard case .object(let coords)? = location["coords"] else {
            throw .invalidLocation("location.coords must be an object {latitude, longitude, ...}")
        }
        guard case .number(let lat)? = coords["latitude"], case .number(let lon)? = coords["longitude"] else {
            throw .invalidLocation("location.coords needs numeric latitude and longitude")
        }
        try FixCheck.point(longitude: lon.double, latitude: lat.double)

        var timestamp = now
        var given = false
        if let value = location.present("timestamp") {
            let ms: Int64?
            switch value {
            case .string(let text): ms = Timestamp.parseRFC3339(text, assumeUTC: true)
            case .number(let number): ms = FixCheck.epochMilliseconds(number)
            default: ms = nil
            }
            guard let ms else {
                throw .invalidTimestamp("location.timestamp must be an ISO 8601 date-time or a number of epoch seconds or milliseconds")
            }
            timestamp = try FixCheck.window(ms, now: now, rules: rules)
            given = true
        }

        let accuracy = try Measure.accuracy("coords.accuracy", rules: rules, app: true).value(coords["accuracy"])
        let altitude = try Measure.altitude("coords.altitude", rules: rules).value(coords["altitude"])
        let speed = try Measure.speed("coords.speed", rules: rules, app: true).value(coords["speed"])
        let heading = try Measure.heading("coords.heading", app: true).value(coords["heading"])
        let batteryMeasure = Measure.battery("battery.level", fraction: true, app: true)
        var battery: Double?
        switch location["battery"] {
        case nil, .null?: battery = nil
        case .object(let info)?: battery = try batteryMeasure.value(info["level"])
        default: throw batteryMeasure.error
        }
        var clientID: String?
        if case .string(let uuid)? = location["uuid"], !uuid.isEmpty, uuid.utf8.count <= rules.maxClientIDBytes {
            clientID = uuid
        }

        return Fix(longitude: lon.double, latitude: lat.double, timestamp: timestamp, timestampWasGiven: given,
                   accuracy: accuracy, altitude: altitude, speed: speed, heading: heading, battery: battery,
                   clientID: clientID)
    }

    // MARK: - Helpers

    /// Parameters we read; only these take part in the duplicate check.
    static let knownParameters: Set<String> = [
        "id", "deviceid", "lat", "lon", "location", "timestamp", "speed", "bearing", "heading",
        "altitude", "accuracy", "hdop", "batt", "valid",
    ]

    /// Epoch seconds/milliseconds, ISO 8601 or `yyyy-MM-dd HH:mm:ss` (UTC unless a zone is given).
    static func timestampMilliseconds(_ text: String) -> Int64? {
        if let integer = Int64(text) { return FixCheck.epochMilliseconds(integer: integer) }
        if let number = FixCheck.decimal(text) { return FixCheck.epochMilliseconds(double: number) }
        if let ms = Timestamp.parseRFC3339(text, assumeUTC: true) { return ms }
        // `2023-11-14T22:13:20+01:00` sent without encoding the `+` arrives as `... 01:00`.
        var bytes = Array(text.utf8)
        if bytes.count > 19, let space = bytes.lastIndex(of: UInt8(ascii: " ")), space >= 19 {
            bytes[space] = UInt8(ascii: "+")
            return Timestamp.parseRFC3339(String(decoding: bytes, as: UTF8.self), assumeUTC: false)
        }
        return nil
    }

    static func trimmingSpaces(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }

    static func decodeComponent(_ bytes: ArraySlice<UInt8>) throws(FixError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            switch bytes[i] {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
                i += 1
            case UInt8(ascii: "%"):
                guard i + 2 < bytes.endIndex, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                    throw FixError(code: .invalidForm, message: "the form body has a % not followed by two hex digits")
                }
                out.append(high << 4 | low)
                i += 3
            case let byte:
                out.append(byte)
                i += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw FixError(code: .invalidForm, message: "the form body is not UTF-8 after percent-decoding")
        }
        return text
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
