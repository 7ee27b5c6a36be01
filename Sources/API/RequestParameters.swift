import HTTPServer
import Timestamps
import Tracking

// The one place client-supplied query values and header fields are parsed. Every helper is
// total: it returns a value, nil for "absent", or throws a `TrackingError` that the error mapper
// turns into a 400 with the API's error shape. None of them can trap, whatever the input.

/// Numbers in query strings: decimal only (`-12`, `3.5`, `1e3`), no hex, no `inf`/`nan`, no
/// surrounding spaces. An empty value counts as absent.
enum QueryNumber {
    /// A whole number within `range`; `invalid_number` when not a whole number that fits `Int`,
    /// `invalid_range` when outside `range`.
    static func int(_ text: String?, name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard DecimalSyntax.isInteger(text), let value = Int(text) else {
            throw TrackingError.invalid("\(name) must be a whole number", code: .invalidNumber)
        }
        guard range.contains(value) else {
            throw TrackingError.invalid("\(name) must be from \(range.lowerBound) to \(range.upperBound)", code: .invalidRange)
        }
        return value
    }

    /// A finite number within `range` (if given); `invalid_number` otherwise (1e400, NaN, text),
    /// `invalid_range` when outside `range`.
    static func double(_ text: String?, name: String, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let text, !text.isEmpty else { return nil }
        guard DecimalSyntax.isNumber(text), let value = Double(text), value.isFinite else {
            throw TrackingError.invalid("\(name) must be a number", code: .invalidNumber)
        }
        if let range, !range.contains(value) {
            throw TrackingError.invalid("\(name) must be from \(range.lowerBound) to \(range.upperBound)", code: .invalidRange)
        }
        return value
    }
}

/// Times in query strings and JSON bodies: RFC 3339, or epoch milliseconds, within `range`
/// (years 0001 to 9999), so no later arithmetic on a client's time can overflow.
enum QueryTime {
    /// 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, in epoch milliseconds.
    static let range: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    static func parse(_ text: String?, name: String) throws -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        if let ms = Timestamp.parseRFC3339(text) { return try checked(ms, name: name) }
        if DecimalSyntax.isInteger(text), let number = Int64(text) { return try checked(number, name: name) }
        throw TrackingError.invalid("\(name) must be an RFC 3339 time or epoch milliseconds", code: .invalidTime)
    }

    /// `milliseconds` when inside `range`, else `invalid_time`.
    static func checked(_ milliseconds: Int64, name: String) throws -> Int64 {
        guard range.contains(milliseconds) else {
            throw TrackingError.invalid("\(name) must be a time between the years 0001 and 9999", code: .invalidTime)
        }
        return milliseconds
    }
}

/// A live-feed event id (`Last-Event-ID`, `?lastEventId=`): a non-negative integer, spaces
/// around it allowed; empty counts as absent.
extension EventID {
    static func parse(_ text: String?) throws -> EventID? {
        guard let text else { return nil }
        let trimmed = HeaderField.trimmed(Substring(text))
        if trimmed.isEmpty { return nil }
        guard DecimalSyntax.isInteger(trimmed), let id = Int64(trimmed), id >= 0 else {
            throw TrackingError.invalid("Last-Event-ID must be an event id (a whole number ≥ 0)", code: .invalidEventID)
        }
        return EventID(id)
    }
}

/// The ASCII grammar of numbers accepted in query strings (the JSON number grammar, plus a
/// leading `+` for integers as Swift's parsers allow it).
enum DecimalSyntax {
    /// `[+-]?[0-9]+`, at most 40 characters.
    static func isInteger(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        guard bytes.count <= 40 else { return false }
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        return !bytes.isEmpty && bytes.allSatisfy(isDigit)
    }

    /// `-?digits(.digits)?([eE][+-]?digits)?`, at most 400 characters.
    static func isNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= 400 else { return false }
        var i = 0
        func digits() -> Bool {
            let start = i
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            return i > start
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard digits() else { return false }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() else { return false }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() else { return false }
        }
        return i == bytes.count
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// A `Content-Type` value split into a lower-cased `type/subtype` and its parameters
/// (RFC 9110 §8.3.1). `nil` for anything that is not `token/token`, e.g. `""`, `";"`, `"json"`.
struct MediaType {
    let type: String
    let subtype: String
    /// Parameter names lower-cased, values with quotes removed, in order.
    let parameters: [(name: String, value: String)]

    init?(_ header: String) {
        let fields = HeaderField.split(header, on: ";")
        guard let essence = fields.first else { return nil }
        let parts = essence.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let type = parts.first, let subtype = parts.last,
              HeaderField.isToken(type), HeaderField.isToken(subtype) else { return nil }
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = fields.dropFirst().compactMap { field in
            guard let equals = field.firstIndex(of: "=") else { return nil }
            let name = HeaderField.trimmed(field[..<equals]).lowercased()
            var value = HeaderField.trimmed(field[field.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return name.isEmpty ? nil : (name, value)
        }
    }

    /// `application/json` or any `application/*+json`.
    var isJSON: Bool { type == "application" && (subtype == "json" || subtype.hasSuffix("+json")) }

    /// `application/x-www-form-urlencoded`.
    var isForm: Bool { type == "application" && subtype == "x-www-form-urlencoded" }
}

extension Request {
    /// The request's media type; nil when `Content-Type` is absent or malformed.
    var mediaType: MediaType? { header("content-type").flatMap(MediaType.init) }
}

/// The `Authorization` header: `<scheme> <credentials>` (RFC 9110 §11.4), scheme case-insensitive.
enum AuthorizationHeader {
    /// The token of `Bearer <token>`; nil for another scheme, no token, or a token with spaces.
    static func bearerToken(_ header: String) -> String? {
        guard let (scheme, credentials) = split(header), scheme == "bearer", !credentials.utf8.contains(UInt8(ascii: " ")) else { return nil }
        return credentials
    }

    /// `(user, password)` of `Basic <base64(user:password)>`; nil when malformed.
    static func basic(_ header: String, decode: (String) -> [UInt8]?) -> (user: String, password: String)? {
        guard let (scheme, credentials) = split(header), scheme == "basic", let bytes = decode(credentials) else { return nil }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return (String(decoding: bytes[..<colon], as: UTF8.self), String(decoding: bytes[(colon + 1)...], as: UTF8.self))
    }

    /// Lower-cased scheme and the trimmed, non-empty rest.
    private static func split(_ header: String) -> (scheme: String, credentials: String)? {
        let value = HeaderField.trimmed(Substring(header))
        guard let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let scheme = value[..<space].lowercased()
        let credentials = HeaderField.trimmed(value[value.index(after: space)...])
        return credentials.isEmpty ? nil : (scheme, credentials)
    }
}

/// Splitting and trimming of header field values.
enum HeaderField {
    /// The parts of `value` between `separator`s, each trimmed of spaces and tabs (empty parts kept).
    static func split(_ value: String, on separator: Character) -> [String] {
        value.split(separator: separator, omittingEmptySubsequences: false).map { trimmed($0) }
    }

    /// `text` without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> String {
        var s = text
        while let first = s.first, first == " " || first == "\t" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" { s.removeLast() }
        return String(s)
    }

    /// A non-empty RFC 9110 token (`!#$%&'*+-.^_`|~`, digits, letters).
    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
