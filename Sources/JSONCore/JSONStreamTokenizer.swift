/// An incremental JSON tokenizer for documents too large to hold: bytes go in as chunks
/// (`append`), tokens come out one at a time (`next`), and memory stays bounded by the chunk
/// size plus the longest token (`Limits.maxTokenBytes`) plus whatever the caller asks to keep
/// (`keep(from:)`), whatever the document's size.
///
/// The tokenizer checks the whole grammar (commas, colons, nesting, number syntax, string
/// escapes, control characters, trailing data) but does not build values: a token is its kind
/// and the absolute byte offsets of its text in the stream. Invariants:
/// - offsets count from the first byte ever appended; `0 ≤ windowStart ≤ position ≤ windowEnd`;
/// - the bytes of the most recent token stay readable until the next `append`;
/// - bytes from a `keep(from:)` mark on stay readable until `keep(from: nil)`;
/// - string contents are not UTF-8 validated here (`string(_:)` validates when decoding).
///
/// Usage: `append` a chunk, call `next()` until it returns `.needInput`, append the next chunk;
/// after the last chunk call `finish()` and drain `next()` until `.end`. A document cut short
/// throws a `.truncated` error; any other defect a `.syntax` or `.limitExceeded` error, after
/// which the tokenizer must not be used further.
public struct JSONStreamTokenizer: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Most containers open at once (default 64).
        public var maxDepth: Int
        /// Longest string (between its quotes, escapes undecoded) or number text (default 1 MiB).
        public var maxTokenBytes: Int

        public init(maxDepth: Int = 64, maxTokenBytes: Int = 1 << 20) {
            self.maxDepth = maxDepth
            self.maxTokenBytes = maxTokenBytes
        }
    }

    /// One step of the tokenizer.
    public enum Step: Sendable, Equatable {
        case token(JSONStreamToken)
        /// Every byte appended so far is consumed (or the next token is incomplete): append more.
        case needInput
        /// The document is complete and `finish()` was called.
        case end
    }

    /// What the grammar allows next.
    enum Expectation: UInt8, Sendable {
        case rootValue, value, valueOrEndArray, keyOrEndObject, key, colon, commaOrEnd, done
    }

    public let limits: Limits
    @usableFromInline var buffer: [UInt8] = []
    /// Absolute offset of `buffer[0]`.
    @usableFromInline var base = 0
    /// Index in `buffer` of the next byte to read.
    var index = 0
    /// Open containers, innermost last: true for an object.
    var stack: [Bool] = []
    var expectation = Expectation.rootValue
    var finished = false
    var keepMark: Int?

    public init(limits: Limits = Limits()) {
        self.limits = limits
        stack.reserveCapacity(min(limits.maxDepth, 64))
    }

    /// Number of containers open now.
    public var depth: Int { stack.count }
    /// Absolute offset of the next byte to be read.
    public var position: Int { base + index }
    /// Absolute offset of the oldest byte still readable.
    public var windowStart: Int { base }
    /// Absolute offset just past the last byte appended.
    public var windowEnd: Int { base + buffer.count }
    /// Whether the root value is complete (only whitespace may follow).
    public var isDocumentComplete: Bool { expectation == .done }

    /// Adds the next chunk of the document. Drops bytes that are consumed and not kept first,
    /// so earlier tokens' bytes may no longer be readable afterwards.
    public mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let keepFrom = min(index, (keepMark ?? position) - base)
        if keepFrom > 0 {
            buffer.removeSubrange(0..<keepFrom)
            base += keepFrom
            index -= keepFrom
        }
        buffer.append(contentsOf: chunk)
    }

    /// Adds a chunk held in an array (see `append(_:)`).
    public mutating func append(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { append($0) }
    }

    /// Declares that no more bytes will come.
    public mutating func finish() { finished = true }

    /// Keeps every byte from absolute offset `offset` on readable (e.g. the start of a value the
    /// caller will parse whole), or releases the mark with nil. `offset` must be ≥ `windowStart`.
    public mutating func keep(from offset: Int?) {
        keepMark = offset.map { max($0, base) }
    }

    /// The next token, `.needInput`, or `.end`.
    public mutating func next() throws(JSONStreamError) -> Step {
        while true {
            guard index < buffer.count else {
                if !finished { return .needInput }
                if expectation == .done { return .end }
                throw truncated()
            }
            let byte = buffer[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                index = buffer.withUnsafeBufferPointer { bytes in
                    var i = index + 1
                    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
                    return i
                }
            case UInt8(ascii: ","):
                guard expectation == .commaOrEnd, let top = stack.last else { throw unexpected(byte) }
                expectation = top ? .key : .value
                index += 1
            case UInt8(ascii: ":"):
                guard expectation == .colon else { throw unexpected(byte) }
                expectation = .value
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard expectsValue else { throw unexpected(byte) }
                guard stack.count < limits.maxDepth else {
                    throw JSONStreamError(kind: .limitExceeded, offset: position, reason: "nesting deeper than \(limits.maxDepth)")
                }
                let isObject = byte == UInt8(ascii: "{")
                let token = JSONStreamToken(kind: isObject ? .beginObject : .beginArray, start: position, end: position + 1, depth: stack.count)
                stack.append(isObject)
                expectation = isObject ? .keyOrEndObject : .valueOrEndArray
                index += 1
                return .token(token)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = byte == UInt8(ascii: "}")
                let allowed = isObject
                    ? expectation == .keyOrEndObject || (expectation == .commaOrEnd && stack.last == true)
                    : expectation == .valueOrEndArray || (expectation == .commaOrEnd && stack.last == false)
                guard allowed else { throw unexpected(byte) }
                stack.removeLast()
                let token = JSONStreamToken(kind: isObject ? .endObject : .endArray, start: position, end: position + 1, depth: stack.count)
                index += 1
                expectation = stack.isEmpty ? .done : .commaOrEnd
                return .token(token)
            case UInt8(ascii: "\""):
                let isKey = expectation == .keyOrEndObject || expectation == .key
                guard isKey || expectsValue else { throw unexpected(byte) }
                guard let token = try scanString(isKey: isKey) else { return .needInput }
                expectation = isKey ? .colon : (stack.isEmpty ? .done : .commaOrEnd)
                return .token(token)
            case 0x2D, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39:  // '-', '0'…'9'
                guard expectsValue else { throw unexpected(byte) }
                guard let token = try scanNumber() else { return .needInput }
                expectation = stack.isEmpty ? .done : .commaOrEnd
                return .token(token)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                guard expectsValue else { throw unexpected(byte) }
                guard let token = try scanLiteral(byte) else { return .needInput }
                expectation = stack.isEmpty ? .done : .commaOrEnd
                return .token(token)
            default:
                throw unexpected(byte)
            }
        }
    }

    /// Consumes the rest of the container whose opening token had depth `depth` (its tokens are
    /// checked like any others but not returned) and returns its closing token; nil when the
    /// input ran out first (append more and call again).
    public mutating func skipContainer(depth: Int) throws(JSONStreamError) -> JSONStreamToken? {
        while true {
            switch try next() {
            case .needInput, .end: return nil
            case .token(let token):
                if (token.kind == .endObject || token.kind == .endArray) && token.depth == depth { return token }
            }
        }
    }

    var expectsValue: Bool {
        switch expectation {
        case .rootValue, .value, .valueOrEndArray: true
        default: false
        }
    }

    // MARK: Scanning (each returns nil when the token may continue past the bytes appended)

    mutating func scanString(isKey: Bool) throws(JSONStreamError) -> JSONStreamToken? {
        let open = index
        // The closing quote is at `limit` at the latest; the scan never looks further, so what
        // lies beyond a string that is too long (a control character, the end of the input)
        // cannot change the error, whatever the chunking.
        let limit = open + 1 + limits.maxTokenBytes
        var i = index + 1
        var escaped = false
        let count = Swift.min(buffer.count, limit + 1)
        let found: Int? = buffer.withUnsafeBufferPointer { bytes -> Int? in
            while i < count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") { return i }
                if c == UInt8(ascii: "\\") {
                    escaped = true
                    i += 2
                    continue
                }
                if c < 0x20 { return -i - 1 }
                i += 1
            }
            return nil
        }
        guard let close = found else {
            // Past `limit` (an escape pair may end one byte beyond it): longer than the limit.
            if i > limit { throw tooLong(at: open) }
            if finished { throw truncated() }
            return nil
        }
        if close < 0 {
            throw JSONStreamError(kind: .syntax, offset: base - close - 1, reason: "control character in a string (escape it)")
        }
        if escaped { try checkEscapes(from: open + 1, to: close) }
        index = close + 1
        return JSONStreamToken(kind: isKey ? .key : .string, start: base + open + 1, end: base + close,
                               depth: stack.count, hasEscapes: escaped)
    }

    func checkEscapes(from start: Int, to end: Int) throws(JSONStreamError) {
        var i = start
        while i < end {
            guard buffer[i] == UInt8(ascii: "\\") else { i += 1; continue }
            let e = buffer[i + 1]
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                i += 2
            case UInt8(ascii: "u"):
                guard i + 6 <= end, buffer[(i + 2)..<(i + 6)].allSatisfy(Self.isHexDigit) else {
                    throw JSONStreamError(kind: .syntax, offset: base + i, reason: "\\u must be followed by four hex digits")
                }
                i += 6
            default:
                throw JSONStreamError(kind: .syntax, offset: base + i, reason: "invalid escape \\\(Self.describe(e))")
            }
        }
    }

    static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c | 0x20 >= 97 && c | 0x20 <= 102)
    }

    mutating func scanNumber() throws(JSONStreamError) -> JSONStreamToken? {
        let start = index
        let (end, valid) = buffer.withUnsafeBufferPointer { JSONNumberSyntax.scan($0, from: start) }
        if end - start > limits.maxTokenBytes { throw tooLong(at: start) }
        if end == buffer.count && !finished { return nil }
        guard valid else {
            if end == buffer.count { throw truncated() }
            throw JSONStreamError(kind: .syntax, offset: base + start,
                                  reason: "invalid number \(Self.quote(buffer[start..<min(end, start + 32)]))")
        }
        index = end
        return JSONStreamToken(kind: .number, start: base + start, end: base + end, depth: stack.count)
    }

    mutating func scanLiteral(_ first: UInt8) throws(JSONStreamError) -> JSONStreamToken? {
        let (word, kind, value): ([UInt8], JSONStreamToken.Kind, Bool) = switch first {
        case UInt8(ascii: "t"): (Array("true".utf8), .bool, true)
        case UInt8(ascii: "f"): (Array("false".utf8), .bool, false)
        default: (Array("null".utf8), .null, false)
        }
        let available = min(word.count, buffer.count - index)
        guard buffer[index..<(index + available)].elementsEqual(word[0..<available]) else { throw unexpected(first) }
        if available < word.count {
            if finished { throw truncated() }
            return nil
        }
        let token = JSONStreamToken(kind: kind, start: position, end: position + word.count, depth: stack.count, boolValue: value)
        index += word.count
        return token
    }

    // MARK: Errors

    func truncated() -> JSONStreamError {
        let inside = stack.last.map { $0 ? "inside an object" : "inside an array" } ?? "before the document is complete"
        return JSONStreamError(kind: .truncated, offset: windowEnd, reason: "the input ends \(inside)")
    }

    func tooLong(at start: Int) -> JSONStreamError {
        JSONStreamError(kind: .limitExceeded, offset: base + start, reason: "a string or number longer than \(limits.maxTokenBytes) bytes")
    }

    func unexpected(_ byte: UInt8) -> JSONStreamError {
        let wanted = switch expectation {
        case .rootValue, .value: "a value"
        case .valueOrEndArray: "a value or ']'"
        case .keyOrEndObject: "a member name (a string) or '}'"
        case .key: "a member name (a string)"
        case .colon: "':' after a member name"
        case .commaOrEnd: stack.last == true ? "',' or '}'" : "',' or ']'"
        case .done: "the end of the input (the JSON document is complete)"
        }
        return JSONStreamError(kind: .syntax, offset: position, reason: "expected \(wanted), found \(Self.describe(byte))")
    }

    static func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    static func quote(_ bytes: ArraySlice<UInt8>) -> String {
        "\"" + String(decoding: bytes, as: UTF8.self) + "\""
    }
}

