import PostgresClient
import SQLCore
import Tracking

extension PostgresStore: SQLTransactions {
    public func readSQL<T>(_ body: (any SQLExecutor) throws -> T) throws -> T {
        try readSnapshot { try body(PostgresExecutor(c: $0)) }
    }

    public func writeSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await write { try body(PostgresExecutor(c: $0)) }
    }

    public func writeSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T,
                                      completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        write({ try body(PostgresExecutor(c: $0)) }, completion: completion)
    }
}

/// Channels, alerts and deliveries: `SQLCore.NotificationTables`, written once for both stores.
extension PostgresStore: NotificationStore {}
