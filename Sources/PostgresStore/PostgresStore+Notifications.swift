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

    /// A transaction of its own on one of `asideWriters` (`READ COMMITTED`; the commit returned
    /// means durable), run again when PostgreSQL aborts it as a whole (a deadlock, a
    /// serialization failure), as the group commit runs a batch again. The notification queue's
    /// transactions are short and lock only its own rows, several senders' at once: in the group
    /// commit each waited for the batch before it, appends and all, one statement at a time.
    public func writeSQLAside<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try asideWriters.withConnection { connection in
                    try connection.transaction(.readCommitted) { try body(PostgresExecutor(c: $0)) }
                }
            } catch let error as PostgresError where error.isRetryableTransaction && attempt < GroupCommitWriter.maxAttempts {
                attempt += 1
            } catch {
                throw Self.translate(error)
            }
        }
    }
}

/// Channels, alerts and deliveries: `SQLCore.NotificationTables`, written once for both stores.
extension PostgresStore: NotificationStore {}
