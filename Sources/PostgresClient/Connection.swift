import CLibPQ

/// One session with a PostgreSQL server; the only owner of its `PGconn` (freed in `deinit`).
///
/// Not thread-safe: one thread uses a connection at a time (libpq's rule for a `PGconn`).
/// Share connections between threads through `ConnectionPool`. Every call blocks until the
/// server answers; set `connect_timeout` in the connection string to bound connecting.
///
/// The connection string is libpq's, passed through unchanged: `key=value` pairs or a
/// `postgresql://` URI, including multi-host URIs such as
/// `postgresql://db1:5432,db2:5432/fod?target_session_attrs=read-write`, with which libpq tries
/// the hosts in order and keeps the first that accepts writes (the primary after a failover).
public final class Connection {
    let handle: OpaquePointer
    /// Named prepared statements of this session (see `queryPrepared`).
    var preparedStatements = PreparedStatementCache()

    /// Connects; throws `08001` (origin `.connection`) when no server accepted the connection.
    public init(_ connectionString: String) throws(PostgresError) {
        guard let handle = PQconnectdb(connectionString) else {
            throw PostgresError(sqlState: .outOfMemory, origin: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Connection.message(of: handle)
            PQfinish(handle)
            throw PostgresError(sqlState: .unableToConnect, origin: .connection, message: message)
        }
        self.handle = handle
        try configureSession()
    }

    deinit { PQfinish(handle) }

    /// Which database the session is on (`host:port/dbname`, no credentials): for caches of
    /// what one database holds, when a process talks to several.
    public var databaseIdentity: String {
        func text(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        return "\(text(PQhost(handle))):\(text(PQport(handle)))/\(text(PQdb(handle)))"
    }

    /// The state of the connection as libpq last saw it: `.bad` once the server closed it or
    /// the network failed (found by the last call that touched the socket).
    public enum Status: Sendable { case ok, bad }

    public var status: Status { PQstatus(handle) == CONNECTION_OK ? .ok : .bad }

    /// Where the session is with respect to transactions.
    public enum TransactionStatus: Sendable {
        /// No transaction open.
        case idle
        /// A command is running.
        case active
        /// Inside a transaction block (after `BEGIN`).
        case inTransaction
        /// Inside a failed transaction block: only `ROLLBACK` will be accepted.
        case failedTransaction
        /// The connection is bad.
        case unknown
    }

    public var transactionStatus: TransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .failedTransaction
        default: return .unknown
        }
    }

    /// The server process serving this session (`pg_backend_pid()`).
    public var backendPID: Int32 { PQbackendPID(handle) }
    /// The server's version as a number, e.g. 150020 for 15.20.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }
    /// The host and port of the server this session reached (one of a multi-host list).
    public var host: String { PQhost(handle).map { String(cString: $0) } ?? "" }
    public var port: String { PQport(handle).map { String(cString: $0) } ?? "" }

    /// A parameter the server reports on every change, e.g. `in_hot_standby` (`on` on a
    /// replica), `default_transaction_read_only`, `server_version`, `TimeZone`.
    public func parameter(_ name: String) -> String? {
        PQparameterStatus(handle, name).map { String(cString: $0) }
    }

