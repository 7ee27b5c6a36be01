import CSQLite
import CSQLiteLog

/// One SQLite connection; the only owner of its `sqlite3` handle, closed in `deinit`.
///
/// Not thread-safe: a `Database` is used by one thread at a time (the writer thread, or whoever
/// holds it from the reader pool). Prepared statements are cached per connection by SQL text.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var cache: [String: Statement] = [:]
    /// The context of the WAL commit hook (`observeWALCommits`), kept as long as the handle.
    var walHook: AnyObject?

    /// How long a statement waits for a lock held by another connection (milliseconds).
    public static let busyTimeoutMilliseconds: Int32 = 5_000

    /// How a connection is opened.
    public enum Mode: Sendable { case readWrite, readOnly }

    /// Opens (creating if needed, in `.readWrite`) the database file at `path`.
    ///
    /// Every connection gets WAL journaling, foreign keys on, a 5 s busy timeout, and `synchronous`
    /// as given (`FULL` makes every commit durable against power loss, `NORMAL` against a crash of
    /// the process).
    public init(path: String, mode: Mode = .readWrite, synchronous: Synchronous = .full) throws(StorageError) {
        _ = Self.processSetup
        var db: OpaquePointer?
        let flags = (mode == .readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX
        // A connection that may write and syncs every commit gathers its log writes
        // (`fod_sqlite_register_gathering_vfs`: one write per commit instead of two per page).
        let gathers = mode == .readWrite && synchronous == .full && Self.gatheringVFSRegistered
        let rc = sqlite3_open_v2(path, &db, flags, gathers ? FOD_GATHERING_VFS_NAME : nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            if let db { sqlite3_close_v2(db) }
            throw StorageError(code: rc & 0xff, extendedCode: rc, message: "\(message) (\(path))", systemErrno: systemErrno)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
        if mode == .readWrite {
            try execute("PRAGMA journal_mode=WAL")
        }
        try execute("PRAGMA synchronous=\(synchronous.rawValue)")
        try execute("PRAGMA foreign_keys=ON")
        try execute("PRAGMA temp_store=MEMORY")
    }

    /// Once per process, before the first connection: no memory statistics (nothing reads
    /// them, and they serialize every allocation of every connection on one mutex).
    private static let processSetup: Void = {
        _ = fod_sqlite_disable_memory_statistics()
    }()

    /// Whether the VFS that gathers log writes is registered (once per process).
    private static let gatheringVFSRegistered: Bool = {
        _ = processSetup
        return fod_sqlite_register_gathering_vfs() == SQLITE_OK
    }()

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// SQLite's `synchronous` setting for WAL mode.
    public enum Synchronous: String, Sendable { case full = "FULL", normal = "NORMAL" }

    /// Runs one or more SQL statements without parameters or results.
    public func execute(_ sql: String) throws(StorageError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw StorageError(code: rc & 0xff, extendedCode: rc, message: message, sql: sql,
                               systemErrno: systemErrno(rc))
        }
    }

    /// The cached prepared statement for `sql`, reset and with no bindings.
    public func prepare(_ sql: String) throws(StorageError) -> Statement {
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs a statement with `arguments` and returns the number of changed rows.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StorageError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.run()
    }

    /// Runs a query and calls `row` for each result row (the statement is positioned on it).
    public func forEachRow(_ sql: String, _ arguments: [SQLValue] = [],
                           _ row: (Statement) throws -> Void) throws {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() { try row(statement) }
    }

    /// Runs a query and maps each row.
    public func rows<T>(_ sql: String, _ arguments: [SQLValue] = [],
                        _ map: (Statement) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEachRow(sql, arguments) { result.append(try map($0)) }
        return result
    }

    /// Runs a query and maps its first row, if any.
    public func firstRow<T>(_ sql: String, _ arguments: [SQLValue] = [],
                            _ map: (Statement) throws -> T) throws -> T? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return try map(statement)
    }

    /// Whether this connection cannot write: opened `.readOnly`, or opened read-write on a file
    /// that was not writable then (SQLite falls back to read-only and stays so; only a new
    /// connection can write once the file is writable again).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Whether a transaction is open. SQLite may roll a whole transaction back by itself when a
    /// statement fails with SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM or SQLITE_BUSY; after such
    /// a failure this tells whether the earlier statements of the transaction still stand.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The rowid of the most recent successful insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` … `COMMIT`, rolled back on a throw).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    func error(_ rc: Int32, sql: String?) -> StorageError {
        let extended = sqlite3_extended_errcode(handle)
        return StorageError(code: rc & 0xff, extendedCode: extended,
                            message: String(cString: sqlite3_errmsg(handle)), sql: sql,
                            systemErrno: systemErrno(extended))
    }

    /// The errno behind a failure with result code `rc`: for an I/O error, the last failed call
    /// on the log or database file (the failure that just happened, unless that file kept an
    /// older one); for a failed open, SQLite's own record; else 0.
    private func systemErrno(_ rc: Int32) -> Int32 {
        switch rc & 0xff {
        case SQLITE_IOERR: fod_sqlite_file_errno(handle)
        case SQLITE_CANTOPEN: sqlite3_system_errno(handle)
        default: 0
        }
    }
}
