import Storage
import Timestamps

// Times cross into SQLite here: an INTEGER column of milliseconds since 1970 UTC.

extension SQLValue {
    /// A time as stored: milliseconds since 1970.
    static func time(_ time: Timestamp) -> SQLValue { .integer(time.millisecondsSince1970) }
}

extension Statement {
    /// The time in integer column `column` (milliseconds since 1970).
    func time(_ column: Int32) -> Timestamp { Timestamp(millisecondsSince1970: int64(column)) }
}
