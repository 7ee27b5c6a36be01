// Why one file of ~450 lines: one writer type whose number formatting (shortest round-trip
// doubles, fixed fraction digits, integers) and string escaping share private buffers and tables;
// the file is long because each number form is written out, not because the type does two jobs.

/// A compact JSON writer that appends UTF-8 to `bytes`.
///
/// Write whole values with `write(_:)`, or stream a document without building a
/// `JSONValue`:
///
///     var writer = JSONWriter()
///     writer.beginObject()
///     writer.key("id"); writer.number(42 as Int64)
///     writer.key("location")
///     writer.beginArray()
///     writer.number(-74.0715700, fractionDigits: 7)
///     writer.number(40.6440900, fractionDigits: 7)
///     writer.endArray()
///     writer.endObject()
///     // writer.bytes == Array(#"{"id":42,"location":[-74.07157,40.64409]}"#.utf8)
///
/// Commas and colons are inserted automatically. Inside an object every value must be
/// preceded by `key(_:)`. Misuse (a value without a key, unbalanced `end…` calls, several
/// top-level values) is a programming error: it is caught by assertions in debug builds,
/// and in release builds produces invalid output rather than trapping.
///
/// Output format:
/// - Strings are UTF-8; `"` `\` and control characters are escaped (`\n`, `\t`, `\r`,
///   `\b`, `\f`, otherwise `\u00XX`), as are U+2028 and U+2029. `/` is not escaped.
/// - Integers and integral doubles of magnitude ≤ 2^53 are written as plain integers
///   (`3`, not `3.0`); `-0.0` is written as `-0`. Other doubles use the shortest
///   representation that round-trips (`0.1`, `1e-05`, `1.2345678901234568e+20`), which
///   is always valid JSON.
/// - Non-finite doubles (NaN, ±infinity) are written as `null`; nothing traps.
public struct JSONWriter: Sendable {
    /// The UTF-8 output written so far.
    public var bytes: [UInt8]

    private enum Container: Sendable {
        case object
        case array
    }

    /// A value (or a complete container) was just written at the current level, so the
    /// next value or key needs a leading comma.
    private var needsComma = false
    /// `key(_:)` was written and its value is pending (used by debug assertions).
    private var awaitingValue = false
    private var containers: [Container] = []

    /// Creates a writer with an empty buffer of at least `capacity` bytes.
    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Creates a writer that appends to existing bytes (which are not interpreted).
    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Number of currently open arrays/objects.
    public var depth: Int { containers.count }

