import Timestamps

/// `Retry-After` (RFC 9110 §10.2.3): delta-seconds or an HTTP date (IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`).
public enum RetryAfter {
    /// Most seconds honoured (a day): a receiver cannot park a delivery for longer.
    public static let maxSeconds = 86_400

    /// Seconds from `now` (ms since 1970) the value asks to wait (≥ 0, ≤ `maxSeconds`), nil
    /// when it is neither form.
    public static func seconds(_ value: String, now: Int64) -> Int? {
        let bytes = Array(value.utf8)
        if !bytes.isEmpty, bytes.count <= 10, bytes.allSatisfy({ (48...57).contains($0) }) {
            let seconds = bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
            return min(seconds, maxSeconds)
        }
        guard let date = httpDate(bytes) else { return nil }
        let delta = (date - now) / 1_000
        return Int(max(0, min(Int64(maxSeconds), delta)))
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// ms since 1970 of an IMF-fixdate.
    static func httpDate(_ b: [UInt8]) -> Int64? {
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes.
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32,
              b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 32,
              String(decoding: b[26...28], as: UTF8.self) == "GMT" else { return nil }
        func number(_ range: ClosedRange<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard (48...57).contains(b[index]) else { return nil }
                value = value * 10 + Int64(b[index] - 48)
            }
            return value
        }
        guard let day = number(5...6), let year = number(12...15), let hour = number(17...18), let minute = number(20...21),
              let second = number(23...24), let monthIndex = months.firstIndex(of: String(decoding: b[8...10], as: UTF8.self)),
              (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = Timestamp.daysSince1970(year: year, month: Int64(monthIndex + 1), day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000
    }
}
