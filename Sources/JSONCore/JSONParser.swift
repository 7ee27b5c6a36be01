/// Strict RFC 8259 JSON parser.
///
/// - Exactly one value of any type at the top level, surrounded only by JSON whitespace
///   (space, tab, CR, LF). A byte order mark is rejected.
/// - No trailing commas, comments, leading zeros, `NaN`/`Infinity`, or single quotes.
/// - The whole input must be valid UTF-8 (overlong forms, UTF-8-encoded surrogates and
///   code points above U+10FFFF are rejected); control characters below U+0020 must be
///   escaped inside strings; `\u` escapes must form valid scalars (surrogate pairs are
///   combined, unpaired surrogates are rejected).
/// - Duplicate object keys are rejected.
/// - Numbers whose magnitude overflows `Double` (`1e999`) are rejected; see `JSONNumber`
///   for how integers are kept exact.
///
/// The parser is iterative (no recursion), so nesting depth is bounded only by
/// `Limits.maxDepth`, and it never traps on any input.
public enum JSONParser {
    public struct Limits: Sendable, Hashable {
        /// Maximum nesting depth of arrays/objects. A top-level container has depth 1.
        /// The parser itself is iterative, but destroying, comparing or serializing a
        /// value recurses once per level (roughly 130 bytes of stack per level in release
        /// builds), so keep this to at most a few thousand on threads with small stacks.
        public var maxDepth: Int
        /// Maximum length of any string or key, in UTF-8 bytes after unescaping. `nil`: no limit.
        public var maxStringLength: Int?
        /// Maximum input size in bytes. `nil`: no limit.
        public var maxInputSize: Int?

        public init(maxDepth: Int = 64, maxStringLength: Int? = nil, maxInputSize: Int? = nil) {
            self.maxDepth = maxDepth
            self.maxStringLength = maxStringLength
            self.maxInputSize = maxInputSize
        }

        /// `maxDepth` 64, no string or input size limit.
        public static let `default` = Limits()
    }

    /// Parses UTF-8 JSON text.
    public static func parse(
        _ bytes: [UInt8], limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            parseResult(buffer, limits: limits)
        }
        return try result.get()
    }

    /// Parses UTF-8 JSON text from any byte collection (contiguous storage is used
    /// directly; other collections are copied first).
    public static func parse(
        _ bytes: some Collection<UInt8>, limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(buffer, limits: limits)
        }
        let result = contiguous ?? Array(bytes).withUnsafeBufferPointer { buffer in
            parseResult(buffer, limits: limits)
        }
        return try result.get()
    }

    /// Parses JSON text held in a `String` (its UTF-8 form).
    public static func parse(
        _ text: String, limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            parseResult(buffer, limits: limits)
        }
        return try result.get()
    }

    /// Parses UTF-8 JSON text from a buffer. The buffer is only read during the call.
    public static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        try parseResult(buffer, limits: limits).get()
    }

    /// Parses UTF-8 JSON text from raw memory. The buffer is only read during the call.
    public static func parse(
        _ buffer: UnsafeRawBufferPointer, limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        let result = buffer.withMemoryRebound(to: UInt8.self) { bytes in
            parseResult(bytes, limits: limits)
        }
        return try result.get()
    }

    #if compiler(>=6.2)
    /// Parses UTF-8 JSON text from a `Span`.
    public static func parse(
        _ span: Span<UInt8>, limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        let result = span.withUnsafeBufferPointer { buffer in
            parseResult(buffer, limits: limits)
        }
        return try result.get()
    }
    #endif

    static func parseResult(
        _ buffer: UnsafeBufferPointer<UInt8>, limits: Limits
    ) -> Result<JSONValue, JSONParseError> {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return .failure(
                JSONParseError(kind: .syntax, offset: 0, line: 1, column: 1, reason: "empty input"))
        }
        var parser = JSONParserCore(base: base, count: buffer.count, limits: limits)
        do {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}
