import SQLCore
import Storage

/// A SQLite connection inside a transaction, as `SQLCore`'s statements use it.
struct SQLiteExecutor: SQLExecutor {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    var storeIdentity: String { db.path }

    func rows<T>(_ sql: String, _ parameters: [SQLParameter], _ decode: (any SQLRow) throws -> T) throws -> [T] {
        // Rows are read first, then decoded (decoding may run other statements).
        let raw: [[SQLValue]] = try db.rows(sql, parameters.map(Self.value)) { statement in
            (0..<statement.columnCount).map { statement.value(Int32($0)) }
        }
        return try raw.map { try decode(SQLiteRow(values: $0)) }
    }

    func forEachRow(_ sql: String, _ parameters: [SQLParameter], _ body: (any SQLRow) throws -> Void) throws {
        try db.forEachRow(sql, parameters.map(Self.value)) { try body(SQLiteStatementRow(statement: $0)) }
    }

    @discardableResult
    func run(_ sql: String, _ parameters: [SQLParameter]) throws -> Int {
        try db.run(sql, parameters.map(Self.value))
    }

    static func value(_ parameter: SQLParameter) -> SQLValue {
        switch parameter {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .bool(let value): .integer(value ? 1 : 0)
        }
    }
}

/// One row read whole.
struct SQLiteRow: SQLRow {
    let values: [SQLValue]

    struct WrongType: Error {}

    private func value(_ column: Int) throws -> SQLValue {
        guard values.indices.contains(column) else { throw WrongType() }
        return values[column]
    }

    func isNull(_ column: Int) throws -> Bool { try value(column) == .null }
    func int64(_ column: Int) throws -> Int64 { try Self.int64(try value(column)) }
    func double(_ column: Int) throws -> Double { try Self.double(try value(column)) }
    func text(_ column: Int) throws -> String { try Self.text(try value(column)) }
    func bool(_ column: Int) throws -> Bool { try int64(column) != 0 }

    /// A value as an integer: an integer, or a real without a fraction within range.
    static func int64(_ value: SQLValue) throws -> Int64 {
        switch value {
        case .integer(let value): return value
        case .real(let value) where value == value.rounded() && abs(value) < 9e18: return Int64(value)
        default: throw WrongType()
        }
    }

    static func double(_ value: SQLValue) throws -> Double {
        switch value {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: throw WrongType()
        }
    }

    static func text(_ value: SQLValue) throws -> String {
        guard case .text(let value) = value else { throw WrongType() }
        return value
    }
}

/// The row a statement stands on, read in place (`SQLExecutor.forEachRow`): valid only until
/// the statement steps on. Types are checked as `SQLiteRow` checks them.
struct SQLiteStatementRow: SQLRow {
    let statement: Statement

    private func value(_ column: Int) throws -> SQLValue {
        guard column >= 0 && column < statement.columnCount else { throw SQLiteRow.WrongType() }
        return statement.value(Int32(column))
    }

    func isNull(_ column: Int) throws -> Bool { try value(column) == .null }
    func int64(_ column: Int) throws -> Int64 { try SQLiteRow.int64(try value(column)) }
    func double(_ column: Int) throws -> Double { try SQLiteRow.double(try value(column)) }
    func text(_ column: Int) throws -> String { try SQLiteRow.text(try value(column)) }
    func bool(_ column: Int) throws -> Bool { try int64(column) != 0 }
}

/// One-statement reads: a read of its own, as `readSQL`.
extension SQLiteBackend: SQLStatementReads {
    public func readSQLStatement<T>(_ body: (any SQLExecutor) throws -> T) throws -> T {
        try read { try body(SQLiteExecutor(db: $0)) }
    }
}
