import Glibc
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

    /// One member's value, kept small and free of references on the hot path: numbers as
    /// numbers, times already converted to milliseconds, other text only where it is used.
    enum Field: Sendable, Equatable {
        case number(JSONNumber)
        /// A string that read as a time (RFC 3339 for `timestamp`, digits for `timestampMs`).
        case milliseconds(Int64)
        /// A string kept as text (`id`), or one whose time did not read (`invalidText`).
        case string(String)
        case invalidText
        case bool(Bool)
        case null
        case container(isArray: Bool)

        var json: JSONValue {
            switch self {
            case .number(let n): .number(n)
            case .milliseconds(let ms): .string(Timestamp.rfc3339(millisecondsSince1970: ms))
            case .string(let s): .string(s)
            case .invalidText: .string("")
            case .bool(let b): .bool(b)
            case .null: .null
            case .container(let isArray): isArray ? .array([]) : .object([:])
            }
        }
    }

    var latitudeE7: Field?, longitudeE7: Field?, timestamp: Field?, timestampMs: Field?
    var accuracy: Field?, altitude: Field?, velocity: Field?, heading: Field?
    var location: Field?, speed: Field?, battery: Field?, id: Field?
    var coordinates: [JSONValue] = []

    init() {}

    /// From an already parsed object (an element of a root array).
    init(_ object: JSONObject) {
        for (key, value) in object {
            guard let slot = Self.slot(named: Array(key.utf8)) else { continue }
            if slot == .location, case .array(let elements) = value { coordinates = elements }
            self[slot] = Self.field(value, slot: slot)
        }
    }

    /// A parsed value as the field of `slot` (times converted as when streaming).
    static func field(_ value: JSONValue, slot: Slot) -> Field {
        switch value {
        case .number(let n): return .number(n)
        case .string(let text):
            switch slot {
            case .timestamp: return Timestamp.parseRFC3339(text).map(Field.milliseconds) ?? .invalidText
            case .timestampMs: return ImportText.integer(text).map(Field.milliseconds) ?? .invalidText
            default: return .string(text)
            }
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .array: return .container(isArray: true)
        case .object: return .container(isArray: false)
        }
    }

    subscript(slot: Slot) -> Field? {
        get {
            switch slot {
            case .latitudeE7: latitudeE7
            case .longitudeE7: longitudeE7
            case .timestamp: timestamp
            case .timestampMs: timestampMs
            case .accuracy: accuracy
            case .altitude: altitude
            case .velocity: velocity
            case .heading: heading
            case .location: location
            case .speed: speed
            case .battery: battery
            case .id: id
            }
        }
        set {
            switch slot {
            case .latitudeE7: latitudeE7 = newValue
            case .longitudeE7: longitudeE7 = newValue
            case .timestamp: timestamp = newValue
            case .timestampMs: timestampMs = newValue
            case .accuracy: accuracy = newValue
            case .altitude: altitude = newValue
            case .velocity: velocity = newValue
            case .heading: heading = newValue
            case .location: location = newValue
            case .speed: speed = newValue
            case .battery: battery = newValue
            case .id: id = newValue
            }
        }
    }

    mutating func startCoordinates() {
        coordinates.removeAll(keepingCapacity: true)
        location = .container(isArray: true)
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
        if latitudeE7 != nil || longitudeE7 != nil { return .googleRecords }
        if location != nil { return .native }
        return nil
    }

    // MARK: Member names

    static func slot(for token: JSONStreamToken, in tokenizer: JSONStreamTokenizer) -> Slot? {
        guard !token.hasEscapes, token.end - token.start <= 11 else { return nil }
        return tokenizer.withBytes(from: token.start, to: token.end) { bytes in bytes.flatMap(slot(named:)) }
    }

    static func slot(named name: [UInt8]) -> Slot? {
        name.withUnsafeBytes { slot(named: $0) }
    }

    /// The slot of a member name (dispatch on length, then one byte comparison per candidate).
    static func slot(named name: UnsafeRawBufferPointer) -> Slot? {
        func equals(_ text: StaticString) -> Bool {
            text.utf8CodeUnitCount == name.count
                && memcmp(text.utf8Start, name.baseAddress ?? UnsafeRawPointer(text.utf8Start), name.count) == 0
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
        let latitude = try Self.degrees(fromE7: latitudeE7?.json, field: "latitudeE7")
        let longitude = try Self.degrees(fromE7: longitudeE7?.json, field: "longitudeE7")
        try FixCheck.point(longitude: longitude, latitude: latitude)
        let time = try FixCheck.window(try Self.milliseconds(timestamp, timestampMs), now: now, rules: rules)
        return Fix(longitude: longitude, latitude: latitude, timestamp: time,
                   accuracy: try Measure.accuracy(rules: rules, app: false).value(accuracy?.json),
                   altitude: try Measure.altitude(rules: rules).value(altitude?.json),
                   speed: try Measure.speed("velocity", rules: rules, app: false).value(velocity?.json),
                   heading: try Measure.heading(app: false).value(heading?.json))
    }

    /// The members as a native fix object, for `NativeFormat.fix`.
    var nativeObject: JSONObject {
        var object = JSONObject()
        if location != nil { object["location"] = .array(coordinates) }
        let members: [(String, Slot)] = [("timestamp", .timestamp), ("accuracy", .accuracy), ("altitude", .altitude),
                                         ("speed", .speed), ("heading", .heading), ("battery", .battery), ("id", .id)]
        for (name, slot) in members { if let value = self[slot] { object[name] = value.json } }
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
    static func milliseconds(_ timestamp: Field?, _ timestampMs: Field?) throws(FixError) -> Int64 {
        if let timestamp, timestamp != .null {
            guard case .milliseconds(let ms) = timestamp else { throw timestampError }
            return ms
        }
        switch timestampMs {
        case nil, .null?: throw ImportCollector.missingTimestamp
        case .milliseconds(let ms)?: return ms
        case .number(let n)?:
            guard let ms = n.int64 else { throw timestampError }
            return ms
        default: throw timestampError
        }
    }

    /// The same from parsed JSON (Semantic Location History's points and durations).
    static func milliseconds(_ timestamp: JSONValue?, _ timestampMs: JSONValue?) throws(FixError) -> Int64 {
        try milliseconds(timestamp.map { field($0, slot: .timestamp) }, timestampMs.map { field($0, slot: .timestampMs) })
    }
}

/// Small text helpers shared by the import readers.
enum ImportText {
    /// A decimal integer (optional sign, 1…18 digits) without overflow; nil for anything else.
    static func integer(_ text: some StringProtocol) -> Int64? {
        integer(utf8: text.utf8)
    }

    /// The same on UTF-8 bytes.
    static func integer(utf8 bytes: some Collection<UInt8>) -> Int64? {
        var negative = false
        var digits = 0
        var value: Int64 = 0
        for (k, c) in bytes.enumerated() {
            if k == 0 && (c == 45 || c == 43) { negative = c == 45; continue }
            guard c >= 48 && c <= 57, digits < 18 else { return nil }
            value = value * 10 + Int64(c - 48)
            digits += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }
}