    /// Closes the session and opens a new one with the same connection string (libpq tries
    /// every host again, so after a failover it reaches the new primary). Prepared statements,
    /// `LISTEN`s, session settings and advisory locks of the old session are gone.
    public func reset() throws(PostgresError) {
        preparedStatements.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(sqlState: .unableToConnect, origin: .connection, message: Connection.message(of: handle))
        }
        try configureSession()
    }

    /// UTF-8 for all text, and no NOTICE lines on standard error.
    private func configureSession() throws(PostgresError) {
        fod_pq_silence_notices(handle)
        try check(PQsetClientEncoding(handle, "UTF8") == 0, "setting client_encoding to UTF8")
    }

    // MARK: Simple queries

    /// Runs `sql` with the simple query protocol: no parameters, but several statements
    /// separated by semicolons are allowed (schema scripts). Returns the last statement's result.
    @discardableResult
    public func execute(_ sql: String) throws(PostgresError) -> QueryResult {
        try check(PQexec(handle, sql), sql: sql)
    }

    /// Runs one statement with `parameters` (`$1`, `$2`, …), unprepared (`PQexecParams`).
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = [], format: ResultFormat = .text) throws(PostgresError) -> QueryResult {
        let encoded = try EncodedParameters(parameters)
        let result = encoded.types.withUnsafeBufferPointer { types in
            encoded.withPointers { values, lengths, formats in
                PQexecParams(handle, sql, encoded.count, types.baseAddress, values, lengths, formats, format.code)
            }
        }
        return try check(result, sql: sql)
    }

    /// `SELECT pg_notify(channel, payload)`: delivered to listeners when the surrounding
    /// transaction commits (at once outside a transaction), in commit order.
    public func notify(channel: String, payload: String = "") throws(PostgresError) {
        try queryPrepared("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    // MARK: The one check

    /// Turns a libpq result into a `QueryResult`, or the error it carries into a `PostgresError`.
    /// Every `PGresult` this module receives passes here.
    func check(_ result: OpaquePointer?, sql: String?) throws(PostgresError) -> QueryResult {
        guard let result else { throw failure(sql: sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_SINGLE_TUPLE, PGRES_PIPELINE_SYNC:
            return QueryResult(handle: result, sql: sql)
        case PGRES_PIPELINE_ABORTED:
            PQclear(result)
            throw PostgresError(sqlState: .inFailedSQLTransaction, origin: .server,
                                message: "not run: an earlier statement of the pipeline failed", sql: sql)
        default:
            let error = self.error(from: result, sql: sql)
            PQclear(result)
            throw error
        }
    }

    /// Throws unless a libpq call that reports success as a flag succeeded. Every such call
    /// (`PQsendQueryParams`, `PQputCopyData`, `PQflush`, `PQconsumeInput`, …) passes here.
    func check(_ succeeded: Bool, _ operation: String, sql: String? = nil) throws(PostgresError) {
        if !succeeded { throw failure(operation, sql: sql) }
    }

    /// The error the connection reports now (`PQerrorMessage`): a lost connection when libpq
    /// found it bad, a misuse of the API otherwise.
    func failure(_ operation: String? = nil, sql: String?) -> PostgresError {
        var message = Connection.message(of: handle)
        if let operation { message = message.isEmpty ? "\(operation) failed" : "\(operation): \(message)" }
        if PQstatus(handle) != CONNECTION_OK {
            return PostgresError(sqlState: .connectionFailure, origin: .connection, message: message, sql: sql)
        }
        return PostgresError(sqlState: .objectNotInPrerequisiteState, origin: .client, message: message, sql: sql)
    }

    private func error(from result: OpaquePointer, sql: String?) -> PostgresError {
        func field(_ code: Int32) -> String? { PQresultErrorField(result, code).map { String(cString: $0) } }
        let primary = field(fod_pq_diag_message_primary()) ?? Connection.trimmed(String(cString: PQresultErrorMessage(result)))
        guard let state = field(fod_pq_diag_sqlstate()) else {
            // libpq made this error itself (no server code): the connection broke, or worse.
            let lost = PQstatus(handle) != CONNECTION_OK
            return PostgresError(sqlState: lost ? .connectionFailure : .internalError, origin: lost ? .connection : .client,
                                 message: primary.isEmpty ? Connection.message(of: handle) : primary, sql: sql)
        }
        return PostgresError(sqlState: SQLState(state), origin: .server, message: primary,
                             detail: field(fod_pq_diag_message_detail()), hint: field(fod_pq_diag_message_hint()),
                             constraint: field(fod_pq_diag_constraint_name()), table: field(fod_pq_diag_table_name()), sql: sql)
    }

    private static func message(of handle: OpaquePointer) -> String {
        trimmed(PQerrorMessage(handle).map { String(cString: $0) } ?? "")
    }

    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
