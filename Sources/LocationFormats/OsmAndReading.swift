import JSONCore

/// What the OsmAnd ingest endpoint reads from a request, never failing (`AppPayload`): Traccar
/// Client's forms and JSON, OsmAnd's query, the background-geolocation JSON.
///
/// - A message without a position (no `lat`, `lon` or `location`: Traccar Client's heartbeat
///   `id, timestamp, batt, charge`) is no fix and nothing unusable: only its battery is read.
/// - A message whose fix cannot be stored (`valid=false`, a time out of the window, ...) is
///   unusable; its battery still counts when its time is usable.
/// - Samples never hold `id`, `deviceid`, `device_id` (the device token).
extension OsmAndFormat {
    /// The parameters that name the device token.
    static let tokenParameters: Set<String> = ["id", "deviceid", "device_id"]

    /// The device token of a query or form: `id` or `deviceid`; nil when absent, empty, or
    /// given twice with different values.
    public static func deviceToken(_ items: [(name: String, value: String)]) -> String? {
        var token: String?
        for item in items where item.name == "id" || item.name == "deviceid" {
            if let known = token, known != item.value { return nil }
            token = item.value
        }
        return token?.isEmpty == false ? token : nil
    }

    /// The device token of a JSON body: `device_id` (the background-geolocation form) or `id`
    /// of the object, or `id` of the first element of an array (Traccar Client's JSON batches).
    public static func deviceToken(json body: JSONValue) -> String? {
        let named: JSONValue?
        switch body {
        case .object(let root): named = root["device_id"] ?? root["id"]
        case .array(let elements): named = elements.first?["id"]
        default: named = nil
        }
        guard case .string(let token)? = named, !token.isEmpty else { return nil }
        return token
    }

    /// Reads one message of query or form parameters.
    public static func read(_ items: [(name: String, value: String)], now: Int64, rules: FixRules = .standard) -> AppPayload {
        let hasPosition = items.contains { ($0.name == "lat" || $0.name == "lon" || $0.name == "location") && !$0.value.isEmpty }
        guard hasPosition else { return AppPayload(battery: battery(items, now: now, rules: rules)) }
        do {
            return AppPayload(fixes: [try parseQuery(items, now: now, rules: rules).fix])
        } catch {
            var payload = AppPayload(unusable: error, sample: sample(items))
            payload.battery = battery(items, now: now, rules: rules)
            return payload
        }
    }

    /// Reads a JSON body authenticated by `token`: Traccar Client's JSON (an array of objects of
    /// the query's parameters, or one such object), or the background-geolocation form (`location`
    /// an object, or an array of them when the plugin batches). An element naming another token
    /// is unusable (`device_id_mismatch`).
    public static func readJSON(_ body: JSONValue, token: String, now: Int64, rules: FixRules = .standard) -> AppPayload {
        switch body {
        case .array(let elements):
            return readParameterObjects(elements, token: token, now: now, rules: rules)
        case .object(let root) where root["location"] != nil:
            let locations: [JSONValue]
            switch root["location"] {
            case .array(let elements)?: locations = elements
            case let location?: locations = [location]
            case nil: locations = []
            }
            guard locations.count <= rules.maxBatch else {
                return AppPayload(unusable: .batchTooLarge(count: locations.count, rules: rules), sample: "")
            }
            var payload = AppPayload()
            for location in locations {
                do {
                    payload.fixes.append(try parseJSONLocation(location, now: now, rules: rules))
                } catch {
                    payload.unusable.append(UnusableMessage(error: error, json: location))
                }
            }
            return payload
        case .object:
            return readParameterObjects([body], token: token, now: now, rules: rules)
        default:
            return AppPayload(unusable: [UnusableMessage(
                error: .invalidBody("an OsmAnd JSON body must be an object or an array of objects, not \(body.typeWithArticle)"), json: body)])
        }
    }

    static func readParameterObjects(_ elements: [JSONValue], token: String, now: Int64, rules: FixRules) -> AppPayload {
        guard elements.count <= rules.maxBatch else {
            return AppPayload(unusable: .batchTooLarge(count: elements.count, rules: rules), sample: "")
        }
        var payload = AppPayload()
        for element in elements {
            guard case .object(let object) = element else {
                payload.unusable.append(UnusableMessage(error: .invalidFix("each element must be an object of OsmAnd parameters"), json: element))
                continue
            }
            let items = parameters(object)
            guard deviceToken(items) == token else {
                payload.unusable.append(UnusableMessage(
                    error: FixError(code: .deviceIDMismatch, message: "the element names another device than the request's token"),
                    sample: sample(items)))
                continue
            }
            payload.merge(read(items, now: now, rules: rules))
        }
        return payload
    }

    /// An object's members as query parameters: strings as they are, numbers as JSON writes
    /// them, booleans as `true`/`false`; null, arrays and objects are left out.
    static func parameters(_ object: JSONObject) -> [(name: String, value: String)] {
        object.compactMap { member in
            switch member.value {
            case .string(let text): (member.key, text)
            case .number(let number): (member.key, number.description)
            case .bool(let flag): (member.key, flag ? "true" : "false")
            case .null, .array, .object: nil
            }
        }
    }

    /// The battery of a message, when its time is usable: `batt` at `timestamp` (or `now`
    /// without one). An unreadable `batt` or `timestamp` gives none.
    static func battery(_ items: [(name: String, value: String)], now: Int64, rules: FixRules) -> BatteryReading? {
        guard let text = items.last(where: { $0.name == "batt" })?.value,
              let percent = (try? Measure.battery("batt", app: true).value(text: text)) ?? nil else { return nil }
        guard let time = items.last(where: { $0.name == "timestamp" })?.value, !time.isEmpty else {
            return BatteryReading(percent: percent, timestamp: now)
        }
        guard let ms = timestampMilliseconds(time), let timestamp = try? FixCheck.window(ms, now: now, rules: rules) else { return nil }
        return BatteryReading(percent: percent, timestamp: timestamp)
    }

    /// The parameters as `name=value&…`, without the device token.
    static func sample(_ items: [(name: String, value: String)]) -> String {
        items.filter { !tokenParameters.contains($0.name) }.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }
}
