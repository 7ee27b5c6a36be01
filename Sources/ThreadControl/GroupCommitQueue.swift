import Foundation

/// The queue of a group-committing writer, as a state machine: it decides what the writer does
/// next and does nothing itself — no I/O, no lock, no thread (its owner guards it with its own
/// lock and acts on the answers). Both stores' writers (`Storage.DatabaseWriter`,
/// `PostgresStore.GroupCommitWriter`) run on it, so "which jobs go into the next commit, and when
/// does the writer stop" is written and tested once (`GroupCommitQueueTests`).
///
/// Invariants: jobs leave in submission order, at most `maxJobsPerCommit` per batch; once
/// closing, no job is accepted, every job accepted before is still handed out, and `stop` comes
/// only after the last batch.
public struct GroupCommitQueue<Job> {
    /// What the writer does after `submit`.
    public enum Submission {
        /// Queued: wake the writer.
        case queued
        /// The writer is closing: fail the job at once (it was not queued).
        case refused(Job)
    }

    /// What the writer does next.
    public enum Next {
        /// Run these jobs in one transaction.
        case commit([Job])
        /// Nothing to do: wait for a submission (or do idle work).
        case wait
        /// Closed and drained: end the writer thread.
        case stop
    }

    /// Jobs at most per batch (at least 1).
    public let maxJobsPerCommit: Int
    private var jobs: [Job] = []
    /// Index of the oldest queued job in `jobs` (taken jobs stay until compaction).
    private var head = 0
    public private(set) var isClosing = false
    /// Whether `next` answered `stop`: the writer has ended.
    public private(set) var isStopped = false

    public init(maxJobsPerCommit: Int) {
        self.maxJobsPerCommit = max(1, maxJobsPerCommit)
    }

    /// Jobs queued and not yet handed out.
    public var count: Int { jobs.count - head }

    /// Queues `job` unless the writer is closing.
    public mutating func submit(_ job: Job) -> Submission {
        guard !isClosing else { return .refused(job) }
        jobs.append(job)
        return .queued
    }

    /// No more jobs; those queued still go out.
    public mutating func close() {
        isClosing = true
    }

    /// The next batch (the oldest jobs, up to `maxJobsPerCommit`), or whether to wait or stop.
    public mutating func next() -> Next {
        guard count > 0 else {
            if isClosing {
                isStopped = true
                return .stop
            }
            return .wait
        }
        let end = head + min(count, maxJobsPerCommit)
        let batch = Array(jobs[head..<end])
        head = end
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: jobs.capacity <= 4 * maxJobsPerCommit)
            head = 0
        } else if head >= maxJobsPerCommit, head * 2 >= jobs.count {
            // More than half is taken: drop it, so the array does not grow without bound.
            jobs.removeFirst(head)
            head = 0
        }
        return .commit(batch)
    }
}

/// A writer's `GroupCommitQueue` behind its lock: jobs are submitted from any thread, the
/// writer thread takes batches (waiting while there are none) and says when it has stopped.
/// Both stores' writers run on it.
public final class GroupCommitLine<Job>: @unchecked Sendable {
    // @unchecked: `queue` and `ended` are guarded by `condition`.
    private let condition = NSCondition()
    private var queue: GroupCommitQueue<Job>
    /// The writer thread finished its clean-up after `stop` (`stopped()`).
    private var ended = false

    public init(maxJobsPerCommit: Int) {
        queue = GroupCommitQueue(maxJobsPerCommit: maxJobsPerCommit)
    }

    /// Queues `job` and wakes the writer. Returns the job, not queued, when the writer is
    /// closing (the caller fails it).
    public func submit(_ job: Job) -> Job? {
        condition.lock()
        defer { condition.unlock() }
        guard case .refused(let refused) = queue.submit(job) else {
            condition.signal()
            return nil
        }
        return refused
    }

    /// Takes no more jobs; returns once the writer has run those queued and called `stopped()`.
    public func closeAndWait() {
        condition.lock()
        queue.close()
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
    }

