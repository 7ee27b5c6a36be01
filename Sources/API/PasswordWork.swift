import ThreadControl
import Tracking

/// The server's threads for password hashing: the domain's `BlockingWorkRunner` over a
/// `BlockingWorkPool` named `fod-hashing-N`, sized by the accounts policy
/// (`--hashing-threads`, `--hashing-queue`); a full queue is the domain's `busy` (503).
public struct PasswordWork: BlockingWorkRunner {
    private let pool: BlockingWorkPool

    public init(policy: AccountService.Policy) {
        pool = BlockingWorkPool(name: "fod-hashing", threads: policy.hashingThreads, maxQueued: policy.hashingQueue,
                                what: "password checks")
    }

    /// Jobs waiting for a thread now.
    public var queuedCount: Int { pool.queuedCount }

    public func requireRoom() throws {
        do { try pool.requireRoom() } catch let full as BlockingWorkPool.Full { throw TrackingError.busy(full.what) }
    }

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await pool.run(body)
        } catch let full as BlockingWorkPool.Full {
            throw TrackingError.busy(full.what)
        }
    }
}
