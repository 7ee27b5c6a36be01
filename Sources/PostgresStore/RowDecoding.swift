import PostgresClient
import Tracking

extension PostgresValue {
    /// An id as stored: its raw text.
    static func id(_ id: some EntityID) -> PostgresValue { .text(id.rawValue) }
    static func id(_ id: (some EntityID)?) -> PostgresValue { id.map { .text($0.rawValue) } ?? .null }
    static func optional(_ number: Double?) -> PostgresValue { number.map(PostgresValue.double) ?? .null }
    static func int(_ number: Int) -> PostgresValue { .int64(Int64(number)) }
}

extension Row {
    /// The id in text column `column`.
    func id<ID: EntityID>(_ column: Int, as type: ID.Type = ID.self) throws -> ID { ID(rawValue: try text(column)) }
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