    /// Clears the output (keeping its capacity) and the container state.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
        awaitingValue = false
        containers.removeAll(keepingCapacity: true)
    }

    // MARK: - Whole values

    /// Writes a complete value.
    public mutating func write(_ value: JSONValue) {
        beginValue()
        writeValue(value)
        needsComma = true
    }

    private mutating func writeValue(_ value: JSONValue) {
        switch value {
        case .null:
            appendNull()
        case .bool(let flag):
            appendBool(flag)
        case .number(let number):
            appendNumber(number)
        case .string(let string):
            appendString(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first {
                    bytes.append(UInt8(ascii: ","))
                }
                first = false
                writeValue(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in object {
                if !first {
                    bytes.append(UInt8(ascii: ","))
                }
                first = false
                appendString(key)
                bytes.append(UInt8(ascii: ":"))
                writeValue(member)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    // MARK: - Streaming

    public mutating func beginObject() {
        beginValue()
        bytes.append(UInt8(ascii: "{"))
        containers.append(.object)
        needsComma = false
    }

    public mutating func endObject() {
        assert(containers.last == .object && !awaitingValue, "JSONWriter: unbalanced endObject()")
        _ = containers.popLast()
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        beginValue()
        bytes.append(UInt8(ascii: "["))
        containers.append(.array)
        needsComma = false
    }

    public mutating func endArray() {
        assert(containers.last == .array, "JSONWriter: unbalanced endArray()")
        _ = containers.popLast()
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next call must write its value.
    public mutating func key(_ key: String) {
        assert(containers.last == .object && !awaitingValue, "JSONWriter: key(_:) outside an object or twice in a row")
        if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
        awaitingValue = true
    }

    /// Writes an object key known at compile time that needs no escaping (printable ASCII
    /// without `"` or `\\`), copying its bytes as they are: for keys written once per result
    /// of a large answer.
    public mutating func key(ascii key: StaticString) {
        assert(containers.last == .object && !awaitingValue, "JSONWriter: key(ascii:) outside an object or twice in a row")
        assert(key.hasPointerRepresentation && UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
            .allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") },
            "JSONWriter: key(ascii:) with a byte that needs escaping")
        if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
        awaitingValue = true
    }

    public mutating func string(_ value: String) {
        beginValue()
        appendString(value)
        needsComma = true
    }

    /// Writes one value whose bytes `append` adds itself (it must append exactly one complete,
    /// valid JSON value, e.g. a quoted ASCII timestamp): for hot paths that would otherwise
    /// build a `String` per value.
    public mutating func rawValue(_ append: (inout [UInt8]) -> Void) {
        beginValue()
        append(&bytes)
        needsComma = true
    }

    /// Writes a double (see the type documentation for the format; non-finite → `null`).
    public mutating func number(_ value: Double) {
        beginValue()
        appendDouble(value)
        needsComma = true
    }

    public mutating func number(_ value: Int64) {
        beginValue()
        appendInteger(value)
        needsComma = true
    }

    public mutating func number(_ value: Int) {
        number(Int64(value))
    }

    public mutating func number(_ value: JSONNumber) {
        beginValue()
        appendNumber(value)
        needsComma = true
    }

    /// Writes `value` rounded to `fractionDigits` decimals (ties away from zero) with
    /// trailing zeros (and a trailing `.`) removed: `-74.0715700` with 7 digits → `-74.07157`,
    /// `2.5` with 0 digits → `3`, `1e-9` with 7 digits → `0`.
    ///
    /// `fractionDigits` is clamped to 0...15. Values too large for that precision
    /// (|value| × 10^digits ≥ 2^53) are written like `number(_: Double)`; non-finite → `null`.
    public mutating func number(_ value: Double, fractionDigits: Int) {
        beginValue()
        appendFixed(value, fractionDigits: fractionDigits)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        beginValue()
        appendBool(value)
        needsComma = true
    }

    public mutating func null() {
        beginValue()
        appendNull()
        needsComma = true
    }

    @inline(__always)
    private mutating func beginValue() {
        assert(
            containers.isEmpty ? !needsComma : (containers.last == .array || awaitingValue),
            "JSONWriter: value written without key(_:) inside an object, or a second top-level value")
        if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
        awaitingValue = false
    }

    // MARK: - Scalars

    private mutating func appendNull() {
        bytes.append(UInt8(ascii: "n"))
        bytes.append(UInt8(ascii: "u"))
        bytes.append(UInt8(ascii: "l"))
        bytes.append(UInt8(ascii: "l"))
    }

    private mutating func appendBool(_ value: Bool) {
        if value {
            bytes.append(UInt8(ascii: "t"))
            bytes.append(UInt8(ascii: "r"))
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "e"))
        } else {
            bytes.append(UInt8(ascii: "f"))
            bytes.append(UInt8(ascii: "a"))
            bytes.append(UInt8(ascii: "l"))
            bytes.append(UInt8(ascii: "s"))
            bytes.append(UInt8(ascii: "e"))
        }
    }

    private mutating func appendNumber(_ number: JSONNumber) {
        if let exact = number.int64 {
            if exact == 0 && number.double.sign == .minus {
                bytes.append(UInt8(ascii: "-"))
                bytes.append(UInt8(ascii: "0"))
            } else {
                appendInteger(exact)
            }
        } else {
            appendDouble(number.double)
        }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        appendDecimal(value.magnitude)
    }

    /// Appends the decimal digits of `value`.
    private mutating func appendDecimal(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        appendDigits(value, minimumWidth: 0)
    }

    /// Appends `value` in decimal, left-padded with zeros to `minimumWidth` (≤ 20).
    private mutating func appendDigits(_ value: UInt64, minimumWidth: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var index = 20
            var remaining = value
            repeat {
                let (quotient, digit) = remaining.quotientAndRemainder(dividingBy: 10)
                index &-= 1
                buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit)
                remaining = quotient
            } while remaining != 0
            while 20 &- index < minimumWidth {
                index &-= 1
                buffer[index] = UInt8(ascii: "0")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index...]))
        }
    }

    private mutating func appendDouble(_ value: Double) {
        guard value.isFinite else {
            appendNull()
            return
        }
        if let integer = JSONNumber.exactSmallInteger(value) {
            if integer == 0 && value.sign == .minus {
                bytes.append(UInt8(ascii: "-"))
            }
            appendInteger(integer)
            return
        }
        if appendSevenDecimals(value) { return }
        // Swift's description is the shortest round-tripping form; for finite values it
        // only produces JSON-compatible text ("0.1", "1e-05", "5e+20", "1.5e+300").
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes a non-integral `value` that has a round-tripping form of at most seven fraction
    /// digits (stored coordinates are E7) straight from integer digits, with no `String`, and
    /// returns false (writing nothing) for any other value.
    ///
    /// The output is exactly the shortest round-tripping form `description` gives: for
    /// 10⁻³ ≤ |value| < 2²⁶ a Double's spacing is below 2⁻²⁷ < 10⁻⁷, so `n / 10⁷` (n the integer
    /// nearest |value| × 10⁷) is the only decimal with at most seven fraction digits that
    /// rounds to `value` — it does when `fl(n / 10⁷)` (what parsing it gives) equals |value|
    /// — and any other round-tripping decimal has more fraction digits and so more significant
    /// ones. In that range `description` uses plain notation.
    private mutating func appendSevenDecimals(_ value: Double) -> Bool {
        let magnitude = value.magnitude
        guard magnitude >= 1e-3, magnitude < 67_108_864 else { return false }
        let scaled = (magnitude * 1e7).rounded()
        guard scaled / 1e7 == magnitude else { return false }
        let units = UInt64(scaled)  // < 6.8e14: exact
        var fraction = units % 10_000_000
        guard fraction != 0 else { return false }  // integral: never here (written as an integer)
        var fractionDigits = 7
        while fraction % 10 == 0 {
            fraction /= 10
            fractionDigits &-= 1
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDecimal(units / 10_000_000)
        bytes.append(UInt8(ascii: "."))
        appendDigits(fraction, minimumWidth: fractionDigits)
        return true
    }

    private mutating func appendFixed(_ value: Double, fractionDigits: Int) {
        guard value.isFinite else {
            appendNull()
            return
        }
        let digits = min(max(fractionDigits, 0), 15)
        let scale = JSONNumber.exactPowerOfTen(digits)
        let product = value * scale
        // `!(a < b)` form so that nothing slips through; `product` is finite here unless
        // `value * scale` overflowed, which this also catches.
        guard product.magnitude < JSONNumber.maxExactDoubleInteger - 1 else {
            appendDouble(value)
            return
        }
        // Round half away from zero using integer conversion (no libm needed).
        let truncated = Int64(product)
        let fraction = product - Double(truncated)  // exact
        var scaled = truncated
        if fraction.magnitude > 0.5 {
            scaled += fraction < 0 ? -1 : 1
        } else if fraction.magnitude == 0.5 {
            // `product` may have been rounded onto an exact .5 tie; the exact rounding
            // error of the multiplication tells which side the true product is on.
            let error = productRoundingError(value, scale, product)
            if error == 0 || (error < 0) == (fraction < 0) {
                scaled += fraction < 0 ? -1 : 1
            }
        }
        if scaled == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if scaled < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        let magnitude = scaled.magnitude
        let divisor = UInt64(scale)
        let (integerPart, fractionPart) = magnitude.quotientAndRemainder(dividingBy: divisor)
        appendDecimal(integerPart)
        if fractionPart != 0 {
            var fraction = fractionPart
            var width = digits
            while fraction % 10 == 0 {
                fraction /= 10
                width &-= 1
            }
            bytes.append(UInt8(ascii: "."))
            appendDigits(fraction, minimumWidth: width)
        }
    }

    /// The exact value of `a * b - product` where `product` is the rounded `a * b`
    /// (Dekker's TwoProduct with Veltkamp splitting; valid while nothing overflows).
    private func productRoundingError(_ a: Double, _ b: Double, _ product: Double) -> Double {
        let splitter = 134_217_729.0  // 2^27 + 1
        let aScaled = a * splitter
        let aHigh = aScaled - (aScaled - a)
        let aLow = a - aHigh
        let bScaled = b * splitter
        let bHigh = bScaled - (bScaled - b)
        let bLow = b - bHigh
        return ((aHigh * bHigh - product) + aHigh * bLow + aLow * bHigh) + aLow * bLow
    }

    // MARK: - Strings

    /// Whether some byte of `word` is ≥ 0x80, < 0x20, `"` or `\` (SWAR: for bytes below 0x80,
    /// `(b − c) & ~b & 0x80` is set exactly when b < c, and b ^ c is 0 exactly when b == c).
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        if word & highs != 0 { return true }
        let below = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        return (below | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs != 0
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            appendEscaped(utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let count = utf8.count
        var runStart = 0
        var i = 0
        let base = utf8.baseAddress.map(UnsafeRawPointer.init)
        while i < count {
            if let base {
                // Eight bytes at a time while none needs a look: all below 0x80 (so no E2),
                // none below 0x20, no `"` and no `\`.
                while i &+ 8 <= count, !Self.mayNeedEscape((base + i).loadUnaligned(as: UInt64.self)) {
                    i &+= 8
                }
                guard i < count else { break }
            }
            let byte = utf8[i]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0xE2 {
                i &+= 1
                continue
            }
            if byte == 0xE2 {
                // U+2028 / U+2029 are E2 80 A8 / E2 80 A9.
                guard i &+ 2 < count, utf8[i &+ 1] == 0x80, utf8[i &+ 2] & 0xFE == 0xA8 else {
                    i &+= 1
                    continue
                }
                flush(utf8, from: runStart, to: i)
                appendEscapeU00(prefix: 0x20, utf8[i &+ 2] == 0xA8 ? 0x28 : 0x29)
                i &+= 3
                runStart = i
                continue
            }
            flush(utf8, from: runStart, to: i)
            let shortEscape: UInt8
            switch byte {
            case UInt8(ascii: "\""): shortEscape = UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): shortEscape = UInt8(ascii: "\\")
            case 0x0A: shortEscape = UInt8(ascii: "n")
            case 0x0D: shortEscape = UInt8(ascii: "r")
            case 0x09: shortEscape = UInt8(ascii: "t")
            case 0x08: shortEscape = UInt8(ascii: "b")
            case 0x0C: shortEscape = UInt8(ascii: "f")
            default: shortEscape = 0
            }
            if shortEscape != 0 {
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(shortEscape)
            } else {
                appendEscapeU00(prefix: 0x00, byte)
            }
            i &+= 1
            runStart = i
        }
        flush(utf8, from: runStart, to: count)
    }

    @inline(__always)
    private mutating func flush(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
        if end > start {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<end]))
        }
    }

    /// Appends `\uHHLL` where HH = `prefix`, LL = `low` (lowercase hex).
    private mutating func appendEscapeU00(prefix: UInt8, _ low: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "u"))
        appendHexByte(prefix)
        appendHexByte(low)
    }

    @inline(__always)
    private mutating func appendHexByte(_ byte: UInt8) {
        bytes.append(hexDigit(byte >> 4))
        bytes.append(hexDigit(byte & 0x0F))
    }

    @inline(__always)
    private func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}
