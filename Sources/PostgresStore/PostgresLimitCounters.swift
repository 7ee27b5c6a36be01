import PostgresClient
import Tracking

/// The abuse limits' counters in the shared database (`limit_windows`, `limit_buckets` and
/// their functions, migration 4): every node counts in the same rows, so N nodes allow what
/// one node does, whichever node a request reaches.
///
/// Each call is one statement on a reader connection, its own short transaction that commits
/// without waiting for the WAL (the tables are unlogged). The database decides under the key's
/// row lock, so concurrent attempts on several nodes never both take the last slot.
struct PostgresLimitCounters: LimitCounters {
    let store: PostgresStore

    func attempt(_ limit: WindowLimit, key: String, now: Int64) throws -> Int? {
        try waitSeconds("SELECT fod_limit_attempt($1, $2, $3, $4, $5)",
                        [.text(limit.scope), .text(key), .int64(now), .int64(limit.windowMilliseconds), .int64(Int64(limit.limit))])
    }

    func waitTime(_ limit: WindowLimit, key: String, now: Int64) throws -> Int? {
        try waitSeconds("SELECT fod_limit_wait($1, $2, $3, $4, $5)",
                        [.text(limit.scope), .text(key), .int64(now), .int64(limit.windowMilliseconds), .int64(Int64(limit.limit))])
    }

    func take(_ limit: BucketLimit, key: String, now: Int64) throws -> Int? {
        guard limit.isEnabled else { return nil }
        return try waitSeconds("SELECT fod_limit_take($1, $2, $3, $4, $5)",
                               [.text(limit.scope), .text(key), .int64(now), .double(limit.perSecond), .double(Double(limit.burst))])
    }

    /// Runs a counter function; its milliseconds to wait as whole seconds for `Retry-After`
    /// (1 s to an hour), nil when the attempt may go ahead.
    private func waitSeconds(_ sql: String, _ parameters: [PostgresValue]) throws -> Int? {
        let milliseconds = try store.read { c in
            try c.firstRow(sql, parameters) { try $0.optionalInt64(0) }
        }
        guard let wait = milliseconds ?? nil else { return nil }
        return Int(min(3_600, max(1, wait / 1_000 + (wait % 1_000 > 0 ? 1 : 0))))
    }
}

extension PostgresStore {
    /// The abuse limits count in the database, for every node alike.
    public var limitCounters: any LimitCounters { PostgresLimitCounters(store: self) }
}
