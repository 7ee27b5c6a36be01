import Dispatch

/// The executor deferred handlers run on, instead of Swift's global cooperative pool.
///
/// Why: the cooperative pool has one thread per core (two here); a handler that blocks briefly
/// (an SQLite read, a password hash wait) or a caller that blocks those threads would otherwise
/// stall every deferred reply. Jobs run on a concurrent Dispatch queue, whose pool grows while
/// threads block. Tasks started with this executor as their preference keep it across awaits.
public final class HandlerExecutor: TaskExecutor, Sendable {
    private let queue: DispatchQueue

    public init(label: String = "fod.handlers") {
        queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
