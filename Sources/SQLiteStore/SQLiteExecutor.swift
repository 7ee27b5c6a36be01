import SQLCore
import Storage

/// A SQLite connection inside a transaction, as `SQLCore`'s statements use it.
struct SQLiteExecutor: SQLExecutor {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func rows<T>(_ sql: String, _ parameters: [SQLParameter], _ decode: (any SQLRow) throws -> T) throws -> [T] {
        // Rows are read first, then decoded (decoding may run other statements).
        let raw: [[SQLValue]] = try db.rows(sql, parameters.map(Self.value)) { statement in
            (0..<statement.columnCount).map { statement.value(Int32($0)) }
        }
        return try raw.map { try decode(SQLiteRow(values: $0)) }
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

    func int64(_ column: Int) throws -> Int64 {
        switch try value(column) {
        case .integer(let value): return value
        case .real(let value) where value == value.rounded() && abs(value) < 9e18: return Int64(value)
        default: throw WrongType()
        }
    }

    func double(_ column: Int) throws -> Double {
        switch try value(column) {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: throw WrongType()
        }
    }

    func text(_ column: Int) throws -> String {
        guard case .text(let value) = try value(column) else { throw WrongType() }
        return value
    }

    func bool(_ column: Int) throws -> Bool { try int64(column) != 0 }
}

/// One-statement reads: a read of its own, as `readSQL`.
extension SQLiteBackend: SQLStatementReads {
    public func readSQLStatement<T>(_ body: (any SQLExecutor) throws -> T) throws -> T {
        try read { try body(SQLiteExecutor(db: $0)) }
    }
}
