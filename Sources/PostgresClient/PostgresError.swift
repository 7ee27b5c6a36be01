/// The one error type of PostgresClient: every failure of the server, of the connection or of
/// this client's own checks arrives as a `PostgresError` with a SQLSTATE, never as a trap.
///
/// `sqlState` is the server's code when the server sent one. Failures the client detects get
/// the standard code that describes them: `08001` (could not connect), `08006` (the connection
/// broke), `22004`/`22P02`/`42804`/`42703` (a column read as the wrong type, NULL or missing),
/// `53300` (no pooled connection free in time), `55000` (misuse of this API). `origin` says who
/// decided. `message` and `detail` are the server's words: for logs, never for clients.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// Who produced the error.
    public enum Origin: Sendable, Hashable {
        /// The server sent an ErrorResponse with this SQLSTATE.
        case server
        /// libpq found the connection unusable (could not connect, connection lost).
        case connection
        /// This client refused or could not decode something (no server round trip failed).
        case client
    }

    public let sqlState: SQLState
    public let origin: Origin
    public let message: String
    public let detail: String?
    public let hint: String?
    /// The constraint violated (for class 23), when the server named it.
    public let constraint: String?
    /// The table concerned, when the server named it.
    public let table: String?
    /// The statement that failed (its SQL text), when known.
    public let sql: String?
    /// In a pipeline, the 0-based index of the statement that failed.
    public let statementIndex: Int?

    public init(sqlState: SQLState, origin: Origin, message: String, detail: String? = nil, hint: String? = nil,
                constraint: String? = nil, table: String? = nil, sql: String? = nil, statementIndex: Int? = nil) {
        self.sqlState = sqlState
        self.origin = origin
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.table = table
        self.sql = sql
        self.statementIndex = statementIndex
    }

    /// The same error, attributed to statement `index` of a pipeline.
    func atStatement(_ index: Int) -> PostgresError {
        PostgresError(sqlState: sqlState, origin: origin, message: message, detail: detail, hint: hint,
                      constraint: constraint, table: table, sql: sql, statementIndex: index)
    }

    static func client(_ state: SQLState, _ message: String, sql: String? = nil) -> PostgresError {
        PostgresError(sqlState: state, origin: .client, message: message, sql: sql)
    }

    static func misuse(_ message: String) -> PostgresError { client(.objectNotInPrerequisiteState, message) }

    // MARK: Decisions callers make

    /// A UNIQUE or PRIMARY KEY constraint rejected the row (23505).
    public var isUniqueViolation: Bool { sqlState == .uniqueViolation }
    /// The transaction could not be serialized (40001): run it again.
    public var isSerializationFailure: Bool { sqlState == .serializationFailure }
    /// The transaction was chosen as a deadlock victim (40P01): run it again.
    public var isDeadlock: Bool { sqlState == .deadlockDetected }
    /// Running the whole transaction again may succeed (40001 or 40P01); nothing of it was kept.
    public var isRetryableTransaction: Bool { isSerializationFailure || isDeadlock }
    /// The connection is gone or was never made: class 08, or libpq found it bad, or the server
    /// terminated this session (57P01, 57P02). Nothing sent without a reply was acknowledged.
    public var isConnectionLost: Bool {
        sqlState.errorClass == "08" || origin == .connection || sqlState == .adminShutdown || sqlState == .crashShutdown
    }
    /// A write reached a read-only server or transaction (25006): after a failover, the old primary.
    public var isReadOnly: Bool { sqlState == .readOnlySQLTransaction }
    /// The server or an operator ended the session (57P01 admin shutdown, 57P02 crash shutdown).
    public var isAdminShutdown: Bool { sqlState == .adminShutdown || sqlState == .crashShutdown }
    /// The server's disk is full (53100).
    public var isDiskFull: Bool { sqlState == .diskFull }
    /// The database cannot serve this request right now but may soon: connection lost or refused,
    /// server starting or stopping, read-only (failover in progress), out of connections or space.
    /// An HTTP server answers these with 503.
    public var isUnavailable: Bool {
        isConnectionLost || isReadOnly || sqlState == .cannotConnectNow || sqlState == .tooManyConnections
            || sqlState == .diskFull || sqlState == .outOfMemory
    }

    public var description: String {
        var text = "PostgreSQL \(sqlState) (\(origin)): \(message)"
        if let detail { text += " — \(detail)" }
        if let statementIndex { text += " [pipeline statement \(statementIndex)]" }
        if let sql { text += " [\(sql.count > 200 ? String(sql.prefix(200)) + "…" : sql)]" }
        return text
    }
}
