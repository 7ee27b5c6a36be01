import ErrorCodes
import Glibc
import JSONCore
import Timestamps

// Error codes and the checks every format shares. Messages for coordinates follow MongoDB's
// 2dsphere wording; numbers in messages are printed with `GeneralNumberFormat` (like `%g`).

extension FixError {
    /// The whole body is unusable (wrong shape); nothing in it was looked at further.
    static func invalidBody(_ message: String) -> FixError { FixError(code: .invalidBody, message: message) }
    /// A batch element that is not an object / not a GeoJSON Feature.
    static func invalidFix(_ message: String) -> FixError { FixError(code: .invalidFix, message: message) }
    static func invalidLocation(_ message: String) -> FixError { FixError(code: .invalidLocation, message: message) }
    static func invalidTimestamp(_ message: String) -> FixError { FixError(code: .invalidTimestamp, message: message) }

    static let locationNotArray = invalidLocation("location must be an array [longitude, latitude]")
    static let pointNotNumeric = invalidLocation("Point must only contain numeric elements")
    static let pointNotFinite = invalidLocation("Point coordinates must be finite numbers")

    static func pointOutOfBounds(longitude: Double, latitude: Double) -> FixError {
        invalidLocation("longitude/latitude is out of bounds, lng: \(GeneralNumberFormat.format(longitude)) lat: \(GeneralNumberFormat.format(latitude))")
    }

    static func timestampTooOld(_ rules: FixRules) -> FixError {
        FixError(code: .timestampTooOld,
                 message: "timestamp is before \(Timestamp.rfc3339(millisecondsSince1970: rules.minTimestamp))")
    }

    static func timestampInFuture(_ rules: FixRules) -> FixError {
        let hours = Double(rules.maxFutureMilliseconds) / 3_600_000
        return FixError(code: .timestampInFuture,
                        message: "timestamp is more than \(GeneralNumberFormat.format(hours)) h in the future")
    }

    static func batchTooLarge(count: Int, rules: FixRules) -> FixError {
        FixError(code: .batchTooLarge, message: "a batch may hold at most \(rules.maxBatch) fixes; this one has \(count)")
    }

    static func invalidClientID(field: String, rules: FixRules) -> FixError {
        FixError(code: .invalidID, message: "\(field) must be a string of 1 to \(rules.maxClientIDBytes) bytes")
    }
}

/// Shared checks. Each returns the normalised value or throws a `FixError`.
enum FixCheck {
    /// MongoDB's point rules: finite, |lng| ≤ 180, |lat| ≤ 90 (inclusive).
    static func point(longitude: Double, latitude: Double) throws(FixError) {
        guard longitude.isFinite, latitude.isFinite else { throw .pointNotFinite }
        guard longitude.magnitude <= 180, latitude.magnitude <= 90 else {
            throw .pointOutOfBounds(longitude: longitude, latitude: latitude)
        }
    }

    /// A `[lng, lat, ...]` array as MongoDB's 2dsphere index reads it: the first two elements must
    /// be finite numbers in range; further elements are allowed. A numeric third element is
    /// returned as the altitude candidate (the caller validates it only if it uses it).
    static func coordinates(_ value: JSONValue?, notArray: FixError) throws(FixError)
        -> (longitude: Double, latitude: Double, third: Double?) {
        guard case .array(let elements)? = value else { throw notArray }
        guard elements.count >= 2, case .number(let x) = elements[0], case .number(let y) = elements[1] else {
            throw .pointNotNumeric
        }
        try point(longitude: x.double, latitude: y.double)
        var third: Double?
        if elements.count > 2, case .number(let z) = elements[2] { third = z.double }
        return (x.double, y.double, third)
    }

    /// Applies the time window: not before `rules.minTimestamp`, not more than
    /// `rules.maxFutureMilliseconds` after `now`.
    static func window(_ milliseconds: Int64, now: Int64, rules: FixRules) throws(FixError) -> Int64 {
        guard milliseconds >= rules.minTimestamp else { throw .timestampTooOld(rules) }
        let (limit, overflow) = now.addingReportingOverflow(rules.maxFutureMilliseconds)
        guard overflow || milliseconds <= limit else { throw .timestampInFuture(rules) }
        return milliseconds
    }

