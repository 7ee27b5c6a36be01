import PostgresClient
import Synchronization
import Tracking

/// The abuse limits' counters in the shared database (`limit_windows`, `limit_buckets` and
/// their functions, migrations 4 and 7): every node counts in the same rows, so N nodes allow
/// what one node does, whichever node a request reaches.
///
/// Each call is one statement on a reader connection, its own short transaction that commits
/// without waiting for the WAL (the tables are unlogged). The database decides under the key's
/// row lock, so concurrent attempts on several nodes never both take the last slot.
///
/// Token buckets (a device's requests, one check per ingest request) take up to `leaseTokens`
/// tokens at a time and spend them here, so most requests need no round trip (one on every
/// request cost a third of the single-fix ingest rate). A token is spent at most once, so the
/// cluster never allows more than the bucket; tokens a node holds while the device's requests
/// go to another node only make the limit stricter there, by at most `leaseTokens - 1`.
final class PostgresLimitCounters: LimitCounters {
    /// Tokens taken at once, for a bucket of at least 4× as many (smaller buckets take one).
    static let leaseTokens = 8
    /// Keys holding leased tokens at most; past it the leases start over (unused tokens lost).
    static let leaseCapacity = 100_000
    private let readers: ConnectionPool
    /// Leased tokens by scope and key.
    private let leases = Mutex<[String: Int]>([:])

    init(readers: ConnectionPool) {
        self.readers = readers
    }

    func attempt(_ limit: WindowLimit, key: String, now: Int64) throws -> Int? {
        let wait = try firstRow("SELECT fod_limit_attempt($1, $2, $3, $4, $5)",
                                [.text(limit.scope), .text(key), .int64(now), .int64(limit.windowMilliseconds), .int64(Int64(limit.limit))]) {
            try $0.optionalInt64(0)
        }
        return Self.seconds(wait ?? nil)
    }

    func waitTime(_ limit: WindowLimit, key: String, now: Int64) throws -> Int? {
        let wait = try firstRow("SELECT fod_limit_wait($1, $2, $3, $4, $5)",
                                [.text(limit.scope), .text(key), .int64(now), .int64(limit.windowMilliseconds), .int64(Int64(limit.limit))]) {
            try $0.optionalInt64(0)
        }
        return Self.seconds(wait ?? nil)
    }

    func take(_ limit: BucketLimit, key: String, now: Int64) throws -> Int? {
        guard limit.isEnabled else { return nil }
        let lease = limit.scope + "\u{0}" + key
        let spent = leases.withLock { held -> Bool in
            guard let tokens = held[lease], tokens > 0 else { return false }
            held[lease] = tokens > 1 ? tokens - 1 : nil
            return true
        }
        if spent { return nil }
        let want = limit.burst >= 4 * Self.leaseTokens ? Self.leaseTokens : 1
        let taken = try firstRow("SELECT granted, wait FROM fod_limit_take_many($1, $2, $3, $4, $5, $6)",
                                 [.text(limit.scope), .text(key), .int64(now), .double(limit.perSecond), .double(Double(limit.burst)),
                                  .int64(Int64(want))]) { (granted: try $0.int64(0), wait: try $0.optionalInt64(1)) }
        guard let taken, taken.granted >= 1 else { return Self.seconds(taken?.wait ?? 1_000) }
        if taken.granted > 1 {
            leases.withLock { held in
                if held.count >= Self.leaseCapacity { held.removeAll(keepingCapacity: true) }
                held[lease, default: 0] += Int(min(taken.granted, Int64(Self.leaseTokens))) - 1
            }
        }
        return nil
    }

    private func firstRow<T>(_ sql: String, _ parameters: [PostgresValue], _ decode: (Row) throws -> T) throws -> T? {
        do { return try readers.withConnection { c in try c.firstRow(sql, parameters, decode) } } catch { throw PostgresStore.translate(error) }
    }

    /// Milliseconds to wait as whole seconds for `Retry-After` (1 s to an hour), nil when the
    /// attempt may go ahead.
    static func seconds(_ milliseconds: Int64?) -> Int? {
        guard let wait = milliseconds else { return nil }
        return Int(min(3_600, max(1, wait / 1_000 + (wait % 1_000 > 0 ? 1 : 0))))
    }
}
