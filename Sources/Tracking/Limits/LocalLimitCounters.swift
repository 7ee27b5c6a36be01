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
