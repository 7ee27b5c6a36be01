import Synchronization

extension HTTPServer {
    /// How request bodies are admitted, held and paced, so that clients who send slowly or not
    /// at all cannot pin the server's memory (what nginx's `client_body_timeout` and Envoy's
    /// buffer limits do). Defaults work out of the box; tests set them small.
    public struct BodyLimits: Sendable {
        /// Bytes of request bodies held in memory at once across all connections (bodies read
        /// whole before their handler runs: the capacity of their buffers). A body announced
        /// larger than what is left is answered 503 with `Retry-After` before it is read; one
        /// that grows past it while it arrives is dropped and answered 503 once it ended.
        public var budgetBytes = 128 << 20
        /// Largest body of a request whose head carries no credential its route checked: routes
        /// without a credential (sign-up, sign-in), an `optional` caller who sent none, OsmAnd
        /// posts whose device id is in the body (bytes).
        public var anonymousBodyBytes = 16 * 1024
        /// The share of `budgetBytes` that those anonymous bodies may hold together (bytes).
        public var anonymousBudgetBytes = 4 << 20
        /// Seconds a body may go without a byte arriving before its connection is closed
        /// (the time between two reads, as nginx's `client_body_timeout`; whole seconds).
        public var readTimeoutSeconds = 30
        /// Least average rate of a body in bytes per second, once `rateGraceSeconds` passed
        /// since it started (or since the server last held it back): a slower body's connection
        /// is cut. 0 = no minimum.
        public var minimumBytesPerSecond = 500
        /// Seconds a body may arrive at any rate before `minimumBytesPerSecond` applies.
        public var rateGraceSeconds = 20.0
        /// What a client refused for a full budget is told to wait (`Retry-After`, seconds).
        public var retryAfterSeconds = 5

        public init() {}
    }
}

/// Bytes of request bodies held in memory across all connections, against the two bounds of
/// `HTTPServer.BodyLimits`: all bodies, and the anonymous ones among them.
///
/// Invariants: `0 <= anonymous <= total`; a reservation is refused rather than let either
/// count pass its bound; every reservation is released exactly once (by its request).
final class BodyBudget: Sendable {
    private struct Counts {
        var total = 0
        var anonymous = 0
    }

    private let counts = Mutex(Counts())
    /// Bound of all bodies (bytes).
    let limit: Int
    /// Bound of anonymous bodies (bytes).
    let anonymousLimit: Int

    init(limit: Int, anonymousLimit: Int) {
        self.limit = max(0, limit)
        self.anonymousLimit = max(0, min(anonymousLimit, limit))
    }

    /// Bytes held now.
    var heldBytes: Int { counts.withLock { $0.total } }

    /// Whether `bytes` more would fit now (without reserving them).
    func hasRoom(for bytes: Int, anonymous: Bool) -> Bool {
        counts.withLock { c in
            bytes <= limit - c.total && (!anonymous || bytes <= anonymousLimit - c.anonymous)
        }
    }

    /// Reserves `bytes` (≥ 0); false, reserving nothing, when they would not fit.
    func reserve(_ bytes: Int, anonymous: Bool) -> Bool {
        counts.withLock { c in
            guard bytes <= limit - c.total, !anonymous || bytes <= anonymousLimit - c.anonymous else { return false }
            c.total += bytes
            if anonymous { c.anonymous += bytes }
            return true
        }
    }

    /// Gives back `bytes` reserved earlier with the same `anonymous`.
    func release(_ bytes: Int, anonymous: Bool) {
        guard bytes > 0 else { return }
        counts.withLock { c in
            c.total -= bytes
            if anonymous { c.anonymous -= bytes }
        }
    }
}

/// The pace of one request body: bytes received since it started, or since the server last
/// held it back (a streamed body's reader fell behind), against `BodyLimits`' minimum rate.
/// Touched only on the connection's thread.
struct BodyPace {
    /// When the current measurement started (monotonic nanoseconds).
    private(set) var startNanos: UInt64
    /// Bytes received since then.
    private(set) var bytes = 0

    init(now: UInt64) {
        startNanos = now
    }

    /// Starts measuring again (the server held the body back until now).
    mutating func restart(now: UInt64) {
        startNanos = now
        bytes = 0
    }

    /// Counts `count` bytes that arrived at `now`; false when the body is too slow: past the
    /// grace period, its average rate (these bytes included) is under the minimum.
    mutating func record(_ count: Int, now: UInt64, limits: HTTPServer.BodyLimits) -> Bool {
        bytes += count
        guard limits.minimumBytesPerSecond > 0, now > startNanos else { return true }
        let seconds = Double(now - startNanos) / 1e9
        guard seconds > limits.rateGraceSeconds else { return true }
        return Double(bytes) >= Double(limits.minimumBytesPerSecond) * seconds
    }
}
