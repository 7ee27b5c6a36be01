import GeoKit
import Timestamps
import Tracking

// Model values cross into either store here, the same on both: an id is its raw text, a time a
// 64-bit integer of milliseconds since 1970 UTC, a position two double columns of degrees
// (longitude first).

extension SQLParameter {
    /// An id as stored: its raw text.
    public static func id(_ id: some EntityID) -> SQLParameter { .text(id.rawValue) }
    /// An id as stored, or NULL.
    public static func id(_ id: (some EntityID)?) -> SQLParameter { id.map { .text($0.rawValue) } ?? .null }
    /// A time as stored: milliseconds since 1970.
    public static func time(_ time: Timestamp) -> SQLParameter { .integer(time.millisecondsSince1970) }
    public static func int(_ number: Int) -> SQLParameter { .integer(Int64(number)) }
}

extension SQLRow {
    /// The id in text column `column`.
    public func id<ID: EntityID>(_ column: Int, as type: ID.Type = ID.self) throws -> ID { ID(rawValue: try text(column)) }
    /// The id in text column `column`, nil when NULL.
    public func optionalID<ID: EntityID>(_ column: Int, as type: ID.Type = ID.self) throws -> ID? {
        try optionalText(column).map(ID.init(rawValue:))
    }

    /// The time in integer column `column` (milliseconds since 1970).
    public func time(_ column: Int) throws -> Timestamp { Timestamp(millisecondsSince1970: try int64(column)) }

    /// The position in the double columns `longitudeColumn` (degrees east) and the one after it
    /// (degrees north).
    public func position(_ longitudeColumn: Int) throws -> GeoPosition {
        GeoPosition(longitude: try double(longitudeColumn), latitude: try double(longitudeColumn + 1))
    }
}
