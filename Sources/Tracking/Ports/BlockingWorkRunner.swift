/// Where the domain's blocking work runs (Argon2id password hashes: ~50 ms and 64 MiB each at
/// interactive cost): on threads the server owns, never on a request's thread or Swift's
/// cooperative pool. The domain holds no thread of its own (docs/ARCHITECTURE.md,
/// "Concurrency"); the server hands it this port (`PasswordWork` in API, over
/// ThreadControl's `BlockingWorkPool`).
///
/// Contract: `run` runs `body` once on a thread of the implementation's and returns its result
/// or error; with too much work waiting it runs nothing and throws `TrackingError.busy` (503) at
/// once — so does `requireRoom`, which a caller uses to refuse before work that only makes sense
/// if the job then runs. The queue is bounded: memory does not grow with a flood.
public protocol BlockingWorkRunner: Sendable {
    func requireRoom() throws
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T
}
