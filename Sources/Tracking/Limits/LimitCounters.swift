import Synchronization

/// At most `limit` attempts per key in any window of `windowMilliseconds` (a sliding window),
/// counted apart from every other limit by `scope`.
///
/// Invariants: `limit >= 1`, `windowMilliseconds >= 1` (the initialiser clamps).
public struct WindowLimit: Sendable, Hashable {
    /// Names the limit ("sign-ups"): counters of two scopes never mix.
    public let scope: String
    public let limit: Int
    public let windowMilliseconds: Int64

    public init(scope: String, limit: Int, windowMilliseconds: Int64) {
        self.scope = scope
        self.limit = max(1, limit)
        self.windowMilliseconds = max(1, windowMilliseconds)
    }
}

/// A token bucket per key: up to `burst` attempts at once, refilled at `perSecond`; disabled
/// when `perSecond <= 0`. Counted apart from every other limit by `scope`.
public struct BucketLimit: Sendable, Hashable {
    public let scope: String
    /// Tokens added per second (sustained attempts per second).
    public let perSecond: Double
    /// Tokens a full bucket holds (≥ 1).
    public let burst: Int

    public init(scope: String, perSecond: Double, burst: Int) {
        self.scope = scope
        self.perSecond = perSecond.isFinite ? perSecond : 0
        self.burst = max(1, burst)
    }

    public var isEnabled: Bool { perSecond > 0 }
}

/// Where the abuse limits count attempts (a port): sign-ups, sign-ins, invitations, failed
/// share-link lookups and device requests.
///
/// The embedded store counts in this process (`LocalLimitCounters`): it is the only node.
/// Nodes on a shared database count there, so that a limit means the same however many nodes
/// serve and whichever node a request reaches. Keys may hold personal data (an address, an
/// email): a shared implementation keeps only a digest of them, and only while they count.
///
/// Every method returns nil when the attempt may go ahead, else the whole seconds to wait
/// (≥ 1, for `Retry-After`). `now` is milliseconds since 1970 by the calling node's clock.
/// Throws `StoreFailure` when the counters cannot be reached (the request gets 503).
public protocol LimitCounters: Sendable {
    /// Records an attempt of `key` unless the window already holds `limit.limit` of them (then
    /// records nothing).
    func attempt(_ limit: WindowLimit, key: String, now: Int64) throws -> Int?
    /// Whether `key` may make an attempt now; records nothing (to refuse early, before work
    /// whose failure alone is counted).
    func waitTime(_ limit: WindowLimit, key: String, now: Int64) throws -> Int?
    /// Takes a token of `key`'s bucket if it holds one (always nil when the limit is disabled).
    func take(_ limit: BucketLimit, key: String, now: Int64) throws -> Int?
}

/// Counters in this process's memory, for one node; bounded as `RateLimiter` and `TokenBucket`
/// say (one of each per limit, made on first use).
public final class LocalLimitCounters: LimitCounters {
    private let windows = Mutex<[WindowLimit: RateLimiter]>([:])
    private let buckets = Mutex<[BucketLimit: TokenBucket]>([:])

    public init() {}

    public func attempt(_ limit: WindowLimit, key: String, now: Int64) -> Int? {
        window(limit).attempt(key, now: now)
    }

    public func waitTime(_ limit: WindowLimit, key: String, now: Int64) -> Int? {
        window(limit).waitTime(key, now: now)
    }

    public func take(_ limit: BucketLimit, key: String, now: Int64) -> Int? {
        guard limit.isEnabled else { return nil }
        let bucket = buckets.withLock { all in
            if let existing = all[limit] { return existing }
            let made = TokenBucket(perSecond: limit.perSecond, burst: limit.burst)
            all[limit] = made
            return made
        }
        return bucket.attempt(key, now: now)
    }

    private func window(_ limit: WindowLimit) -> RateLimiter {
        windows.withLock { all in
            if let existing = all[limit] { return existing }
            let made = RateLimiter(limit: limit.limit, windowMilliseconds: limit.windowMilliseconds)
            all[limit] = made
            return made
        }
    }
}
