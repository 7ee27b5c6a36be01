// fuzz-modules: Timestamps
// fuzz-support: FuzzCheck
// fuzz-max-len: 256
//
// RFC 3339 parsing and formatting (Sources/Timestamps). The whole input is parsed as a
// date-time; its first 8 bytes are also read as a millisecond count to format. Invariants:
// - a parsed time lies within years 0000–9999 (± a day of zone offset), parsing without a zone
//   allowed accepts everything parsing with a zone required does, with the same value;
// - text already in the canonical form (`YYYY-MM-DDTHH:MM:SS.mmmZ`) formats back to itself;
// - formatting any millisecond count never traps, and within years 0000–9999 parses back to the
//   same count; days and civil dates convert both ways.
import Timestamps

/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, widened by a day for zone offsets.
let earliest: Int64 = -62_167_219_200_000 - 86_400_000
let latest: Int64 = 253_402_300_799_999 + 86_400_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamps(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    let text = String(decoding: input, as: UTF8.self)
    let strict = Timestamp.parseRFC3339(text)
    let lenient = Timestamp.parseRFC3339(text, assumeUTC: true)
    if let strict {
        require(lenient == strict, "assumeUTC changed \(text): \(strict) vs \(lenient.map(String.init) ?? "nil")")
        require((earliest...latest).contains(strict), "\(text) parsed to \(strict), outside years 0000–9999")
        if isCanonical(input) {
            let formatted = Timestamp.rfc3339(millisecondsSince1970: strict)
            require(formatted == text.uppercased(), "\(text) parsed to \(strict), which formats as \(formatted)")
        }
    }
    if let lenient {
        require((earliest...latest).contains(lenient), "\(text) parsed leniently to \(lenient)")
    }

    guard input.count >= 8 else { return 0 }
    let bits = input.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let wide = Int64(bitPattern: bits)
    _ = Timestamp.rfc3339(millisecondsSince1970: wide)
    let ms = earliest + 86_400_000 + Int64(bits % UInt64(latest - earliest - 2 * 86_400_000 + 1))
    let formatted = Timestamp.rfc3339(millisecondsSince1970: ms)
    require(Timestamp.parseRFC3339(formatted) == ms, "\(ms) formats as \(formatted), which does not parse back")

    let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
    let (year, month, day) = Timestamp.civilDate(daysSince1970: days)
    require((1...12).contains(month) && day >= 1 && day <= Timestamp.daysInMonth(year: year, month: month),
            "day \(days) is \(year)-\(month)-\(day)")
    require(Timestamp.daysSince1970(year: year, month: month, day: day) == days, "day \(days) does not convert back")
    return 0
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` with a seconds field below 60 (a leap second is clamped).
func isCanonical(_ b: [UInt8]) -> Bool {
    guard b.count == 24 else { return false }
    let pattern = Array("dddd-dd-ddTdd:dd:dd.dddZ".utf8)
    for (byte, expected) in zip(b, pattern) {
        if expected == UInt8(ascii: "d") {
            guard (48...57).contains(byte) else { return false }
        } else if expected == UInt8(ascii: "T") || expected == UInt8(ascii: "Z") {
            guard byte == expected || byte == expected + 32 else { return false }
        } else if byte != expected {
            return false
        }
    }
    return b[17] < UInt8(ascii: "6")
}
