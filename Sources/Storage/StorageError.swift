#if canImport(Glibc)
import Glibc
#endif

/// The one error type of the Storage module.
///
/// `code` is SQLite's primary result code (e.g. 19 = constraint) and `message` its text; both are
/// for logs and mapping, never shown raw to clients. `systemErrno` is the `errno` of the failed
/// system call behind an I/O error (`sqlite3_system_errno`), 0 when there was none.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let extendedCode: Int32
    public let message: String
    public let sql: String?
    public let systemErrno: Int32

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// A UNIQUE, PRIMARY KEY, FOREIGN KEY or CHECK constraint failed.
    public var isConstraintViolation: Bool { code == 19 }
    /// A UNIQUE or PRIMARY KEY constraint failed (SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY).
    public var isUniqueViolation: Bool { extendedCode == 2067 || extendedCode == 1555 }
    /// The database was locked by another connection for longer than the busy timeout.
    public var isBusy: Bool { code == 5 || code == 6 }

    /// A failure of the storage under the database rather than of the statement: the write did
    /// not happen, and the same request may well succeed once the condition is gone.
    public enum Fault: Sendable, Hashable {
        /// No space: SQLITE_FULL, or a write that failed with ENOSPC, EDQUOT or EFBIG (a file
        /// size limit, `RLIMIT_FSIZE`).
        case storageFull
        /// The database cannot be written: SQLITE_READONLY (the file, its directory or its
        /// filesystem was read-only when the connection opened it), or a write or open that
        /// failed with EROFS, EACCES or EPERM (e.g. the filesystem was remounted read-only).
        case readOnly
        /// Another connection held the lock for longer than the busy timeout.
        case busy
        /// Any other I/O error (SQLITE_IOERR: e.g. EIO from a failing disk).
        case ioError
    }

    /// Which storage fault this is, or nil for errors of the statement or the program.
    public var fault: Fault? {
        switch code {
        case 13: return .storageFull                      // SQLITE_FULL
        case 8: return .readOnly                          // SQLITE_READONLY (and its extended codes)
        case 5, 6: return .busy                           // SQLITE_BUSY, SQLITE_LOCKED
        case 10, 14:                                      // SQLITE_IOERR, SQLITE_CANTOPEN
            // SQLITE_IOERR_SHMSIZE: the shared-memory index could not grow (no space).
            if extendedCode == 4874 { return .storageFull }
            switch systemErrno {
            case ENOSPC, EDQUOT, EFBIG: return .storageFull
            case EROFS, EACCES, EPERM: return .readOnly
            default: return code == 10 ? .ioError : nil
            }
        default: return nil
        }
    }

    public var description: String {
        let errno = systemErrno != 0 ? " (errno \(systemErrno))" : ""
        if let sql { return "SQLite error \(extendedCode)\(errno): \(message) [\(sql)]" }
        return "SQLite error \(extendedCode)\(errno): \(message)"
    }

    /// A misuse of the Storage API by the program (not a database failure).
    static func misuse(_ message: String) -> StorageError { StorageError(code: 21, message: message) }
}
