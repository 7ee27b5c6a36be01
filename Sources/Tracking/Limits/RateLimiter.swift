import Synchronization

/// A sliding-window limit: at most `limit` events per `windowMilliseconds` for each key.
///
/// Memory is bounded: at most `limit` timestamps per key and `maxKeys` keys. Past `maxKeys`,
/// keys whose newest event left the window are dropped, and if that is not enough, the least
/// recently active keys, down to three quarters of `maxKeys` (nginx's `limit_req` zones drop
/// their least recently used states the same way). Pruning therefore runs at most once per
/// `maxKeys / 4` new keys, whatever keys clients send. An evicted key starts afresh: flushing
/// one needs `maxKeys / 4` other keys active in one window (per-address keys: that many
/// addresses, or IPv6 /64 networks).
public final class RateLimiter: Sendable {
    public let limit: Int
    public let windowMilliseconds: Int64
    private let maxKeys: Int
    private let events = Mutex<[String: [Int64]]>([:])

    public init(limit: Int, windowMilliseconds: Int64 = 60_000, maxKeys: Int = 100_000) {
        self.limit = max(1, limit)
        self.windowMilliseconds = windowMilliseconds
        self.maxKeys = max(4, maxKeys)
    }

    /// Keys held now (at most `maxKeys`).
    public var keyCount: Int { events.withLock { $0.count } }

    /// The whole seconds until `key` may have another event (≥ 1), nil when it may now;
    /// records nothing (to refuse early, before work whose failure alone is counted).
    public func waitTime(_ key: String, now: Int64) -> Int? {
        events.withLock { table in
            guard let times = table[key] else { return nil }
            let recent = times.filter { $0 > now - windowMilliseconds }
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return Int(max(1, (oldest + windowMilliseconds - now + 999) / 1000))
        }
    }

    /// Records an event for `key` at `now` if allowed; otherwise returns the seconds to wait.
    /// - Returns: nil when allowed (and recorded), else the whole seconds until a slot frees (≥ 1).
    public func attempt(_ key: String, now: Int64) -> Int? {
        events.withLock { table in
            var times = table[key, default: []]
            times.removeAll { $0 <= now - windowMilliseconds }
            if times.count >= limit {
                table[key] = times
                let wait = times[0] + windowMilliseconds - now
                return Int(max(1, (wait + 999) / 1000))
            }
            times.append(now)
            table[key] = times
            if table.count > maxKeys {
                table = table.filter { ($0.value.last ?? 0) > now - windowMilliseconds }
                LimitTables.evictLeastRecent(from: &table, keeping: maxKeys - maxKeys / 4) { $0.last ?? 0 }
            }
            return nil
        }
    }
}

/// What the per-key limit tables share.
enum LimitTables {
    /// Removes the entries with the oldest `lastActive` until at most `count` remain.
    static func evictLeastRecent<Value>(from table: inout [String: Value], keeping count: Int, lastActive: (Value) -> Int64) {
        let excess = table.count - max(0, count)
        guard excess > 0 else { return }
        let oldest = table.map { (key: $0.key, at: lastActive($0.value)) }.sorted { $0.at < $1.at }.prefix(excess)
        for entry in oldest { table.removeValue(forKey: entry.key) }
    }
}
