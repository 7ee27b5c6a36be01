import Synchronization

/// A sliding-window limit: at most `limit` events per `windowMilliseconds` for each key.
///
/// Memory is bounded: at most `limit` timestamps per key, and keys whose newest event left the
/// window are dropped when the table grows past `maxKeys`.
public final class RateLimiter: Sendable {
    public let limit: Int
    public let windowMilliseconds: Int64
    private let maxKeys: Int
    private let events = Mutex<[String: [Int64]]>([:])

    public init(limit: Int, windowMilliseconds: Int64 = 60_000, maxKeys: Int = 100_000) {
        self.limit = max(1, limit)
        self.windowMilliseconds = windowMilliseconds
        self.maxKeys = maxKeys
    }

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
            }
            return nil
        }
    }
}
