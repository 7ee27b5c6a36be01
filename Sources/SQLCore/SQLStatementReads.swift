/// A store that also runs a read of one statement outside a snapshot: a single statement sees
/// one committed state anyway, and PostgreSQL spares the BEGIN and COMMIT round trips (SQLite
/// reads as `readSQL`). For the hot one-statement reads (sessions, partition facts, events).
public protocol SQLStatementReads: SQLTransactions {
    /// Runs `body`, which runs one statement.
    func readSQLStatement<T>(_ body: (any SQLExecutor) throws -> T) throws -> T
}
