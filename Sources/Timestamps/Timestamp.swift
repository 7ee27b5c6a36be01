import Glibc

// The calendar and clock helpers over bare milliseconds, for callers that have not moved to the
// `Timestamp` value (and for the hot paths that keep `Int64`, such as `Fix.timestamp`).
extension Timestamp {
    /// Wall-clock time now, in milliseconds since 1970-01-01T00:00:00Z.
    public static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// A monotonic clock in nanoseconds, for durations.
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// `2026-11-30T08:15:00.000Z` for `ms` milliseconds since 1970 (proleptic Gregorian, UTC).
    ///
    /// Defined for every `Int64`: years outside 0000–9999 (never a validated fix time) are
    /// written as ISO 8601 expanded years, with more digits or a leading `-`.
    public static func rfc3339(millisecondsSince1970 ms: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendRFC3339(millisecondsSince1970: ms, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the text of `rfc3339(millisecondsSince1970:)` to `bytes` as UTF-8 (24 bytes for
    /// years 0–9999), with no allocation of its own: for writers of many timestamps.
    public static func appendRFC3339(millisecondsSince1970 ms: Int64, to bytes: inout [UInt8]) {
        let (seconds, millis) = floorDivision(ms, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (y, m, d) = civilDate(daysSince1970: days)
        if (0...9999).contains(y) {
            appendFourDigitYearForm(y, m, d, secondOfDay, millis, &bytes)
            return
        }
        bytes.append(contentsOf: pad(y, 4).utf8)
        bytes.append(UInt8(ascii: "-")); appendDigits(m, 2, &bytes)
        bytes.append(UInt8(ascii: "-")); appendDigits(d, 2, &bytes)
        bytes.append(UInt8(ascii: "T")); appendDigits(secondOfDay / 3600, 2, &bytes)
        bytes.append(UInt8(ascii: ":")); appendDigits(secondOfDay / 60 % 60, 2, &bytes)
        bytes.append(UInt8(ascii: ":")); appendDigits(secondOfDay % 60, 2, &bytes)
        bytes.append(UInt8(ascii: ".")); appendDigits(millis, 3, &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The 24 bytes of a time in years 0–9999, composed on the stack and appended at once
    /// (two digits at a time with constant divisors).
    private static func appendFourDigitYearForm(_ year: Int64, _ month: Int64, _ day: Int64, _ secondOfDay: Int64,
                                                _ millis: Int64, _ bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func two(_ value: Int64, at offset: Int) {
                text[offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
                text[offset &+ 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
            }
            two(year / 100, at: 0); two(year % 100, at: 2)
            text[4] = UInt8(ascii: "-"); two(month, at: 5)
            text[7] = UInt8(ascii: "-"); two(day, at: 8)
            text[10] = UInt8(ascii: "T"); two(secondOfDay / 3600, at: 11)
            text[13] = UInt8(ascii: ":"); two(secondOfDay / 60 % 60, at: 14)
            text[16] = UInt8(ascii: ":"); two(secondOfDay % 60, at: 17)
            text[19] = UInt8(ascii: "."); text[20] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: millis / 100)
            two(millis % 100, at: 21)
            text[23] = UInt8(ascii: "Z")
            bytes.append(contentsOf: text)
        }
    }

    /// `value` (0 ≤ value < 10^width) in exactly `width` decimal digits.
    private static func appendDigits(_ value: Int64, _ width: Int, _ bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor &*= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Year, month (1–12), day (1–31) of a day count since 1970-01-01 (|days| up to 10^15,
    /// beyond any date an `Int64` millisecond count can express).
    public static func civilDate(daysSince1970 days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (|year| up to 10^12).
    public static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Quotient rounded down and the non-negative remainder; cannot overflow (`divisor` > 1).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = value.quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }

    /// `value` in decimal, zero-padded to `width` digits after any minus sign.
    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        return value < 0 ? "-" + padded : padded
    }
}

extension Timestamp {
    /// Parses RFC 3339 / ISO 8601 date-times into milliseconds since 1970 (UTC).
    ///
    /// Accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, a space instead of `T`, and —
    /// when `assumeUTC` — no zone at all (`yyyy-MM-dd HH:mm:ss`, as OsmAnd clients send).
    /// Fractions beyond milliseconds are truncated. Returns nil for anything else, including
    /// impossible dates (month 13, February 30) and years outside 0000–9999.
    public static func parseRFC3339(_ text: some StringProtocol, assumeUTC: Bool = false) -> Int64? {
        var string = String(text)
        return string.withUTF8 { parseRFC3339(utf8: $0, assumeUTC: assumeUTC) }
    }

    /// `parseRFC3339` on UTF-8 bytes (no String needed: for streaming parsers).
    public static func parseRFC3339(utf8 b: UnsafeBufferPointer<UInt8>, assumeUTC: Bool = false) -> Int64? {
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2) else { return nil }
        guard i < b.count, b[i] == 84 || b[i] == 116 || b[i] == 32 else { return nil }
        i += 1
        guard let hour = digits(2), expect(58), let minute = digits(2), expect(58), let second = digits(2) else { return nil }
        var millis: Int64 = 0
        if i < b.count && (b[i] == 46 || b[i] == 44) {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if count < 3 { millis = millis * 10 + Int64(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in min(count, 3)..<3 { millis *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if i == b.count {
            guard assumeUTC else { return nil }
        } else if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign: Int64 = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = expect(58)
            guard let om = digits(2), oh < 24, om < 60 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second <= 60 else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetMinutes * 60
        return seconds * 1000 + millis
    }

    /// Days in `month` (1–12) of `year` (Gregorian leap rules).
    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
