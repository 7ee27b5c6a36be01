/// What statements written once for both stores run on: a connection inside a transaction of
/// either store, seen through a neutral dialect (the "one SQL core"). A statement is written with
/// `?` placeholders; an executor on PostgreSQL numbers them (`SQLDialect.statement`).
public protocol SQLExecutor {
    var dialect: SQLDialect { get }
    /// Which database the connection is on (a file's path, or PostgreSQL's `host:port/dbname`):
    /// for caches of what one database holds, when a process opens several.
    var storeIdentity: String { get }
    /// The rows of `sql`, each decoded by `decode` (all read before `decode` runs, so it may
    /// run further statements).
    func rows<T>(_ sql: String, _ parameters: [SQLParameter], _ decode: (any SQLRow) throws -> T) throws -> [T]
    /// Hands each row of `sql` to `body` as it is read, keeping none: for long reads (exports).
    /// `body` must run no statement on this executor, and must not keep the row.
    func forEachRow(_ sql: String, _ parameters: [SQLParameter], _ body: (any SQLRow) throws -> Void) throws
    /// Runs a statement; returns the rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLParameter]) throws -> Int
}

extension SQLExecutor {
    /// The first row of `sql` decoded, or nil.
    public func firstRow<T>(_ sql: String, _ parameters: [SQLParameter], _ decode: (any SQLRow) throws -> T) throws -> T? {
        try rows(sql, parameters, decode).first
    }
}

/// A statement parameter, bound as each store's own type.
public enum SQLParameter: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bool(Bool)

    public static func optional(_ value: String?) -> SQLParameter { value.map(SQLParameter.text) ?? .null }
    public static func optional(_ value: Int64?) -> SQLParameter { value.map(SQLParameter.integer) ?? .null }
    public static func optional(_ value: Double?) -> SQLParameter { value.map(SQLParameter.real) ?? .null }
}

/// One result row, columns counted from 0. Accessors throw on a value of another type (a
/// store's fault, never a client's).
public protocol SQLRow {
    func isNull(_ column: Int) throws -> Bool
    func int64(_ column: Int) throws -> Int64
    func double(_ column: Int) throws -> Double
    func text(_ column: Int) throws -> String
    func bool(_ column: Int) throws -> Bool
}

extension SQLRow {
    public func optionalInt64(_ column: Int) throws -> Int64? { try isNull(column) ? nil : int64(column) }
    public func optionalDouble(_ column: Int) throws -> Double? { try isNull(column) ? nil : double(column) }
    public func optionalText(_ column: Int) throws -> String? { try isNull(column) ? nil : text(column) }
    public func int(_ column: Int) throws -> Int { Int(truncatingIfNeeded: try int64(column)) }
}

/// Where the two stores' SQL differs.
public enum SQLDialect: Sendable {
    case sqlite, postgres

    /// `sql` with its `?` placeholders as the dialect writes them (`$1`, `$2`, … for
    /// PostgreSQL). A `?` inside a quoted literal is left alone.
    public func statement(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        // Bytes, not characters: `?` and `'` are ASCII, and a UTF-8 byte below 0x80 is never
        // part of another character (this runs for every statement on PostgreSQL's paths).
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quoted = false
        for byte in sql.utf8 {
            if byte == UInt8(ascii: "'") { quoted.toggle() }
            if byte == UInt8(ascii: "?") && !quoted {
                number += 1
                out.append(UInt8(ascii: "$"))
                out += String(number).utf8
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The table of stored fixes (`device_key`, `ts`, `seq`, `lon`, `lat`, `accuracy`, …: the same
    /// columns on both stores; only its name differs).
    public var fixesTable: String { self == .postgres ? "fixes" : "locations" }

    /// The function that gives the greater of its arguments (`max` is SQLite's scalar one).
    public var greatest: String { self == .postgres ? "greatest" : "max" }

    /// Appended to a text column in `ORDER BY` to order it bytewise (SQLite's default already).
    public var bytewise: String { self == .postgres ? " COLLATE \"C\"" : "" }

    /// Appended to a `SELECT` that picks rows of `table` (an alias) to change in a transaction
    /// on a database many nodes share, so that each row goes to one node (nothing on SQLite:
    /// one writer).
    public func lockSkippingLocked(table: String) -> String { self == .postgres ? " FOR UPDATE OF \(table) SKIP LOCKED" : "" }

    /// Appended to a `SELECT` of a row the transaction will update, so that concurrent
    /// transactions on other nodes wait for it.
    public var lockForUpdate: String { self == .postgres ? " FOR UPDATE" : "" }
}
