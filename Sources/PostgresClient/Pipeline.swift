import CLibPQ

extension Connection {
    /// Runs the statements `body` appends in libpq's pipeline mode: they are sent without
    /// waiting for replies, then one Sync ends the batch, and the replies are collected.
    /// One round trip (and, outside `BEGIN`, one implicit transaction: one commit, one WAL
    /// flush) for the whole batch.
    ///
    /// Returns one result per appended statement, in order. If any statement fails, the
    /// server skips the rest and rolls the batch back (all or nothing); this throws the first
    /// failure, a `PostgresError` with its `statementIndex`. Inside `transaction { }`, the
    /// batch is part of that transaction instead, which then can only roll back.
    ///
    /// If `body` throws, or the pipeline cannot complete, nothing was synchronised, so nothing
    /// commits: the session is reset (a new one opened, which discards the uncommitted
    /// statements; unless the connection is already bad, which a pool then replaces) and the
    /// error rethrown. Do not append `COMMIT` or COPY.
    @discardableResult
    public func pipeline(_ body: (Pipeline) throws -> Void) throws -> [QueryResult] {
        guard transactionStatus == .idle || transactionStatus == .inTransaction else {
            throw PostgresError.misuse("a pipeline needs an idle session or an open transaction (status \(transactionStatus))")
        }
        try check(PQenterPipelineMode(handle) == 1, "entering pipeline mode")
        let pipeline = Pipeline(connection: self)
        do {
            try body(pipeline)
            return try pipeline.finish()
        } catch {
            pipeline.close()
            if !pipeline.completed && status == .ok {
                // Out of step with the server: discard the session (and its uncommitted work).
                try? reset()
            }
            throw error
        }
    }
}

/// Statements queued on a connection in pipeline mode; exists only inside
/// `Connection.pipeline` (using it after that throws).
///
/// The connection stays in libpq's blocking mode: when the socket's send buffer is full,
/// libpq reads (and buffers) the server's replies while it waits to send, so a long pipeline
/// cannot deadlock; the replies already parsed are collected after every append.
public final class Pipeline {
    private unowned let connection: Connection
    /// What each reply the server will send belongs to, in order.
    private enum Expectation {
        case prepare(PreparedStatementCache.Key, forStatement: Int)
        case statement(Int)
    }
    private var expected: [Expectation] = []
    /// The next expectation a reply belongs to.
    private var cursor = 0
    /// The current expectation got its result; the NULL that ends it is still to come.
    private var awaitingEnd = false
    private var results: [QueryResult?] = []
    /// Each statement's SQL, and its cache key when it ran prepared.
    private var statements: [(sql: String, key: PreparedStatementCache.Key?)] = []
    private var firstError: PostgresError?
    private var isOpen = true
    /// The pipeline ran to its sync and libpq left pipeline mode: the session is in step.
    private(set) var completed = false

    init(connection: Connection) { self.connection = connection }

    /// How many statements were appended.
    public var count: Int { results.count }

    /// Queues one statement with `parameters`. With `prepared` (the default), it runs as the
    /// session's named prepared statement for this SQL and these parameter types, prepared
    /// within the pipeline the first time.
    public func append(_ sql: String, _ parameters: [PostgresValue] = [], prepared: Bool = true,
                       format: ResultFormat = .text) throws(PostgresError) {
        guard isOpen else { throw .misuse("the pipeline is over: append statements inside Connection.pipeline") }
        let encoded = try EncodedParameters(parameters)
        let index = results.count
        let handle = connection.handle
        let key = PreparedStatementCache.Key(sql: sql, types: encoded.types)
        var name = prepared ? connection.preparedStatements.name(for: key) : nil
        if prepared, name == nil, !connection.preparedStatements.isFull {
            let newName = connection.preparedStatements.add(key)
            let sent = key.types.withUnsafeBufferPointer { types in
                PQsendPrepare(handle, newName, sql, encoded.count, types.baseAddress)
            }
            guard sent == 1 else {
                connection.preparedStatements.remove(key)
                throw connection.failure("queueing a prepare", sql: sql)
            }
            expected.append(.prepare(key, forStatement: index))
            name = newName
        }
        let sent = encoded.withPointers { values, lengths, formats in
            if let name {
                return PQsendQueryPrepared(handle, name, encoded.count, values, lengths, formats, format.code)
            }
            return encoded.types.withUnsafeBufferPointer { types in
                PQsendQueryParams(handle, sql, encoded.count, types.baseAddress, values, lengths, formats, format.code)
            }
        }
        try connection.check(sent == 1, "queueing a statement", sql: sql)
        expected.append(.statement(index))
        results.append(nil)
        statements.append((sql, name == nil ? nil : key))
        try collectReady()
    }

