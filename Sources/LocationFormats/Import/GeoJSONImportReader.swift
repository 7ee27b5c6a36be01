import JSONCore

/// GeoJSON features, one at a time (an element of `features`, or a single root Feature).
///
/// - `Point`: `[lon, lat, alt?]`; time in `properties.timestamp` or `properties.time`.
/// - `LineString` / `MultiPoint`: one point per position, times from `properties.coordTimes`
///   or `properties.times` (as GPX converters write them); `MultiLineString`: the same per part,
///   with an array of time arrays. A position whose time there is `null` is drawn but no fix
///   (this server's exports write it where a line meets the antimeridian or continues in
///   another feature) and is passed over; a position without any time is rejected.
/// - Properties: `accuracy` or `horizontal_accuracy` (m), `altitude` (m; else the third
///   coordinate), `speed` (m/s) or `speed_kmh` (km/h), `heading` or `course` (degrees),
///   `battery` (percent) or `battery_level` (a fraction 0–1, as Overland sends), `id` (the
///   client id; else the Feature's own `id`). Overland's `-1` "unknown" for speed, course and
///   accuracy counts as absent.
///
/// Each point is then checked by `NativeFormat.fix`, so bounds, times and ranges are exactly
/// those of native ingest.
enum GeoJSONImportReader {
    static func feature(_ value: JSONValue, _ collector: inout ImportCollector) {
        guard case .object(let feature) = value, feature["type"]?.stringValue == "Feature" else {
            collector.reject(.invalidFix("each element of features must be a GeoJSON Feature"))
            return
        }
        let properties = feature["properties"]?.objectValue ?? [:]
        let geometry = feature["geometry"]
        let times = (properties["coordTimes"] ?? properties["times"])?.arrayValue
        let rules = collector.rules, now = collector.now
        let add = { (position: JSONValue, time: JSONValue?, collector: inout ImportCollector) in
            collector.point(.geojson) { () throws(FixError) in
                try NativeFormat.fix(try nativeObject(position: position, time: time, properties: properties, feature: feature, rules: rules),
                                     now: now, rules: rules)
            }
        }
        switch geometry?["type"]?.stringValue {
        case "Point":
            add(geometry?["coordinates"] ?? .null, properties["timestamp"] ?? properties["time"], &collector)
        case "LineString", "MultiPoint":
            for (i, position) in (geometry?["coordinates"]?.arrayValue ?? []).enumerated() where times?[safe: i] != .null {
                add(position, times?[safe: i], &collector)
            }
        case "MultiLineString":
            for (k, part) in (geometry?["coordinates"]?.arrayValue ?? []).enumerated() {
                let partTimes = times?[safe: k]?.arrayValue
                for (i, position) in (part.arrayValue ?? []).enumerated() where partTimes?[safe: i] != .null {
                    add(position, partTimes?[safe: i], &collector)
                }
            }
        case let other:
            collector.reject(.invalidFix("a feature with \(other.map { "a \($0)" } ?? "no") geometry holds no location points"))
        }
    }

    /// The native fix object for one position of a feature.
    static func nativeObject(position: JSONValue, time: JSONValue?, properties: JSONObject, feature: JSONObject,
                             rules: FixRules) throws(FixError) -> JSONObject {
        var object: JSONObject = ["location": position]
        if let time { object["timestamp"] = time }
        func known(_ names: String...) -> JSONValue? {
            for name in names { if let value = properties.present(name) { return value } }
            return nil
        }
        /// Overland's -1 (and any negative number) means "unknown" for these.
        func unknownIfNegative(_ value: JSONValue?) -> JSONValue? {
            if case .number(let n)? = value, n.double < 0 { return nil }
            return value
        }
        object["accuracy"] = unknownIfNegative(known("accuracy", "horizontal_accuracy"))
        object["altitude"] = known("altitude", "ele", "elevation")
        if let kmh = properties.present("speed_kmh") {
            object["speed"] = try Measure.speed("speed_kmh", unit: "km/h", metersPerHour: 1000, rules: rules, app: true)
                .value(kmh).map { .number(JSONNumber($0)) }
        } else {
            object["speed"] = unknownIfNegative(known("speed"))
        }
        object["heading"] = unknownIfNegative(known("heading", "course"))
        if let fraction = properties.present("battery_level"), properties.present("battery") == nil {
            object["battery"] = try Measure.battery("battery_level", fraction: true, app: true).value(fraction).map { .number(JSONNumber($0)) }
        } else {
            object["battery"] = known("battery")
        }
        switch properties.present("id") ?? feature["id"] {
        case .string(let id)?: object["id"] = .string(id)
        case .number(let n)?: object["id"] = .string(n.description)
        default: break
        }
        return object
    }
}
