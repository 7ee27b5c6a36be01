import Foundation
import Synchronization
import ThreadControl

/// Runs blocking work (Argon2id hashes) on a fixed set of dedicated threads with a bounded
/// queue, so a flood can neither starve other requests of threads nor grow memory: past
/// `maxQueued` waiting jobs, `run` fails at once with `TrackingError.busy` (503).
///
/// Lifetime: the threads live as long as the process (the pool is built once at start-up).
public final class BlockingWorkPool: @unchecked Sendable {
    // @unchecked: `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    public let threadCount: Int
    public let maxQueued: Int
    private let what: String

    /// - Parameters:
    ///   - what: names the work in the `busy` error ("password checks").
    public init(name: String, threads: Int, maxQueued: Int, what: String) {
        threadCount = max(1, threads)
        self.maxQueued = max(0, maxQueued)
        self.what = what
        for index in 0..<threadCount {
            let thread = Thread { [unowned self] in
                CurrentThread.name("\(name)-\(index)")
                self.work()
            }
            thread.start()
        }
    }

    /// Jobs waiting for a thread now.
    public var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Throws `busy` (503) when `maxQueued` jobs wait now, as `run` would: to refuse before
    /// work that only makes sense if the job then runs.
    public func requireRoom() throws {
        guard queuedCount < maxQueued else { throw TrackingError.busy(what) }
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    /// - Throws: `busy` (503) when `maxQueued` jobs already wait; else `body`'s error.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            condition.lock()
            guard jobs.count < maxQueued else {
                condition.unlock()
                continuation.resume(throwing: TrackingError.busy(what))
                return
            }
            jobs.append { continuation.resume(with: Result { try body() }) }
            condition.signal()
            condition.unlock()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

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
