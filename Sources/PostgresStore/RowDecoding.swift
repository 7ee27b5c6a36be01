import GeoKit
import PostgresClient
import Timestamps
import Tracking

extension PostgresValue {
    /// An id as stored: its raw text.
    static func id(_ id: some EntityID) -> PostgresValue { .text(id.rawValue) }
    static func id(_ id: (some EntityID)?) -> PostgresValue { id.map { .text($0.rawValue) } ?? .null }
    static func optional(_ text: String?) -> PostgresValue { text.map(PostgresValue.text) ?? .null }
    static func optional(_ number: Double?) -> PostgresValue { number.map(PostgresValue.double) ?? .null }
    static func int(_ number: Int) -> PostgresValue { .int64(Int64(number)) }
    /// A time as stored: a bigint of milliseconds since 1970 UTC.
    static func time(_ time: Timestamp) -> PostgresValue { .int64(time.millisecondsSince1970) }
}

extension Row {
    /// The id in text column `column`.
    func id<ID: EntityID>(_ column: Int, as type: ID.Type = ID.self) throws -> ID { ID(rawValue: try text(column)) }
    func optionalID<ID: EntityID>(_ column: Int, as type: ID.Type = ID.self) throws -> ID? {
        try optionalText(column).map(ID.init(rawValue:))
    }

    /// The time in bigint column `column` (milliseconds since 1970).
    func time(_ column: Int) throws -> Timestamp { Timestamp(millisecondsSince1970: try int64(column)) }

    /// The position in the double columns `longitudeColumn` (degrees east) and the one after it
    /// (degrees north).
    func position(_ longitudeColumn: Int) throws -> GeoPosition {
        GeoPosition(longitude: try double(longitudeColumn), latitude: try double(longitudeColumn + 1))
    }

    /// A `LastLocation` from three columns (lon, lat, ts) starting at `column`; nil when ts is NULL.
    func lastLocation(at column: Int) throws -> LastLocation? {
        guard let timestamp = try optionalInt64(column + 2) else { return nil }
        return LastLocation(position: try position(column), timestamp: Timestamp(millisecondsSince1970: timestamp))
    }
}

extension Connection {
    /// The rows of `sql`, each decoded by `decode`.
    func rows<T>(_ sql: String, _ parameters: [PostgresValue] = [], _ decode: (Row) throws -> T) throws -> [T] {
        try queryPrepared(sql, parameters).rows.map(decode)
    }

    /// The first row of `sql` decoded, or nil.
    func firstRow<T>(_ sql: String, _ parameters: [PostgresValue] = [], _ decode: (Row) throws -> T) throws -> T? {
        try queryPrepared(sql, parameters).first.map(decode)
    }

    /// Runs a statement; returns the rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int {
        try queryPrepared(sql, parameters).affectedRows
    }
}
