import CLibPQ

/// The named prepared statements of one session, keyed by SQL text and parameter types (a
/// statement prepared for `bigint` must not receive a `double` in binary).
///
/// At most `limit` statements are kept; beyond that, new statements run unprepared, so SQL
/// built with varying text cannot grow the server's memory without bound.
struct PreparedStatementCache {
    struct Key: Hashable {
        let sql: String
        let types: [Oid]
    }

    static let limit = 256
    private var names: [Key: String] = [:]
    private var nextNumber = 1

    func name(for key: Key) -> String? { names[key] }

    var isFull: Bool { names.count >= Self.limit }

    /// Records a new statement (before the server confirmed it) and returns its name.
    mutating func add(_ key: Key) -> String {
        let name = "fod_\(nextNumber)"
        nextNumber += 1
        names[key] = name
        return name
    }

    mutating func remove(_ key: Key) { names[key] = nil }
    mutating func removeAll() { names.removeAll() }
    var count: Int { names.count }
}

extension Connection {
    /// Runs one statement with `parameters` as a named prepared statement: prepared on this
    /// session the first time this SQL runs with these parameter types, then only executed
    /// (`PQexecPrepared`), which saves the server parsing and planning it again.
    @discardableResult
    public func queryPrepared(_ sql: String, _ parameters: [PostgresValue] = [], format: ResultFormat = .text) throws(PostgresError) -> QueryResult {
        let encoded = try EncodedParameters(parameters)
        let key = PreparedStatementCache.Key(sql: sql, types: encoded.types)
        guard let name = try preparedName(for: key, encoded: encoded) else {
            return try query(sql, parameters, format: format)
        }
        let result = encoded.withPointers { values, lengths, formats in
            PQexecPrepared(handle, name, encoded.count, values, lengths, formats, format.code)
        }
        do throws(PostgresError) {
            return try check(result, sql: sql)
        } catch {
            // The session lost the statement (DISCARD ALL, a pooler): prepare it again next time.
            if error.sqlState == .invalidSQLStatementName { preparedStatements.remove(key) }
            throw error
        }
    }

    /// How many statements this session has prepared through `queryPrepared` and pipelines.
    public var preparedStatementCount: Int { preparedStatements.count }

    /// The name of the prepared statement for `key`, preparing it now if needed; nil when the
    /// cache is full (run the statement unprepared).
    private func preparedName(for key: PreparedStatementCache.Key, encoded: EncodedParameters) throws(PostgresError) -> String? {
        if let name = preparedStatements.name(for: key) { return name }
        if preparedStatements.isFull { return nil }
        let name = preparedStatements.add(key)
        let result = key.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, key.sql, encoded.count, types.baseAddress)
        }
        do throws(PostgresError) {
            _ = try check(result, sql: key.sql)
        } catch {
            preparedStatements.remove(key)
            throw error
        }
        return name
    }
}