    /// Values above this are epoch milliseconds, others epoch seconds. 1e11 s is the year 5138
    /// and 1e11 ms is March 1973, so the two readings never overlap in the accepted window.
    static let millisecondsThreshold: Int64 = 100_000_000_000

    /// Epoch seconds or milliseconds (see `millisecondsThreshold`) from an exact integer.
    /// Saturates instead of overflowing, so absurd values fail the window check.
    static func epochMilliseconds(integer: Int64) -> Int64 {
        if integer > millisecondsThreshold { return integer }
        let (ms, overflow) = integer.multipliedReportingOverflow(by: 1000)
        return overflow ? Int64.min : ms
    }

    /// Epoch seconds or milliseconds from any number, rounded to the nearest millisecond;
    /// nil for NaN. Saturates at the `Int64` range.
    static func epochMilliseconds(double value: Double) -> Int64? {
        guard !value.isNaN else { return nil }
        let ms = round(value > Double(millisecondsThreshold) ? value : value * 1000)
        if ms >= 9.2e18 { return Int64.max }
        if ms <= -9.2e18 { return Int64.min }
        return Int64(ms)
    }

    static func epochMilliseconds(_ number: JSONNumber) -> Int64? {
        if let integer = number.int64 { return epochMilliseconds(integer: integer) }
        return epochMilliseconds(double: number.double)
    }

