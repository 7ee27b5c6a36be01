import GeoKit
import Storage
import Timestamps

// Model values cross into SQLite here: times are INTEGER milliseconds since 1970 UTC, positions
// two REAL columns of degrees (longitude first).

extension SQLValue {
    /// A time as stored: milliseconds since 1970.
    static func time(_ time: Timestamp) -> SQLValue { .integer(time.millisecondsSince1970) }
}

extension Statement {
    /// The time in integer column `column` (milliseconds since 1970).
    func time(_ column: Int32) -> Timestamp { Timestamp(millisecondsSince1970: int64(column)) }

    /// The position in the real columns `longitudeColumn` (degrees east) and the one after it
    /// (degrees north).
    func position(_ longitudeColumn: Int32) -> GeoPosition {
        GeoPosition(longitude: double(longitudeColumn), latitude: double(longitudeColumn + 1))
    }
}
