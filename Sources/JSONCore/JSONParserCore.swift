// Why one file of ~770 lines: the parser's hot loop (values, strings, numbers, escapes) shares
// private byte constants and unchecked-pointer helpers that must stay `private` to one file so the
// optimizer inlines them; split, they become internal calls and parsing slows measurably
// (Benchmarks/ingest). Each function below is small; the file is long, not the functions.

// The parser implementation. It reads the input through an `UnsafePointer` without
// bounds checks for speed, so every read below is preceded by an explicit `< end` test.

private let asciiQuote = UInt8(ascii: "\"")
private let asciiBackslash = UInt8(ascii: "\\")
private let asciiComma = UInt8(ascii: ",")
private let asciiColon = UInt8(ascii: ":")
private let asciiOpenBrace = UInt8(ascii: "{")
private let asciiCloseBrace = UInt8(ascii: "}")
private let asciiOpenBracket = UInt8(ascii: "[")
private let asciiCloseBracket = UInt8(ascii: "]")
private let asciiMinus = UInt8(ascii: "-")
private let asciiPlus = UInt8(ascii: "+")
private let asciiDot = UInt8(ascii: ".")
private let asciiZero = UInt8(ascii: "0")

/// A growable stack that hands out its top elements as a new array by *moving* them
/// (no retain/release per element, unlike slicing and removing from an `Array`).
struct JSONMoveStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        storage = UnsafeMutablePointer<Element>.allocate(capacity: self.capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity {
            grow()
        }
        (storage + count).initialize(to: element)
        count &+= 1
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newStorage.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    /// Pointer to element `index` (must be < `count`), valid until the next mutation.
    /// Reading a field through it avoids copying the whole element.
    @inline(__always)
    func pointer(at index: Int) -> UnsafeMutablePointer<Element> {
        storage + index
    }

    /// Pointer to the top element (requires `count > 0`), for in-place updates.
    @inline(__always)
    var top: UnsafeMutablePointer<Element> {
        storage + (count &- 1)
    }

    /// Removes the elements at `start..<count` and returns them as an array.
    mutating func popArray(from start: Int) -> [Element] {
        let moved = count &- start
        guard moved > 0 else { return [] }
        let source = storage + start
        count = start
        var result = [Element]()
        result.reserveCapacity(moved)
        for offset in 0..<moved {
            result.append((source + offset).move())
        }
        return result
    }
}

struct JSONParserCore: ~Copyable {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var pos = 0

    private let maxDepth: Int
    private let maxStringLength: Int
    private let maxInputSize: Int

    /// Reused buffer for strings that contain escapes.
    private var stringBuffer: [UInt8] = []
    /// Elements of all open arrays, innermost last.
    private var arrayStack = JSONMoveStack<JSONValue>(capacity: 64)
    /// Members of all open objects, innermost last. While a member's value is being
    /// parsed, its slot holds the key and a `.null` placeholder.
    private var memberStack = JSONMoveStack<JSONObject.Element>(capacity: 32)
    /// Open containers, innermost last.
    private var frames: [Frame] = []

    private struct Frame {
        let isObject: Bool
        /// Start of this container's elements in `arrayStack` / `memberStack`.
        let start: Int
        /// Key → member position, built once an object grows past the linear-scan limit.
        var keyIndex: [String: Int]?
    }

    init(base: UnsafePointer<UInt8>, count: Int, limits: JSONParser.Limits) {
        self.base = base
        self.end = count
        self.maxDepth = limits.maxDepth
        self.maxStringLength = limits.maxStringLength ?? Int.max
        self.maxInputSize = limits.maxInputSize ?? Int.max
    }

