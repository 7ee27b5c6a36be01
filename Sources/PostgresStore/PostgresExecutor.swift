import PostgresClient
import SQLCore

/// A PostgreSQL connection inside a transaction, as `SQLCore`'s statements use it (`?`
/// placeholders numbered here).
struct PostgresExecutor: SQLExecutor {
    let c: Connection

    var dialect: SQLDialect { .postgres }

    var storeIdentity: String { c.databaseIdentity }

    func rows<T>(_ sql: String, _ parameters: [SQLParameter], _ decode: (any SQLRow) throws -> T) throws -> [T] {
        try c.queryPrepared(dialect.statement(sql), parameters.map(Self.value)).rows.map { try decode(PostgresSQLRow(row: $0)) }
    }

    func forEachRow(_ sql: String, _ parameters: [SQLParameter], _ body: (any SQLRow) throws -> Void) throws {
        for row in try c.queryPrepared(dialect.statement(sql), parameters.map(Self.value)).rows { try body(PostgresSQLRow(row: row)) }
    }

    @discardableResult
    func run(_ sql: String, _ parameters: [SQLParameter]) throws -> Int {
        try c.queryPrepared(dialect.statement(sql), parameters.map(Self.value)).affectedRows
    }

    static func value(_ parameter: SQLParameter) -> PostgresValue {
        switch parameter {
        case .null: .null
        case .integer(let value): .int64(value)
        case .real(let value): .double(value)
        case .text(let value): .text(value)
        case .bool(let value): .bool(value)
        }
    }
}

struct PostgresSQLRow: SQLRow {
    let row: Row
    func isNull(_ column: Int) throws -> Bool { try row.isNull(column) }
    func int64(_ column: Int) throws -> Int64 { try row.int64(column) }
    func double(_ column: Int) throws -> Double { try row.double(column) }
    func text(_ column: Int) throws -> String { try row.text(column) }
    func bool(_ column: Int) throws -> Bool { try row.bool(column) }
}

/// One-statement reads: on a reader's connection without a transaction (no BEGIN and COMMIT).
extension PostgresStore: SQLStatementReads {
    public func readSQLStatement<T>(_ body: (any SQLExecutor) throws -> T) throws -> T {
        try read { try body(PostgresExecutor(c: $0)) }
    }
}
