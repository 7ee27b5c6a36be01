/// A PostgreSQL SQLSTATE: five characters, the first two naming the class (`23` integrity
/// constraint violation, `08` connection exception, …). See the PostgreSQL manual, appendix A.
///
/// The static members name the codes this package and its callers decide on; any other code
/// the server sends is kept as it came (`SQLState("22012")`).
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The class: the first two characters (`"23"` for `23505`).
    public var errorClass: Substring { rawValue.prefix(2) }
    public var description: String { rawValue }

    // Class 08: connection exception.
    public static let connectionException = SQLState("08000")
    /// The client could not establish a connection (libpq's connect failed).
    public static let unableToConnect = SQLState("08001")
    /// An established connection broke (the server closed it, the network failed).
    public static let connectionFailure = SQLState("08006")
    public static let protocolViolation = SQLState("08P01")

    // Class 22: data exception (also used for values this client cannot decode).
    public static let dataException = SQLState("22000")
    public static let numericValueOutOfRange = SQLState("22003")
    public static let nullValueNotAllowed = SQLState("22004")
    public static let invalidTextRepresentation = SQLState("22P02")

    // Class 23: integrity constraint violation.
    public static let notNullViolation = SQLState("23502")
    public static let foreignKeyViolation = SQLState("23503")
    public static let uniqueViolation = SQLState("23505")
    public static let checkViolation = SQLState("23514")

    // Class 25: invalid transaction state.
    public static let activeSQLTransaction = SQLState("25001")
    /// A write in a read-only transaction or on a hot standby (e.g. the old primary after a failover).
    public static let readOnlySQLTransaction = SQLState("25006")
    public static let inFailedSQLTransaction = SQLState("25P02")

    /// The prepared statement named does not exist (class 26).
    public static let invalidSQLStatementName = SQLState("26000")

    // Class 40: transaction rollback.
    public static let serializationFailure = SQLState("40001")
    public static let deadlockDetected = SQLState("40P01")

    // Class 42: syntax error or access rule violation.
    public static let syntaxError = SQLState("42601")
    public static let undefinedColumn = SQLState("42703")
    public static let undefinedTable = SQLState("42P01")
    public static let datatypeMismatch = SQLState("42804")

    // Class 53: insufficient resources.
    public static let diskFull = SQLState("53100")
    public static let outOfMemory = SQLState("53200")
    public static let tooManyConnections = SQLState("53300")

    // Class 55: object not in prerequisite state (also used for misuse of this client).
    public static let objectNotInPrerequisiteState = SQLState("55000")
    public static let lockNotAvailable = SQLState("55P03")

    // Class 57: operator intervention.
    public static let queryCanceled = SQLState("57014")
    /// The backend was terminated (`pg_terminate_backend`, or a fast/smart server shutdown).
    public static let adminShutdown = SQLState("57P01")
    public static let crashShutdown = SQLState("57P02")
    /// The server is starting up or shutting down, or is a standby not yet accepting connections.
    public static let cannotConnectNow = SQLState("57P03")
    public static let idleSessionTimeout = SQLState("57P05")

    /// An error without a code of its own (class XX).
    public static let internalError = SQLState("XX000")
}
