import JSONCore
import Timestamps

/// The members of one `locations[]` element that matter, read straight from the tokens:
/// Google `Records.json` (`latitudeE7`, `longitudeE7`, `timestamp` or `timestampMs`, `accuracy`,
/// `altitude`, `velocity`, `heading`; `activity`, `source`, `deviceTag`, `batteryCharging`,
/// `platformType`, `verticalAccuracy` … are ignored) or this server's own fix (`location`,
/// `timestamp`, `accuracy`, `altitude`, `speed`, `heading`, `battery`, `id`).
///
/// Units: E7 values are degrees × 10⁷ (Google wrote some southern/western values as unsigned
/// 32-bit integers: 2³¹…2³²−1 is read as value − 2³²); `timestampMs` is epoch milliseconds as a
/// string (or a number); `velocity` is m/s, `accuracy` and `altitude` meters, `heading` degrees.
struct GoogleRecordFields: Sendable {
    enum Slot: Int, Sendable {
        case latitudeE7, longitudeE7, timestamp, timestampMs, accuracy, altitude, velocity, heading,
             location, speed, battery, id
    }

    var values: (JSONValue?, JSONValue?, JSONValue?, JSONValue?, JSONValue?, JSONValue?,
                 JSONValue?, JSONValue?, JSONValue?, JSONValue?, JSONValue?, JSONValue?)
        = (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
    var coordinates: [JSONValue] = []

    init() {}

    /// From an already parsed object (an element of a root array).
    init(_ object: JSONObject) {
        for (key, value) in object {
            guard let slot = Self.slot(named: Array(key.utf8)) else { continue }
            if slot == .location, case .array(let elements) = value { coordinates = elements }
            self[slot] = value
        }
    }

    subscript(slot: Slot) -> JSONValue? {
        get {
            switch slot {
            case .latitudeE7: values.0
            case .longitudeE7: values.1
            case .timestamp: values.2
            case .timestampMs: values.3
            case .accuracy: values.4
            case .altitude: values.5
            case .velocity: values.6
            case .heading: values.7
            case .location: values.8
            case .speed: values.9
            case .battery: values.10
            case .id: values.11
            }
        }
        set {
            switch slot {
            case .latitudeE7: values.0 = newValue
            case .longitudeE7: values.1 = newValue
            case .timestamp: values.2 = newValue
            case .timestampMs: values.3 = newValue
            case .accuracy: values.4 = newValue
            case .altitude: values.5 = newValue
            case .velocity: values.6 = newValue
            case .heading: values.7 = newValue
            case .location: values.8 = newValue
            case .speed: values.9 = newValue
            case .battery: values.10 = newValue
            case .id: values.11 = newValue
            }
        }
    }

    mutating func startCoordinates() {
        coordinates.removeAll(keepingCapacity: true)
        self[.location] = .array([])
    }

    mutating func appendCoordinate(_ number: JSONNumber) {
        if coordinates.count < 4 { coordinates.append(.number(number)) }
    }

    /// A non-number inside `location`: kept as a placeholder so the point check reports it.
    mutating func invalidateCoordinates() {
        if coordinates.count < 4 { coordinates.append(.array([])) }
    }

    /// Google when an E7 member is present, else this server's format when `location` is.
    var format: ImportFormat? {
        if self[.latitudeE7] != nil || self[.longitudeE7] != nil { return .googleRecords }
        if self[.location] != nil { return .native }
        return nil
    }

    // MARK: Member names

    static func slot(for token: JSONStreamToken, in tokenizer: JSONStreamTokenizer) -> Slot? {
        guard !token.hasEscapes, token.end - token.start <= 11 else { return nil }
        return tokenizer.withBytes(from: token.start, to: token.end) { bytes in bytes.flatMap(slot(named:)) }
    }

    static func slot(named name: some Collection<UInt8>) -> Slot? {
        func equals(_ text: StaticString) -> Bool {
            text.utf8CodeUnitCount == name.count && text.withUTF8Buffer { name.elementsEqual($0) }
        }
        switch name.count {
        case 2: return equals("id") ? .id : nil
        case 5: return equals("speed") ? .speed : nil
        case 7: return equals("heading") ? .heading : equals("battery") ? .battery : nil
        case 8:
            if equals("accuracy") { return .accuracy }
            if equals("altitude") { return .altitude }
            if equals("velocity") { return .velocity }
            return equals("location") ? .location : nil
        case 9: return equals("timestamp") ? .timestamp : nil
        case 10: return equals("latitudeE7") ? .latitudeE7 : nil
        case 11: return equals("longitudeE7") ? .longitudeE7 : equals("timestampMs") ? .timestampMs : nil
        default: return nil
        }
    }

    // MARK: Validation

    /// The fix, checked exactly like native ingest (MongoDB's bounds wording, the time window,
    /// each measurement's range); the first failure is thrown.
    func fix(now: Int64, rules: FixRules) throws(FixError) -> Fix {
        guard format == .googleRecords else { return try NativeFormat.fix(nativeObject, now: now, rules: rules) }
        let latitude = try Self.degrees(fromE7: self[.latitudeE7], field: "latitudeE7")
        let longitude = try Self.degrees(fromE7: self[.longitudeE7], field: "longitudeE7")
        try FixCheck.point(longitude: longitude, latitude: latitude)
        let time = try FixCheck.window(try Self.milliseconds(self[.timestamp], self[.timestampMs]), now: now, rules: rules)
        return Fix(longitude: longitude, latitude: latitude, timestamp: time,
                   accuracy: try Measure.accuracy(rules: rules, app: false).value(self[.accuracy]),
                   altitude: try Measure.altitude(rules: rules).value(self[.altitude]),
                   speed: try Measure.speed("velocity", rules: rules, app: false).value(self[.velocity]),
                   heading: try Measure.heading(app: false).value(self[.heading]))
    }

    /// The members as a native fix object, for `NativeFormat.fix`.
    var nativeObject: JSONObject {
        var object = JSONObject()
        if self[.location] != nil { object["location"] = .array(coordinates) }
        let members: [(String, Slot)] = [("timestamp", .timestamp), ("accuracy", .accuracy), ("altitude", .altitude),
                                         ("speed", .speed), ("heading", .heading), ("battery", .battery), ("id", .id)]
        for (name, slot) in members { if let value = self[slot] { object[name] = value } }
        return object
    }

    /// 2³²: Google's unsigned reading of a negative 32-bit E7 value is off by this much.
    static let wrap: Int64 = 1 << 32

    static func degrees(fromE7 value: JSONValue?, field: String) throws(FixError) -> Double {
        guard case .number(let n)? = value else {
            throw FixError.invalidLocation("\(field) must be a number (degrees × 10^7), not \(value?.typeWithArticle ?? "missing")")
        }
        if let integer = n.int64, integer >= 1 << 31, integer < wrap { return Double(integer - wrap) / 1e7 }
        return n.double / 1e7
    }

    static let timestampError = FixError.invalidTimestamp(
        "timestamp must be an RFC 3339 date-time (2019-04-01T08:15:00.123Z) and timestampMs a string of epoch milliseconds")

    /// `timestamp` (RFC 3339) or else `timestampMs` (epoch milliseconds, a digit string or a number).
    static func milliseconds(_ timestamp: JSONValue?, _ timestampMs: JSONValue?) throws(FixError) -> Int64 {
        if let timestamp, !timestamp.isNull {
            guard case .string(let text) = timestamp, let ms = Timestamp.parseRFC3339(text) else { throw timestampError }
            return ms
        }
        switch timestampMs {
        case nil, .null?: throw ImportCollector.missingTimestamp
        case .string(let text)?:
            guard let ms = ImportText.integer(text) else { throw timestampError }
            return ms
        case .number(let n)?:
            guard let ms = n.int64 else { throw timestampError }
            return ms
        default: throw timestampError
        }
    }
}

/// Small text helpers shared by the import readers.
enum ImportText {
    /// A decimal integer (optional sign, 1…18 digits) without overflow; nil for anything else.
    static func integer(_ text: some StringProtocol) -> Int64? {
        var digits = Substring(text)
        var negative = false
        if let first = digits.first, first == "-" || first == "+" {
            negative = first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.count <= 18 else { return nil }
        var value: Int64 = 0
        for c in digits.utf8 {
            guard c >= 48 && c <= 57 else { return nil }
            value = value * 10 + Int64(c - 48)
        }
        return negative ? -value : value
    }
}