    /// A client id: a string of 1…`rules.maxClientIDBytes` UTF-8 bytes; JSON null counts as absent.
    static func clientID(_ value: JSONValue?, field: String, rules: FixRules) throws(FixError) -> String? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let id)? where !id.isEmpty && id.utf8.count <= rules.maxClientIDBytes:
            return id
        default:
            throw .invalidClientID(field: field, rules: rules)
        }
    }

    /// Strict decimal number syntax for text parameters: `[+-]digits[.digits][(e|E)[+-]digits]`
    /// (also `.5` and `5.`). No spaces, hex, `nan` or `inf`; out-of-range exponents give ±inf,
    /// which the range checks then reject.
    static func decimal(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        var i = 0
        if i < bytes.count && (bytes[i] == 43 || bytes[i] == 45) { i += 1 }
        var mantissaDigits = 0
        while i < bytes.count && bytes[i] >= 48 && bytes[i] <= 57 { i += 1; mantissaDigits += 1 }
        if i < bytes.count && bytes[i] == 46 {
            i += 1
            while i < bytes.count && bytes[i] >= 48 && bytes[i] <= 57 { i += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { return nil }
        if i < bytes.count && (bytes[i] == 101 || bytes[i] == 69) {
            i += 1
            if i < bytes.count && (bytes[i] == 43 || bytes[i] == 45) { i += 1 }
            var exponentDigits = 0
            while i < bytes.count && bytes[i] >= 48 && bytes[i] <= 57 { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return nil }
        }
        guard i == bytes.count else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}

/// One optional measurement (accuracy, speed, …): its name in the payload, the unit the client
/// uses, the conversion to our canonical unit (`canonical = raw × multiplier ÷ divisor`, e.g.
/// km/h → m/s is × 1000 ÷ 3600, exact for whole numbers), the canonical range, and whether a
/// negative value is the client's "unknown" marker (apps send `-1`) rather than an error.
struct Measure {
    /// What is measured; it names the error code (`invalid_accuracy`, …).
    enum Quantity {
        case accuracy, altitude, speed, heading, battery

        /// The code of an invalid value.
        var code: ErrorCode {
            switch self {
            case .accuracy: .invalidAccuracy
            case .altitude: .invalidAltitude
            case .speed: .invalidSpeed
            case .heading: .invalidHeading
            case .battery: .invalidBattery
            }
        }
    }

    let field: String
    /// Held as a one-byte quantity, read as a code only on the error path: the measures are
    /// built for every fix.
    let quantity: Quantity
    let unit: String
    let multiplier: Double
    let divisor: Double
    let range: ClosedRange<Double>
    let negativeMeansUnknown: Bool

    init(_ field: String, _ quantity: Quantity, unit: String, multiplier: Double = 1, divisor: Double = 1,
         range: ClosedRange<Double>, negativeMeansUnknown: Bool) {
        self.field = field
        self.quantity = quantity
        self.unit = unit
        self.multiplier = multiplier
        self.divisor = divisor
        self.range = range
        self.negativeMeansUnknown = negativeMeansUnknown
    }

    /// The error for a wrong type or an out-of-range value; limits are shown in the client's unit.
    var error: FixError {
        let low = GeneralNumberFormat.format(range.lowerBound * divisor / multiplier)
        let high = GeneralNumberFormat.format(range.upperBound * divisor / multiplier)
        return FixError(code: quantity.code, message: "\(field) must be a number from \(low) to \(high) (\(unit))")
    }

    /// The canonical value of a number the client sent.
    func value(_ raw: Double) throws(FixError) -> Double? {
        if negativeMeansUnknown && raw < 0 { return nil }
        var canonical = raw * multiplier / divisor
        // A unit conversion leaves binary noise (0.55 × 100 = 55.00000000000001): keep 9 decimals.
        if multiplier != 1 || divisor != 1 { canonical = round(canonical * 1e9) / 1e9 }
        guard range.contains(canonical) else { throw error }
        return canonical
    }

    /// From JSON: absent or null → nil; a number → checked; anything else → error.
    func value(_ json: JSONValue?) throws(FixError) -> Double? {
        switch json {
        case nil, .null?: return nil
        case .number(let n)?: return try value(n.double)
        default: throw error
        }
    }

    /// From a text parameter: absent or empty → nil; a decimal number → checked; else error.
    func value(text: String?) throws(FixError) -> Double? {
        guard let text, !text.isEmpty else { return nil }
        guard let raw = FixCheck.decimal(text) else { throw error }
        return try value(raw)
    }

    // MARK: The measurements, in canonical units

    static func accuracy(_ field: String = "accuracy", rules: FixRules, app: Bool) -> Measure {
        Measure(field, .accuracy, unit: "meters", range: 0...rules.maxAccuracy, negativeMeansUnknown: app)
    }

    static func altitude(_ field: String = "altitude", rules: FixRules) -> Measure {
        Measure(field, .altitude, unit: "meters", range: rules.altitudeRange, negativeMeansUnknown: false)
    }

    /// Speed; `metersPerHour` converts a per-hour unit (km/h: 1000, knots: 1852) to m/s.
    static func speed(_ field: String = "speed", unit: String = "m/s", metersPerHour: Double? = nil,
                      rules: FixRules, app: Bool) -> Measure {
        Measure(field, .speed, unit: unit, multiplier: metersPerHour ?? 1,
                divisor: metersPerHour == nil ? 1 : 3600, range: 0...rules.maxSpeed, negativeMeansUnknown: app)
    }

    static func heading(_ field: String = "heading", app: Bool) -> Measure {
        Measure(field, .heading, unit: "degrees clockwise from north", range: 0...360, negativeMeansUnknown: app)
    }

    static func battery(_ field: String = "battery", fraction: Bool = false, app: Bool) -> Measure {
        Measure(field, .battery, unit: fraction ? "fraction of a full charge" : "percent",
                multiplier: fraction ? 100 : 1, range: 0...100, negativeMeansUnknown: app)
    }
}

extension JSONObject {
    /// The member, with JSON null treated as absent.
    func present(_ key: String) -> JSONValue? {
        guard let value = self[key], !value.isNull else { return nil }
        return value
    }
}

extension JSONValue {
    /// "an object", "an array", "a string", "a number", "a boolean" or "null", for messages.
    var typeWithArticle: String {
        switch self {
        case .null: "null"
        case .array, .object: "an \(typeName)"
        default: "a \(typeName)"
        }
    }
}
