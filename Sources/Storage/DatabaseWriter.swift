import Foundation

/// The single writer: one connection on one thread that group-commits.
///
/// Jobs submitted from any thread queue up; the writer thread takes every queued job (up to
/// `maxJobsPerCommit`), runs them in one `BEGIN IMMEDIATE` transaction — each in its own
/// savepoint, so one job's failure rolls back only that job — commits once, and only then
/// completes each job. Invariant: a job's success is reported only after its commit returned
/// (with `synchronous=FULL`, after the WAL was fsynced), so "a 2xx means committed" holds for
/// anyone answering after `write` returns.
public final class DatabaseWriter: @unchecked Sendable {
    // @unchecked: `queue`, `stopping` and `stopped` are guarded by `condition`; `database` is
    // touched only by the writer thread after init (and by `close` after that thread ended).
    private let condition = NSCondition()
    private var queue: [any WriteJob] = []
    private var stopping = false
    private var stopped = false
    private var database: Database?
    private var thread: Thread?
    private let maxJobsPerCommit: Int
    private let commitHooks: CommitHooks
    private let observer: (any TransactionObserver)?

    /// Statistics for metrics: commits done and jobs committed (guarded by `condition`).
    private var commitCount: UInt64 = 0
    private var jobCount: UInt64 = 0

    /// `observer` hears, on the writer thread, of every job start, job rollback, commit and
    /// transaction rollback (for state kept beside the database that must follow it).
    public init(database: Database, maxJobsPerCommit: Int = 4_096, commitHooks: CommitHooks = CommitHooks(),
                observer: (any TransactionObserver)? = nil) {
        self.database = database
        self.maxJobsPerCommit = maxJobsPerCommit
        self.commitHooks = commitHooks
        self.observer = observer
        let thread = Thread { [unowned self] in self.runLoop() }
        thread.name = "fod-writer"
        self.thread = thread
        thread.start()
    }

    deinit {
        precondition(stopped || thread == nil, "DatabaseWriter.close() must be called before release")
    }

    /// Runs `body` on the writer connection inside the next group commit and returns its result
    /// once that commit is durable. Throws `body`'s error (its changes rolled back) or the
    /// commit's error (nothing of the batch was stored).
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(ClosureJob(body: body) { continuation.resume(with: $0) })
        }
    }

    /// Same as `write`, and calls `onCommit` with the result on the writer thread right after the
    /// commit, before the caller resumes: `onCommit` calls happen in commit order (for
    /// publishing events in the order they were committed). Keep it short.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(ClosureJob(body: body) { result in
                if case .success(let value) = result { onCommit(value) }
                continuation.resume(with: result)
            })
        }
    }

    /// Same as `write`, completing on the writer thread through `completion` (no task needed).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        enqueue(ClosureJob(body: body, completion: completion))
    }

    /// Commits and jobs so far.
    public var statistics: (commits: UInt64, jobs: UInt64) {
        condition.lock(); defer { condition.unlock() }
        return (commitCount, jobCount)
    }

    private func enqueue(_ job: any WriteJob) {
        condition.lock()
        if stopping {
            condition.unlock()
            job.finish(.failure(StorageError(code: 21, message: "the database is closing")))
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Finishes every queued job, stops the thread and closes the connection. Idempotent; blocks
    /// until done.
    public func close() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty && stopping {
                database = nil
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let take = min(queue.count, maxJobsPerCommit)
            let batch = Array(queue.prefix(take))
            queue.removeFirst(take)
            condition.unlock()
            guard let database else { continue }
            commit(batch, on: database)
        }
    }

    private func commit(_ batch: [any WriteJob], on database: Database) {
        var results: [Result<Void, Error>] = []
        results.reserveCapacity(batch.count)
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.finish(.failure(error)) }
            return
        }
        let single = batch.count == 1
        for job in batch {
            observer?.jobWillRun()
            if single {
                results.append(Result { try job.run(database) })
                continue
            }
            do {
                try database.execute("SAVEPOINT job")
                try job.run(database)
                try database.execute("RELEASE job")
                results.append(.success(()))
            } catch {
                try? database.execute("ROLLBACK TO job")
                try? database.execute("RELEASE job")
                observer?.jobRolledBack()
                results.append(.failure(error))
            }
        }
        if single, case .failure(let error) = results[0] {
            try? database.execute("ROLLBACK")
            observer?.transactionRolledBack()
            batch[0].finish(.failure(error))
            return
        }
        do {
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            observer?.transactionRolledBack()
            for job in batch { job.finish(.failure(error)) }
            return
        }
        observer?.transactionCommitted()
        commitHooks.afterCommit?()
        condition.lock()
        commitCount += 1
        jobCount += UInt64(batch.count)
        condition.unlock()
        for (job, result) in zip(batch, results) { job.finish(result) }
    }
}

/// Optional callbacks around commits (tests use them to observe group commit).
public struct CommitHooks: Sendable {
    public var afterCommit: (@Sendable () -> Void)?
    public init(afterCommit: (@Sendable () -> Void)? = nil) { self.afterCommit = afterCommit }
}

/// Follows the writer's transactions, on the writer thread: each job runs between
/// `jobWillRun` and either the next `jobWillRun`, `jobRolledBack` (that job's changes were
/// undone) or the end of the transaction (`transactionCommitted` / `transactionRolledBack`).
public protocol TransactionObserver: AnyObject, Sendable {
    func jobWillRun()
    func jobRolledBack()
    func transactionCommitted()
    func transactionRolledBack()
}

/// A unit of work for the writer: `run` executes inside the transaction; `finish` reports the
/// outcome after the commit (or the failure).
protocol WriteJob: AnyObject {
    func run(_ database: Database) throws
    func finish(_ result: Result<Void, Error>)
}

private final class ClosureJob<T: Sendable>: WriteJob {
    let body: @Sendable (Database) throws -> T
    let completion: @Sendable (Result<T, Error>) -> Void
    var value: T?

    init(body: @escaping @Sendable (Database) throws -> T, completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        self.body = body
        self.completion = completion
    }

    func run(_ database: Database) throws { value = try body(database) }

    func finish(_ result: Result<Void, Error>) {
        switch result {
        case .success:
            if let value { completion(.success(value)) }
            else { completion(.failure(StorageError.misuse("write job finished without a value"))) }
        case .failure(let error):
            completion(.failure(error))
        }
    }
}