    /// For the writer thread: the next batch to commit, or `stop` once closing and drained.
    /// While there is none it waits — until `idleDeadline()` (nil: no limit), when it answers
    /// `wait`: time for the writer's idle work.
    public func next(idleDeadline: () -> Date? = { nil }) -> GroupCommitQueue<Job>.Next {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch queue.next() {
            case .wait:
                guard let deadline = idleDeadline() else {
                    condition.wait()
                    continue
                }
                if !condition.wait(until: deadline) && queue.count == 0 && !queue.isClosing { return .wait }
            case let next:
                return next
            }
        }
    }

    /// The writer thread's loop, until the line is closed and drained: `commit` each batch,
    /// `idle` when `idleDeadline()` passed with nothing to do, and at the end `stop` (the
    /// writer's clean-up, before `closeAndWait` returns).
    public func runWriter(idleDeadline: () -> Date? = { nil }, idle: () -> Void = {}, stop: () -> Void, commit: ([Job]) -> Void) {
        while true {
            switch next(idleDeadline: idleDeadline) {
            case .wait:
                idle()
            case .stop:
                stop()
                stopped()
                return
            case .commit(let jobs):
                commit(jobs)
            }
        }
    }

    /// Whether the writer thread has stopped (`stopped()` was called).
    public var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// For the writer thread, after `stop` and its clean-up: lets `closeAndWait` return.
    public func stopped() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}

/// How a group-committing writer runs one job of a batch in a savepoint of its own, so that a
/// job's failure undoes only that job — the same SQL on SQLite and PostgreSQL, written once for
/// both writers.
public enum JobSavepoint {
    /// What became of the job.
    public enum Outcome {
        /// Ran; its changes are part of the transaction.
        case kept
        /// Threw this error; its changes were undone, the transaction goes on.
        case undone(Error)
        /// The transaction as a whole is gone (the database aborted it, or undoing the job
        /// failed): nothing of the batch may be committed.
        case transactionLost(Error)
    }

    /// Runs `job` between `SAVEPOINT job` and its release through `execute` (one statement a
    /// call); on its error, rolls back to the savepoint unless `abortsTransaction` says the
    /// database already ended the whole transaction.
    public static func run(execute: (String) throws -> Void, abortsTransaction: (Error) -> Bool,
                           _ job: () throws -> Void) -> Outcome {
        do {
            try execute("SAVEPOINT job")
            try job()
            try execute("RELEASE SAVEPOINT job")
            return .kept
        } catch {
            if abortsTransaction(error) { return .transactionLost(error) }
            do {
                try execute("ROLLBACK TO SAVEPOINT job")
                try execute("RELEASE SAVEPOINT job")
            } catch let rollback {
                return .transactionLost(rollback)
            }
            return .undone(error)
        }
    }
}

/// A write job made of a closure, for either store's writer: `run` (inside the batch's
/// transaction, on the writer thread) keeps the body's value; `finish` (after the commit, or
/// with the batch's error) hands it to the completion. Used by one writer thread at a time.
public final class ClosureWriteJob<Connection, Value: Sendable> {
    private let body: @Sendable (Connection) throws -> Value
    private let completion: @Sendable (Result<Value, Error>) -> Void
    /// The error for a job reported successful whose body never ran (a writer's bug).
    private let missingValue: @Sendable () -> Error
    private var value: Value?

    public init(body: @escaping @Sendable (Connection) throws -> Value, completion: @escaping @Sendable (Result<Value, Error>) -> Void,
                missingValue: @escaping @Sendable () -> Error) {
        self.body = body
        self.completion = completion
        self.missingValue = missingValue
    }

    public func run(_ connection: Connection) throws { value = try body(connection) }

    public func finish(_ result: Result<Void, Error>) {
        switch result {
        case .success:
            if let value { completion(.success(value)) } else { completion(.failure(missingValue())) }
        case .failure(let error):
            completion(.failure(error))
        }
    }
}
