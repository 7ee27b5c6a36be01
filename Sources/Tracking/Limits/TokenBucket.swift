import Synchronization

/// A rate limit per key: each key's bucket holds up to `burst` tokens and refills at
/// `perSecond`; an attempt takes one token or is refused with the seconds to wait.
///
/// Memory is bounded: past `maxKeys` keys, buckets that are full again (idle keys) are dropped,
/// and if that is not enough, the least recently used, down to three quarters of `maxKeys`
/// (as `RateLimiter`): pruning runs at most once per `maxKeys / 4` new keys.
/// `perSecond <= 0` disables the limit.
public final class TokenBucket: Sendable {
    public let perSecond: Double
    public let burst: Double
    private let maxKeys: Int
    private let buckets = Mutex<[String: (tokens: Double, at: Int64)]>([:])

    public init(perSecond: Double, burst: Int, maxKeys: Int = 100_000) {
        self.perSecond = perSecond
        self.burst = Double(max(1, burst))
        self.maxKeys = max(4, maxKeys)
    }

    /// Keys held now (at most `maxKeys`).
    public var keyCount: Int { buckets.withLock { $0.count } }

    public var isEnabled: Bool { perSecond > 0 }

    /// Takes a token for `key` at `now` (ms) if there is one; else returns the whole seconds
    /// until there will be (≥ 1).
    public func attempt(_ key: String, now: Int64) -> Int? {
        guard isEnabled else { return nil }
        return buckets.withLock { table in
            var bucket = table[key] ?? (burst, now)
            let elapsed = Double(max(0, now - bucket.at)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                table[key] = bucket
                return max(1, Int(min(3_600, ((1 - bucket.tokens) / perSecond).rounded(.up))))
            }
            bucket.tokens -= 1
            table[key] = bucket
            if table.count > maxKeys {
                table = table.filter { $0.value.tokens + Double(max(0, now - $0.value.at)) / 1000 * perSecond < burst }
                LimitTables.evictLeastRecent(from: &table, keeping: maxKeys - maxKeys / 4) { $0.at }
            }
            return nil
        }
    }
}
