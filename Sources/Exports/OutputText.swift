import JSONCore

/// Formats numbers into a caller's byte buffer with `JSONWriter`'s rules (fixed decimals,
/// trailing zeros trimmed, `-0` kept, ties away from zero), without an intermediate `String`.
///
/// Callers must pass finite values (writers validate points first); a non-finite value would be
/// written as `null`.
struct DecimalFormatter: Sendable {
    /// Holds no bytes between calls: its buffer is swapped with the caller's while writing.
    private var scratch = JSONWriter(capacity: 0)

    init() {}

    /// Appends `value` rounded to `fractionDigits` decimals, e.g. `-74.0715700` → `-74.07157`.
    mutating func append(_ value: Double, fractionDigits: Int, to out: inout [UInt8]) {
        scratch.reset()
        swap(&scratch.bytes, &out)
        scratch.number(value, fractionDigits: fractionDigits)
        swap(&scratch.bytes, &out)
    }

    /// Appends an integer in decimal.
    mutating func append(_ value: Int, to out: inout [UInt8]) {
        scratch.reset()
        swap(&scratch.bytes, &out)
        scratch.number(Int64(value))
        swap(&scratch.bytes, &out)
    }
}

/// XML 1.0 text escaping for GPX and SVG.
enum XMLText {
    /// Appends `text` escaped for both element content and double- or single-quoted attribute
    /// values: `& < > " '` become entities, tab/LF/CR become character references (so attribute
    /// normalisation keeps them), and characters XML 1.0 cannot carry at all (other C0 controls,
    /// U+FFFE, U+FFFF) become U+FFFD.
    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        if !text.utf8.contains(where: needsAttention) {
            out.append(contentsOf: text.utf8)
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            case 0x22: out.append(contentsOf: "&quot;".utf8)
            case 0x27: out.append(contentsOf: "&apos;".utf8)
            case 0x09: out.append(contentsOf: "&#9;".utf8)
            case 0x0A: out.append(contentsOf: "&#10;".utf8)
            case 0x0D: out.append(contentsOf: "&#13;".utf8)
            case 0x00..<0x20, 0xFFFE, 0xFFFF: out.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
            default:
                if let encoded = UTF8.encode(scalar) { out.append(contentsOf: encoded) }
            }
        }
    }

    /// Bytes that may need escaping: ASCII controls and markup, and 0xEF (lead byte of U+FFFE/F).
    private static func needsAttention(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00..<0x20, 0x22, 0x26, 0x27, 0x3C, 0x3E, 0xEF: true
        default: false
        }
    }

    /// `text` cut to at most `limit` characters, ending in `…` when cut.
    static func truncated(_ text: String, limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}

extension Array where Element == UInt8 {
    /// Appends the UTF-8 of a string (used for literal markup).
    @inline(__always)
    mutating func append(ascii text: String) {
        append(contentsOf: text.utf8)
    }
}