/// A JSON error found while streaming: its kind, the absolute byte offset, and the reason.
public struct JSONStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not JSON at that point.
        case syntax
        /// The input ended before the document was complete.
        case truncated
        /// A `JSONStreamTokenizer.Limits` value was exceeded.
        case limitExceeded
    }

    public let kind: Kind
    /// Zero-based byte offset in the whole stream.
    public let offset: Int
    public let reason: String

    public init(kind: Kind, offset: Int, reason: String) {
        self.kind = kind
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .syntax: "invalid JSON at byte \(offset): \(reason)"
        case .truncated: "the file is cut short at byte \(offset): \(reason)"
        case .limitExceeded: "\(reason) at byte \(offset)"
        }
    }
}

/// RFC 8259 number syntax: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
enum JSONNumberSyntax {
    /// The end of the run of number characters (`0-9 + - . e E`) starting at `start`, and
    /// whether that run is exactly one valid number.
    static func scan(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, valid: Bool) {
        var i = start
        let end = text.count
        func digits() -> Int {
            let from = i
            while i < end, text[i] >= 48, text[i] <= 57 { i += 1 }
            return i - from
        }
        func runEnd() -> Int {
            var j = i
            while j < end {
                let c = text[j]
                guard (c >= 48 && c <= 57) || c == 45 || c == 43 || c == 46 || c | 0x20 == 101 else { break }
                j += 1
            }
            return j
        }
        if i < end, text[i] == 45 { i += 1 }
        guard i < end else { return (i, false) }
        if text[i] == 48 { i += 1 } else if digits() == 0 { return (runEnd(), false) }
        if i < end, text[i] == 46 {
            i += 1
            guard digits() > 0 else { return (runEnd(), false) }
        }
        if i < end, text[i] | 0x20 == 101 {
            i += 1
            if i < end, text[i] == 43 || text[i] == 45 { i += 1 }
            guard digits() > 0 else { return (runEnd(), false) }
        }
        let stop = runEnd()
        return (stop, stop == i)
    }
}
