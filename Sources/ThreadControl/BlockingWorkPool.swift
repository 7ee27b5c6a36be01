import Foundation

/// Runs blocking work (Argon2id hashes) on a fixed set of dedicated threads with a bounded
/// queue, so a flood can neither starve other requests of threads nor grow memory: past
/// `maxQueued` waiting jobs, `run` fails at once with `Full` (the server answers 503).
///
/// The server makes it (threads are the server's, not the domain's) and hands it to the domain
/// as its `BlockingWorkRunner` port.
///
/// Lifetime: the threads live as long as the process (the pool is built once at start-up).
public final class BlockingWorkPool: @unchecked Sendable {
    /// `maxQueued` jobs wait already: nothing was run.
    public struct Full: Error, CustomStringConvertible {
        /// The work refused, as the pool names it ("password checks").
        public let what: String
        public var description: String { "too many \(what) at once" }
    }

    // @unchecked: `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    public let threadCount: Int
    public let maxQueued: Int
    private let what: String

    /// - Parameters:
    ///   - what: names the work in the `Full` error ("password checks").
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

    /// Throws `Full` when `maxQueued` jobs wait now, as `run` would: to refuse before work
    /// that only makes sense if the job then runs.
    public func requireRoom() throws {
        guard queuedCount < maxQueued else { throw Full(what: what) }
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    /// - Throws: `Full` when `maxQueued` jobs already wait; else `body`'s error.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            condition.lock()
            guard jobs.count < maxQueued else {
                condition.unlock()
                continuation.resume(throwing: Full(what: what))
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
