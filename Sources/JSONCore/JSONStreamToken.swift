/// One token of a streamed JSON document: its kind, where its text lies in the stream and how
/// deep it sits. Read its value through the tokenizer that produced it (`string`, `number`,
/// `isKey`), while its bytes are still in the tokenizer's window.
public struct JSONStreamToken: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case beginObject, endObject, beginArray, endArray, key, string, number, bool, null
    }

    public let kind: Kind
    /// Absolute offset of the first byte of the token's text (for strings and keys: the first
    /// byte after the opening quote).
    public let start: Int
    /// Absolute offset just past the token's text (for strings and keys: the closing quote).
    public let end: Int
    /// Containers enclosing the token (a begin/end token: those enclosing its container).
    public let depth: Int
    /// Strings and keys: whether the text holds backslash escapes.
    public let hasEscapes: Bool
    /// `bool` tokens: the value.
    public let boolValue: Bool

    public init(kind: Kind, start: Int, end: Int, depth: Int, hasEscapes: Bool = false, boolValue: Bool = false) {
        self.kind = kind
        self.start = start
        self.end = end
        self.depth = depth
        self.hasEscapes = hasEscapes
        self.boolValue = boolValue
    }

    /// Whether the token starts a value (a scalar or an opening bracket).
    public var startsValue: Bool {
        switch kind {
        case .endObject, .endArray, .key: false
        default: true
        }
    }

    /// "an object", "an array", "a string", "a number", "a boolean", "null" (for messages).
    public var typeWithArticle: String {
        switch kind {
        case .beginObject, .endObject: "an object"
        case .beginArray, .endArray: "an array"
        case .key, .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

extension JSONStreamTokenizer {
    /// Calls `body` with the bytes from `start` to `end` (absolute offsets), or with nil when
    /// they are no longer (or not yet) in the window. Do not let the pointer escape.
    @inlinable
    public func withBytes<R>(from start: Int, to end: Int, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard start >= base, start <= end, end <= base + buffer.count else { return body(nil) }
        return buffer.withUnsafeBufferPointer { bytes in
            body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(start - base)..<(end - base)])))
        }
    }

    /// Whether a key or string token's text is exactly `text` (no escape decoding: a token with
    /// escapes never matches, which is right for the ASCII member names formats use).
    public func matches(_ token: JSONStreamToken, _ text: StaticString) -> Bool {
        guard !token.hasEscapes, token.end - token.start == text.utf8CodeUnitCount else { return false }
        return withBytes(from: token.start, to: token.end) { bytes in
            guard let bytes else { return false }
            return text.withUTF8Buffer { expected in
                for k in 0..<expected.count where bytes[k] != expected[k] { return false }
                return true
            }
        }
    }

    /// A key or string token's value with escapes decoded; nil for invalid UTF-8 or a bad
    /// surrogate escape, or when the bytes have left the window.
    public func string(_ token: JSONStreamToken) -> String? {
        guard token.kind == .string || token.kind == .key else { return nil }
        if !token.hasEscapes {
            return withBytes(from: token.start, to: token.end) { bytes in
                bytes.flatMap { String(validating: $0, as: UTF8.self) }
            }
        }
        // With escapes: the full parser decodes the quoted text.
        return withBytes(from: token.start - 1, to: token.end + 1) { bytes in
            guard let bytes, case .string(let s)? = try? JSONParser.parse(bytes) else { return nil }
            return s
        }
    }

    /// A number token's value (nil for another kind, or when its bytes left the window).
    /// Integers of up to 18 digits and short decimals are converted directly; anything else
    /// through `JSONParser`, so the value is always correctly rounded.
    public func number(_ token: JSONStreamToken) -> JSONNumber? {
        guard token.kind == .number else { return nil }
        return withBytes(from: token.start, to: token.end) { bytes in
            guard let bytes else { return nil }
            return JSONStreamTokenizer.fastNumber(bytes) ?? (try? JSONParser.parse(bytes))?.numberValue
        }
    }

    /// The value of number text with ≤ 18 digits, no exponent and ≤ 15 fraction digits;
    /// nil for anything else (the caller falls back to the full conversion).
    static func fastNumber(_ bytes: UnsafeRawBufferPointer) -> JSONNumber? {
        var i = 0
        let negative = bytes.count > 0 && bytes[0] == 45
        if negative { i = 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        var seenDot = false
        while i < bytes.count {
            let c = bytes[i]
            if c == 46 {
                seenDot = true
            } else if c >= 48 && c <= 57 {
                mantissa = mantissa &* 10 &+ Int64(c &- 48)
                digits += 1
                if seenDot { fraction += 1 }
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0, digits <= 18 else { return nil }
        if !seenDot { return JSONNumber(negative ? -mantissa : mantissa) }
        guard fraction <= 15, mantissa < 1 << 53 else { return nil }
        // An exact integer divided by an exact power of ten: one correctly rounded operation.
        let value = Double(mantissa) / JSONNumber.exactPowerOfTen(fraction)
        return JSONNumber(negative ? -value : value)
    }
}
