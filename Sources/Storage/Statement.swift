import CSQLite

/// A prepared statement; the only owner of its `sqlite3_stmt`.
///
/// Not thread-safe: it belongs to one `Database`, which is used by one thread at a time.
/// Parameter indexes are 1-based (as in SQLite), column indexes 0-based.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws(StorageError) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw database.error(rc, sql: sql)
        }
        self.handle = stmt
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears bindings and resets the statement so it can run again.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding

    public func bind(_ value: Int64, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }
    public func bind(_ value: Int, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, Int64(value)))
    }
    public func bind(_ value: Double, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_double(handle, index, value))
    }
    public func bind(_ value: Bool, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }
    public func bind(_ value: String, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_text(handle, index, value, -1, fod_sqlite_transient()))
    }
    public func bind(_ value: [UInt8], at index: Int32) throws(StorageError) {
        let rc = value.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), fod_sqlite_transient())
        }
        try check(rc)
    }
    public func bind(_ value: Double?, at index: Int32) throws(StorageError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }
    public func bind(_ value: String?, at index: Int32) throws(StorageError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }
    public func bindNull(at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_null(handle, index))
    }
    public func bind(_ value: SQLValue, at index: Int32) throws(StorageError) {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        }
    }
    /// Binds `values` to parameters 1...n.
    public func bind(_ values: [SQLValue]) throws(StorageError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    // MARK: Stepping

    /// Steps once; returns true when a row is available, false when done.
    public func step() throws(StorageError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs to completion and returns the number of rows changed.
    @discardableResult
    public func run() throws(StorageError) -> Int {
        defer { reset() }
        while try step() {}
        return Int(sqlite3_changes(database.handle))
    }

    // MARK: Columns of the current row

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
    public func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    public func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    /// Calls `body` with the UTF-8 bytes of a text column (empty for NULL); the bytes are valid
    /// only inside `body` (do not let them escape).
    public func withText<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        guard let text = sqlite3_column_text(handle, column) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))))
    }
    /// Columns of the statement's result.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// A column of the current row as the value SQLite stored.
    public func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(int64(column))
        case SQLITE_FLOAT: .real(double(column))
        case SQLITE_TEXT: .text(string(column))
        case SQLITE_BLOB: .blob(blob(column))
        default: .null
        }
    }
    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func check(_ rc: Int32) throws(StorageError) {
        if rc != SQLITE_OK { throw database.error(rc, sql: sql) }
    }
}

/// A value to bind to a statement parameter.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public static func int(_ v: Int) -> SQLValue { .integer(Int64(v)) }
    public static func bool(_ v: Bool) -> SQLValue { .integer(v ? 1 : 0) }
    public static func optional(_ v: String?) -> SQLValue { v.map { .text($0) } ?? .null }
    public static func optional(_ v: Double?) -> SQLValue { v.map { .real($0) } ?? .null }
    public static func optional(_ v: Int64?) -> SQLValue { v.map { .integer($0) } ?? .null }
}