    /// Queues `insert` for `values` (row after row, `insert.columns.count` values each), split
    /// into statements of at most `rowsPerStatement` rows.
    public func append(_ insert: MultiRowInsert, values: [PostgresValue], rowsPerStatement: Int = 1_000) throws(PostgresError) {
        for statement in try insert.statements(for: values, rowsPerStatement: rowsPerStatement) {
            try append(statement.sql, Array(values[statement.range]))
        }
    }

    /// Sends the Sync, collects every reply, leaves pipeline mode.
    func finish() throws(PostgresError) -> [QueryResult] {
        isOpen = false
        let handle = connection.handle
        try connection.check(PQpipelineSync(handle) == 1, "sending the pipeline's sync")
        while cursor < expected.count {
            try collect(PQgetResult(handle))
        }
        let sync = PQgetResult(handle)
        guard let sync, PQresultStatus(sync) == PGRES_PIPELINE_SYNC else {
            if let sync { PQclear(sync) }
            throw connection.failure("the pipeline ended without its sync", sql: nil)
        }
        PQclear(sync)
        try connection.check(PQexitPipelineMode(handle) == 1, "leaving pipeline mode")
        completed = true
        if let firstError { throw firstError }
        var finished: [QueryResult] = []
        finished.reserveCapacity(results.count)
        for case let result? in results { finished.append(result) }
        guard finished.count == results.count else { throw .misuse("a pipeline statement returned no result") }
        return finished
    }

    func close() { isOpen = false }

    /// Takes every reply libpq has already parsed, without waiting for more.
    private func collectReady() throws(PostgresError) {
        let handle = connection.handle
        while cursor < expected.count, PQisBusy(handle) == 0 {
            let result = PQgetResult(handle)
            if result == nil && !awaitingEnd { return }
            try collect(result)
        }
    }

    /// Files one reply from `PQgetResult`: a result for the current expectation, or the NULL
    /// that ends it.
    private func collect(_ result: OpaquePointer?) throws(PostgresError) {
        guard let result else {
            guard awaitingEnd else {
                throw connection.failure("the pipeline lost a reply", sql: nil)
            }
            awaitingEnd = false
            cursor += 1
            return
        }
        if awaitingEnd {
            // A second result for one statement: none of ours produce one.
            PQclear(result)
            return
        }
        awaitingEnd = true
        switch expected[cursor] {
        case .prepare(let key, let statement):
            do throws(PostgresError) {
                _ = try connection.check(result, sql: key.sql)
            } catch {
                connection.preparedStatements.remove(key)
                if firstError == nil { firstError = error.atStatement(statement) }
            }
        case .statement(let index):
            do throws(PostgresError) {
                results[index] = try connection.check(result, sql: statements[index].sql)
            } catch {
                if error.sqlState == .invalidSQLStatementName, let key = statements[index].key {
                    connection.preparedStatements.remove(key)
                }
                if error.origin == .connection { throw error.atStatement(index) }
                if firstError == nil { firstError = error.atStatement(index) }
            }
        }
    }
}
