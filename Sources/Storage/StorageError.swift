/// The one error type of the Storage module.
///
/// `code` is SQLite's primary result code (e.g. 19 = constraint) and `message` its text; both are
/// for logs and mapping, never shown raw to clients.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let extendedCode: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// A UNIQUE, PRIMARY KEY, FOREIGN KEY or CHECK constraint failed.
    public var isConstraintViolation: Bool { code == 19 }
    /// A UNIQUE or PRIMARY KEY constraint failed (SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY).
    public var isUniqueViolation: Bool { extendedCode == 2067 || extendedCode == 1555 }
    /// The database was locked by another connection for longer than the busy timeout.
    public var isBusy: Bool { code == 5 || code == 6 }

    public var description: String {
        if let sql { return "SQLite error \(extendedCode): \(message) [\(sql)]" }
        return "SQLite error \(extendedCode): \(message)"
    }

    /// A misuse of the Storage API by the program (not a database failure).
    static func misuse(_ message: String) -> StorageError { StorageError(code: 21, message: message) }
}
