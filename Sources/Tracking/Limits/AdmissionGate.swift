import Synchronization

/// A non-blocking limit on work running at once: `enter` admits up to `limit` holders and
/// refuses the rest with `busy` (503) instead of queueing them.
public final class AdmissionGate: Sendable {
    private let running = Mutex<Int>(0)
    public let limit: Int
    private let what: String

    public init(limit: Int, what: String) {
        self.limit = max(1, limit)
        self.what = what
    }

    /// Runs `body` if fewer than `limit` bodies run now; else throws `busy`.
    public func run<T>(_ body: () throws -> T) throws -> T {
        let admitted = running.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { throw TrackingError.busy(what) }
        defer { running.withLock { $0 -= 1 } }
        return try body()
    }
}
