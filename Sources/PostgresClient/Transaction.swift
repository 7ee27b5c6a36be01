/// A transaction's isolation level (PostgreSQL's manual, "Transaction Isolation").
public enum IsolationLevel: Sendable {
    /// Each statement sees what was committed before it started (PostgreSQL's default).
    case readCommitted
    /// The whole transaction sees one snapshot; a concurrent update of the same row fails with
    /// `40001`.
    case repeatableRead
    /// As if transactions ran one after another; conflicts fail with `40001`.
    case serializable

    var sql: String {
        switch self {
        case .readCommitted: return "READ COMMITTED"
        case .repeatableRead: return "REPEATABLE READ"
        case .serializable: return "SERIALIZABLE"
        }
    }
}

/// How PostgreSQL plans a transaction's prepared statements (`plan_cache_mode`).
public enum PlanCaching: Sendable {
    /// PostgreSQL's default: a custom plan per execution until a generic one looks as cheap.
    case automatic
    /// One generic plan per prepared statement (`force_generic_plan`): no planning per
    /// execution, for statements whose best plan does not depend on their values.
    case generic
}

extension Connection {
    /// Runs `body` inside `BEGIN … COMMIT`; rolls back and rethrows when `body` throws.
    ///
    /// Throws `body`'s own error or a `PostgresError`. A transaction that failed inside `body`
    /// (a statement error caught there) cannot commit: PostgreSQL answers `COMMIT` with
    /// `ROLLBACK`, which this reports as `25P02` rather than as success. With
    /// `.repeatableRead` or `.serializable`, check `isRetryableTransaction` and run the whole
    /// call again. Transactions do not nest: calling this inside one throws `25001`.
    @discardableResult
    public func transaction<T>(_ isolation: IsolationLevel = .readCommitted, readOnly: Bool = false, planning: PlanCaching = .automatic,
                               _ body: (Connection) throws -> T) throws -> T {
        try begin(isolation, readOnly: readOnly, planning: planning)
        let value: T
        do {
            value = try body(self)
        } catch {
            try? rollback()
            throw error
        }
        try commit()
        return value
    }

    /// `transaction(_:readOnly:planning:_:)` whose first statement, `sql` with `parameters`, is
    /// sent with the `BEGIN` in one pipeline (one round trip for both); `body` gets its result.
    @discardableResult
    public func transaction<T>(_ isolation: IsolationLevel = .readCommitted, readOnly: Bool = false, planning: PlanCaching = .automatic,
                               opening sql: String, _ parameters: [PostgresValue] = [], format: ResultFormat = .text,
                               _ body: (Connection, QueryResult) throws -> T) throws -> T {
        guard transactionStatus == .idle else {
            throw PostgresError.client(.activeSQLTransaction, "a transaction is already open on this connection")
        }
        let value: T
        do {
            let results = try pipeline { pipeline in
                try pipeline.append(Self.beginSQL(isolation, readOnly: readOnly))
                if planning == .generic { try pipeline.append(Self.genericPlanningSQL) }
                try pipeline.append(sql, parameters, format: format)
            }
            guard let opening = results.last else { throw PostgresError.misuse("the opening statement returned no result") }
            value = try body(self, opening)
        } catch {
            try? rollback()
            throw error
        }
        try commit()
        return value
    }

    static func beginSQL(_ isolation: IsolationLevel, readOnly: Bool) -> String {
        "BEGIN ISOLATION LEVEL \(isolation.sql)\(readOnly ? " READ ONLY" : "")"
    }

    static let genericPlanningSQL = "SET LOCAL plan_cache_mode = force_generic_plan"

    /// `BEGIN ISOLATION LEVEL …`; throws `25001` when a transaction is already open.
    /// With `.generic` planning, the setting is sent with the `BEGIN` (one round trip) and
    /// ends with the transaction.
    public func begin(_ isolation: IsolationLevel = .readCommitted, readOnly: Bool = false,
                      planning: PlanCaching = .automatic) throws(PostgresError) {
        guard transactionStatus == .idle else {
            throw .client(.activeSQLTransaction, "a transaction is already open on this connection")
        }
        let begin = Self.beginSQL(isolation, readOnly: readOnly)
        switch planning {
        case .automatic: try queryPrepared(begin)
        case .generic: try execute(begin + "; " + Self.genericPlanningSQL)
        }
    }

    /// `COMMIT`; throws `25P02` when the server rolled back instead (the transaction had failed).
    public func commit() throws(PostgresError) {
        let result = try queryPrepared("COMMIT")
        if result.commandTag == "ROLLBACK" {
            throw .client(.inFailedSQLTransaction, "the transaction had failed and was rolled back instead of committed", sql: "COMMIT")
        }
    }

    /// `ROLLBACK` (harmless when no transaction is open).
    public func rollback() throws(PostgresError) {
        try queryPrepared("ROLLBACK")
    }
}