    // MARK: - Document

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if end > maxInputSize {
            throw makeError(.limitExceeded, at: maxInputSize, "input larger than \(maxInputSize) bytes")
        }
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            throw makeError(.syntax, at: 0, "byte order mark is not allowed")
        }
        skipWhitespace()
        guard pos < end else {
            throw makeError(.syntax, at: pos, "empty input")
        }
        let value = try parseValue()
        skipWhitespace()
        if pos < end {
            throw unexpected("unexpected data after JSON value")
        }
        return value
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < end {
            let byte = base[pos]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            pos &+= 1
        }
    }

    // MARK: - Values

    /// Parses one value starting at `pos` (whitespace already skipped). Containers are
    /// handled with explicit stacks rather than recursion.
    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var value: JSONValue
        nextValue: while true {
            guard pos < end else {
                throw unexpected("expected a JSON value")
            }
            switch base[pos] {
            case asciiQuote:
                value = .string(try parseString())
            case asciiMinus, asciiZero...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            case asciiOpenBrace:
                try checkDepth()
                pos &+= 1
                skipWhitespace()
                if pos < end, base[pos] == asciiCloseBrace {
                    pos &+= 1
                    value = .object(JSONObject())
                } else {
                    frames.append(Frame(isObject: true, start: memberStack.count, keyIndex: nil))
                    try parseKey(afterComma: false)
                    skipWhitespace()
                    continue nextValue
                }
            case asciiOpenBracket:
                try checkDepth()
                pos &+= 1
                skipWhitespace()
                if pos < end, base[pos] == asciiCloseBracket {
                    pos &+= 1
                    value = .array([])
                } else {
                    frames.append(Frame(isObject: false, start: arrayStack.count, keyIndex: nil))
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                try expectLiteral(0x74, 0x72, 0x75, 0x65, 0, length: 4, name: "true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral(0x66, 0x61, 0x6C, 0x73, 0x65, length: 5, name: "false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral(0x6E, 0x75, 0x6C, 0x6C, 0, length: 4, name: "null")
                value = .null
            default:
                throw unexpectedValueStart()
            }

            // `value` is complete: hand it to the enclosing container(s).
            while !frames.isEmpty {
                skipWhitespace()
                if frames[frames.count &- 1].isObject {
                    memberStack.top.pointee.value = value
                    guard pos < end else {
                        throw unexpected("expected ',' or '}' after object member")
                    }
                    let byte = base[pos]
                    if byte == asciiComma {
                        pos &+= 1
                        skipWhitespace()
                        try parseKey(afterComma: true)
                        skipWhitespace()
                        continue nextValue
                    }
                    guard byte == asciiCloseBrace else {
                        throw unexpected("expected ',' or '}' after object member")
                    }
                    pos &+= 1
                    let frame = frames.removeLast()
                    let members = memberStack.popArray(from: frame.start)
                    value = .object(JSONObject(uniqueElements: members, index: frame.keyIndex))
                } else {
                    arrayStack.append(value)
                    guard pos < end else {
                        throw unexpected("expected ',' or ']' after array element")
                    }
                    let byte = base[pos]
                    if byte == asciiComma {
                        pos &+= 1
                        skipWhitespace()
                        if pos < end, base[pos] == asciiCloseBracket {
                            throw makeError(.syntax, at: pos, "trailing comma in array")
                        }
                        continue nextValue
                    }
                    guard byte == asciiCloseBracket else {
                        throw unexpected("expected ',' or ']' after array element")
                    }
                    pos &+= 1
                    let frame = frames.removeLast()
                    value = .array(arrayStack.popArray(from: frame.start))
                }
            }
            return value
        }
    }

    @inline(__always)
    private func checkDepth() throws(JSONParseError) {
        if frames.count >= maxDepth {
            throw makeError(.limitExceeded, at: pos, "nesting deeper than \(maxDepth)")
        }
    }

    /// Parses `"key"` and the following `:` inside the innermost (object) frame, rejecting
    /// duplicates, and pushes a member slot for it onto `memberStack`.
    private mutating func parseKey(afterComma: Bool) throws(JSONParseError) {
        guard pos < end, base[pos] == asciiQuote else {
            if afterComma, pos < end, base[pos] == asciiCloseBrace {
                throw makeError(.syntax, at: pos, "trailing comma in object")
            }
            throw unexpected(afterComma ? "expected string key after ','" : "expected string key or '}'")
        }
        let keyOffset = pos
        let key = try parseString()

        let top = frames.count - 1
        let start = frames[top].start
        let existing = memberStack.count - start
        if existing < JSONObject.linearScanLimit {
            var i = start
            while i < memberStack.count {
                if memberStack.pointer(at: i).pointee.key == key {
                    throw duplicateKey(key, at: keyOffset)
                }
                i &+= 1
            }
        } else {
            if frames[top].keyIndex == nil {
                var index = [String: Int](minimumCapacity: 2 * JSONObject.linearScanLimit)
                for i in start..<memberStack.count {
                    index[memberStack.pointer(at: i).pointee.key] = i - start
                }
                frames[top].keyIndex = index
            }
            if frames[top].keyIndex![key] != nil {
                throw duplicateKey(key, at: keyOffset)
            }
            frames[top].keyIndex![key] = existing
        }
        memberStack.append((key, .null))

        skipWhitespace()
        guard pos < end, base[pos] == asciiColon else {
            throw unexpected("expected ':' after object key")
        }
        pos &+= 1
    }

    /// Matches a literal of up to 5 bytes given inline (avoids allocating arrays).
    @inline(__always)
    private mutating func expectLiteral(
        _ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8, _ b4: UInt8, length: Int, name: String
    ) throws(JSONParseError) {
        guard end - pos >= length,
            base[pos] == b0, base[pos &+ 1] == b1, base[pos &+ 2] == b2, base[pos &+ 3] == b3,
            length == 4 || base[pos &+ 4] == b4
        else {
            throw makeError(.syntax, at: pos, "invalid literal, expected '\(name)'")
        }
        pos &+= length
    }

    // MARK: - Strings

    /// Parses a string starting at the opening quote at `pos`.
    private mutating func parseString() throws(JSONParseError) -> String {
        let start = pos &+ 1
        var i = start
        while i < end {
            let byte = base[i]
            if byte >= 0x20 && byte < 0x80 && byte != asciiQuote && byte != asciiBackslash {
                i &+= 1
                continue
            }
            if byte == asciiQuote {
                let length = i &- start
                if length > maxStringLength {
                    throw stringTooLong(at: pos)
                }
                pos = i &+ 1
                return String(decoding: UnsafeBufferPointer(start: base + start, count: length), as: UTF8.self)
            }
            if byte == asciiBackslash {
                return try parseEscapedString(contentStart: start, firstEscape: i)
            }
            if byte < 0x20 {
                throw controlCharacter(byte, at: i)
            }
            i = try validateUTF8Sequence(at: i)
        }
        throw makeError(.syntax, at: pos, "unterminated string")
    }

    /// Slow path for strings containing escapes: decodes into `stringBuffer`.
    private mutating func parseEscapedString(contentStart: Int, firstEscape: Int) throws(JSONParseError) -> String {
        let quoteOffset = pos
        stringBuffer.removeAll(keepingCapacity: true)
        stringBuffer.append(contentsOf: UnsafeBufferPointer(start: base + contentStart, count: firstEscape &- contentStart))
        var i = firstEscape
        while i < end {
            // Copy a run of bytes that need no decoding.
            let runStart = i
            while i < end {
                let byte = base[i]
                if byte >= 0x20 && byte < 0x80 && byte != asciiQuote && byte != asciiBackslash {
                    i &+= 1
                } else if byte >= 0x80 {
                    i = try validateUTF8Sequence(at: i)
                } else {
                    break
                }
            }
            if i > runStart {
                stringBuffer.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i &- runStart))
            }
            guard i < end else { break }
            let byte = base[i]
            if byte == asciiQuote {
                if stringBuffer.count > maxStringLength {
                    throw stringTooLong(at: quoteOffset)
                }
                pos = i &+ 1
                return String(decoding: stringBuffer, as: UTF8.self)
            }
            if byte < 0x20 {
                throw controlCharacter(byte, at: i)
            }
            // Backslash escape.
            guard i &+ 1 < end else { break }
            let escaped = base[i &+ 1]
            switch escaped {
            case asciiQuote, asciiBackslash, UInt8(ascii: "/"):
                stringBuffer.append(escaped)
            case UInt8(ascii: "b"): stringBuffer.append(0x08)
            case UInt8(ascii: "f"): stringBuffer.append(0x0C)
            case UInt8(ascii: "n"): stringBuffer.append(0x0A)
            case UInt8(ascii: "r"): stringBuffer.append(0x0D)
            case UInt8(ascii: "t"): stringBuffer.append(0x09)
            case UInt8(ascii: "u"):
                i = try parseUnicodeEscape(at: i)
                continue
            default:
                let shown = escaped >= 0x21 && escaped < 0x7F
                    ? "'\\\(Character(Unicode.Scalar(escaped)))'"
                    : "'\\' followed by \(describeByte(escaped))"
                throw makeError(.syntax, at: i, "invalid escape sequence \(shown)")
            }
            i &+= 2
        }
        throw makeError(.syntax, at: quoteOffset, "unterminated string")
    }

    /// Decodes `\uXXXX` (and a following low-surrogate escape when needed) at `i`,
    /// appends the scalar as UTF-8 and returns the index after the escape(s).
    private mutating func parseUnicodeEscape(at i: Int) throws(JSONParseError) -> Int {
        let first = try hex4(at: i)
        var scalar = UInt32(first)
        var next = i &+ 6
        switch first {
        case 0xD800...0xDBFF:
            guard next &+ 1 < end, base[next] == asciiBackslash, base[next &+ 1] == UInt8(ascii: "u") else {
                throw makeError(.syntax, at: i, "unpaired surrogate escape \\u\(hexString(first))")
            }
            let second = try hex4(at: next)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw makeError(.syntax, at: i, "unpaired surrogate escape \\u\(hexString(first))")
            }
            scalar = 0x10000 &+ ((UInt32(first) &- 0xD800) << 10) &+ (UInt32(second) &- 0xDC00)
            next &+= 6
        case 0xDC00...0xDFFF:
            throw makeError(.syntax, at: i, "unpaired surrogate escape \\u\(hexString(first))")
        default:
            break
        }
        appendUTF8(scalar)
        return next
    }

    /// Reads the 4 hex digits of a `\u` escape whose backslash is at `i`.
    private func hex4(at i: Int) throws(JSONParseError) -> UInt16 {
        guard end - i >= 6 else {
            throw makeError(.syntax, at: i, "invalid \\u escape, expected 4 hex digits")
        }
        var value: UInt16 = 0
        for k in 2..<6 {
            let byte = base[i &+ k]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default:
                throw makeError(.syntax, at: i, "invalid \\u escape, expected 4 hex digits")
            }
            value = value &<< 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            stringBuffer.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            stringBuffer.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            stringBuffer.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            stringBuffer.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    // MARK: - UTF-8

    /// Validates the multi-byte sequence whose lead byte (>= 0x80) is at `i`.
    /// Returns the index just past it.
    @inline(__always)
    private func validateUTF8Sequence(at i: Int) throws(JSONParseError) -> Int {
        if let reason = utf8Problem(at: i) {
            throw makeError(.invalidUTF8, at: i, reason)
        }
        return i &+ utf8SequenceLength(base[i])
    }

    @inline(__always)
    private func utf8SequenceLength(_ lead: UInt8) -> Int {
        lead < 0xE0 ? 2 : (lead < 0xF0 ? 3 : 4)
    }

    /// `nil` if a well-formed UTF-8 sequence (U+0080 and above) starts at `i`;
    /// otherwise why not.
    private func utf8Problem(at i: Int) -> String? {
        let lead = base[i]
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        let continuationCount: Int
        switch lead {
        case 0x80...0xBF:
            return "unexpected continuation byte 0x\(hexString(lead))"
        case 0xC0, 0xC1:
            return "overlong encoding"
        case 0xC2...0xDF:
            continuationCount = 1
        case 0xE0:
            continuationCount = 2
            lower = 0xA0
        case 0xED:
            continuationCount = 2
            upper = 0x9F
        case 0xE1...0xEF:
            continuationCount = 2
        case 0xF0:
            continuationCount = 3
            lower = 0x90
        case 0xF4:
            continuationCount = 3
            upper = 0x8F
        case 0xF1...0xF3:
            continuationCount = 3
        default:
            return "invalid byte 0x\(hexString(lead))"
        }
        for k in 1...continuationCount {
            let index = i &+ k
            guard index < end else { return "truncated sequence" }
            let byte = base[index]
            guard byte & 0xC0 == 0x80 else { return "truncated sequence" }
            if k == 1 && (byte < lower || byte > upper) {
                switch lead {
                case 0xE0, 0xF0: return "overlong encoding"
                case 0xED: return "encoded surrogate"
                default: return "code point above U+10FFFF"
                }
            }
        }
        return nil
    }

    // MARK: - Numbers

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- asciiZero < 10
    }

    /// Parses a number at `pos` (which holds '-' or a digit).
    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = pos
        var i = pos
        let negative = base[i] == asciiMinus
        if negative {
            i &+= 1
        }
        guard i < end, JSONParserCore.isDigit(base[i]) else {
            pos = i
            throw unexpected("expected digit after '-'")
        }

        // Up to 19 significant digits are accumulated exactly; beyond that `truncated`
        // is set and the slow (string-based) conversion is used.
        let accumulateLimit: UInt64 = 1_000_000_000_000_000_000
        var mantissa: UInt64 = 0
        var truncated = false
        var exponent = 0

        if base[i] == asciiZero {
            i &+= 1
            if i < end, JSONParserCore.isDigit(base[i]) {
                throw makeError(.syntax, at: i &- 1, "leading zeros are not allowed")
            }
        } else {
            repeat {
                if mantissa < accumulateLimit {
                    mantissa = mantissa &* 10 &+ UInt64(base[i] &- asciiZero)
                } else {
                    truncated = true
                }
                i &+= 1
            } while i < end && JSONParserCore.isDigit(base[i])
        }

        var integerSyntax = true
        if i < end, base[i] == asciiDot {
            integerSyntax = false
            i &+= 1
            guard i < end, JSONParserCore.isDigit(base[i]) else {
                pos = i
                throw unexpected("expected digit after decimal point")
            }
            repeat {
                if mantissa < accumulateLimit {
                    mantissa = mantissa &* 10 &+ UInt64(base[i] &- asciiZero)
                    exponent &-= 1
                } else {
                    truncated = true
                }
                i &+= 1
            } while i < end && JSONParserCore.isDigit(base[i])
        }

        if i < end, base[i] | 0x20 == UInt8(ascii: "e") {
            integerSyntax = false
            i &+= 1
            var exponentNegative = false
            if i < end, base[i] == asciiPlus || base[i] == asciiMinus {
                exponentNegative = base[i] == asciiMinus
                i &+= 1
            }
            guard i < end, JSONParserCore.isDigit(base[i]) else {
                pos = i
                throw unexpected("expected digit in exponent")
            }
            var exponentValue = 0
            repeat {
                // Saturate: anything this large overflows or underflows anyway.
                if exponentValue < 100_000_000 {
                    exponentValue = exponentValue &* 10 &+ Int(base[i] &- asciiZero)
                }
                i &+= 1
            } while i < end && JSONParserCore.isDigit(base[i])
            exponent = exponentNegative ? exponent &- exponentValue : exponent &+ exponentValue
        }
        pos = i

        if integerSyntax && !truncated {
            // At most 19 digits: `mantissa` is exact.
            if negative {
                if mantissa <= UInt64(Int64.max) {
                    return JSONNumber(uncheckedDouble: -Double(mantissa), int: -Int64(mantissa))
                }
                if mantissa == UInt64(Int64.max) + 1 {
                    return JSONNumber(uncheckedDouble: -Double(mantissa), int: Int64.min)
                }
            } else if mantissa <= UInt64(Int64.max) {
                return JSONNumber(uncheckedDouble: Double(mantissa), int: Int64(mantissa))
            }
            // Beyond Int64 but within UInt64: converting the exact value rounds correctly.
            // The magnitude is >= 2^63, so "no int64" is the right representation.
            return JSONNumber(uncheckedDouble: negative ? -Double(mantissa) : Double(mantissa), int: 0)
        }

        var double: Double
        if !truncated && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            // Exact mantissa and exact power of ten: one IEEE operation, correctly rounded.
            double = Double(mantissa)
            if exponent < 0 {
                double /= JSONNumber.exactPowerOfTen(-exponent)
            } else if exponent > 0 {
                double *= JSONNumber.exactPowerOfTen(exponent)
            }
            if negative {
                double = -double
            }
        } else if !truncated && mantissa == 0 {
            double = negative ? -0.0 : 0.0
        } else {
            let literal = String(decoding: UnsafeBufferPointer(start: base + start, count: i &- start), as: UTF8.self)
            guard let parsed = Double(literal) else {
                throw makeError(.syntax, at: start, "invalid number")
            }
            double = parsed
        }
        guard double.isFinite else {
            throw makeError(.syntax, at: start, "number out of range")
        }
        return JSONNumber(double)
    }

    // MARK: - Errors

    private func stringTooLong(at offset: Int) -> JSONParseError {
        makeError(.limitExceeded, at: offset, "string longer than \(maxStringLength) bytes")
    }

    private func controlCharacter(_ byte: UInt8, at offset: Int) -> JSONParseError {
        makeError(.syntax, at: offset, "unescaped control character U+00\(hexString(byte)) in string")
    }

    private func duplicateKey(_ key: String, at offset: Int) -> JSONParseError {
        makeError(.syntax, at: offset, "duplicate key \(quotedForMessage(key))")
    }

    /// An error at `pos`: end of input, invalid UTF-8, or `expectation`.
    private func unexpected(_ expectation: String) -> JSONParseError {
        if pos >= end {
            return makeError(.syntax, at: end, "unexpected end of input, \(expectation)")
        }
        if base[pos] >= 0x80, let reason = utf8Problem(at: pos) {
            return makeError(.invalidUTF8, at: pos, reason)
        }
        return makeError(.syntax, at: pos, expectation)
    }

    private func unexpectedValueStart() -> JSONParseError {
        let byte = base[pos]
        if byte >= 0x80 {
            if let reason = utf8Problem(at: pos) {
                return makeError(.invalidUTF8, at: pos, reason)
            }
            let length = utf8SequenceLength(byte)
            let text = String(decoding: UnsafeBufferPointer(start: base + pos, count: length), as: UTF8.self)
            let scalar = text.unicodeScalars.first?.value ?? 0
            return makeError(.syntax, at: pos, "unexpected character U+\(hexString(scalar)), expected a JSON value")
        }
        return makeError(.syntax, at: pos, "unexpected character \(describeByte(byte)), expected a JSON value")
    }

    @inline(never)
    private func makeError(_ kind: JSONParseError.Kind, at offset: Int, _ reason: String) -> JSONParseError {
        let limit = min(max(offset, 0), end)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < limit {
            if base[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        var column = 1
        i = lineStart
        while i < limit {
            if base[i] & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return JSONParseError(kind: kind, offset: offset, line: line, column: column, reason: reason)
    }
}

// MARK: - Message helpers

/// Uppercase hex, at least 2 digits for bytes and 4 for larger values.
private func hexString(_ value: some BinaryInteger & UnsignedInteger) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    let width = value.bitWidth <= 8 ? 2 : 4
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// `'x'` for printable ASCII, otherwise `U+00XX`.
private func describeByte(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F {
        return "'\(Character(Unicode.Scalar(byte)))'"
    }
    if byte < 0x80 {
        return "U+00\(hexString(byte))"
    }
    return "byte 0x\(hexString(byte))"
}

/// A key quoted for an error message, escaped and truncated to keep messages short.
private func quotedForMessage(_ key: String) -> String {
    let maxScalars = 64
    var result = "\""
    var count = 0
    for scalar in key.unicodeScalars {
        if count == maxScalars {
            result += "..."
            break
        }
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u\(hexString(UInt16(scalar.value)))"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        count += 1
    }
    return result + "\""
}
