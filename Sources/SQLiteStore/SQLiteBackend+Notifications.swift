import SQLCore
import Storage
import Tracking

extension SQLiteBackend: SQLTransactions {
    public func readSQL<T>(_ body: (any SQLExecutor) throws -> T) throws -> T {
        try read { try body(SQLiteExecutor(db: $0)) }
    }

    public func writeSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await write { try body(SQLiteExecutor(db: $0)) }
    }

    public func writeSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T,
                                      completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        write({ try body(SQLiteExecutor(db: $0)) }, completion: completion)
    }
}

/// Channels, alerts and deliveries: `SQLCore.NotificationTables`, written once for both stores.
extension SQLiteBackend: NotificationStore {}
