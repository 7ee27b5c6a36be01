import Foundation
import Synchronization
import ThreadControl

/// The single writer: one connection on one thread that group-commits.
///
/// Jobs submitted from any thread queue up; the writer thread takes every queued job (up to
/// `maxJobsPerCommit`), runs them in one `BEGIN IMMEDIATE` transaction — each in its own
/// savepoint, so one job's failure rolls back only that job — commits once, and only then
/// completes each job. Invariant: a job's success is reported only after its commit returned
/// (with `synchronous=FULL`, after the WAL was fsynced), so "a 2xx means committed" holds for
/// anyone answering after `write` returns.
public final class DatabaseWriter: @unchecked Sendable {
    // @unchecked: the connection is the writer thread's (`ThreadConfined`, checked); `recovery`
    // is used only by the writer thread; `thread` is set once in init.
    private let line: GroupCommitLine<any WriteJob>
    private let connection: ThreadConfined<Database?>
    private var thread: Thread?
    private let commitHooks: CommitHooks
    private let observer: (any TransactionObserver)?
    private let maintenance: (any WriterMaintenance)?

    /// Statistics for metrics: commits done and jobs committed.
    private let counts = Mutex<(commits: UInt64, jobs: UInt64)>((0, 0))

    /// Replaces a connection that cannot write (nil: never); writer thread only.
    private let recovery: WriterRecovery?

    /// `observer` hears, on the writer thread, of every job start, job rollback, commit and
    /// transaction rollback (for state kept beside the database that must follow it).
    /// `reconnect` opens a new writer connection to the same file with the same settings, after
    /// closing (and before reopening) the process's other connections to it: with it, writing
    /// resumes by itself once a database that was read-only is writable again (see
    /// `WriterRecovery`); it runs on the writer thread with the writer's connection closed.
    /// `maintenance` runs on the writer thread between commits and while idle.
    public init(database: Database, maxJobsPerCommit: Int = 4_096, commitHooks: CommitHooks = CommitHooks(),
                observer: (any TransactionObserver)? = nil, maintenance: (any WriterMaintenance)? = nil,
                reconnect: (@Sendable () throws -> Database)? = nil) {
        self.connection = ThreadConfined(database)
        self.line = GroupCommitLine(maxJobsPerCommit: maxJobsPerCommit)
        self.commitHooks = commitHooks
        self.observer = observer
        self.recovery = reconnect.map { WriterRecovery(path: database.path, reconnect: $0) }
        self.maintenance = maintenance
        let thread = Thread { [unowned self] in
            CurrentThread.name("fod-writer")
            self.connection.claim()
            self.runLoop()
        }
        self.thread = thread
        thread.start()
    }

    deinit {
        precondition(line.hasEnded || thread == nil, "DatabaseWriter.close() must be called before release")
    }

    /// Runs `body` on the writer connection inside the next group commit and returns its result
    /// once that commit is durable. Throws `body`'s error (its changes rolled back) or the
    /// commit's error (nothing of the batch was stored).
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(ClosureWriteJob(body: body) { continuation.resume(with: $0) })
        }
    }

    /// Same as `write`, and calls `onCommit` with the result on the writer thread right after the
    /// commit, before the caller resumes: `onCommit` calls happen in commit order (for
    /// publishing events in the order they were committed). Keep it short.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(ClosureWriteJob(body: body) { result in
                if case .success(let value) = result { onCommit(value) }
                continuation.resume(with: result)
            })
        }
    }

    /// Same as `write`, completing on the writer thread through `completion` (no task needed).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        enqueue(ClosureWriteJob(body: body, completion: completion))
    }

    /// Commits and jobs so far.
    public var statistics: (commits: UInt64, jobs: UInt64) {
        counts.withLock { $0 }
    }

    private func enqueue(_ job: any WriteJob) {
        guard let refused = line.submit(job) else { return }
        refused.finish(.failure(StorageError(code: 21, message: "the database is closing")))
    }

    /// Finishes every queued job, stops the thread and closes the connection. Idempotent; blocks
    /// until done.
    public func close() {
        line.closeAndWait()
    }

    /// The writer thread: takes the queue's batches and commits them; while idle, runs
    /// `maintenance` when it is due.
    private func runLoop() {
        // Idle work is due only while there is a connection to do it on.
        line.runWriter(idleDeadline: { connection.value == nil ? nil : maintenance?.idleDeadline() }, idle: {
            if let maintenance, let database = connection.value { maintenance.idle(database) }
        }, stop: {
            connection.value = nil
        }, commit: { batch in
            // In place: the recovery closes the connection by dropping it, before it reconnects.
            connection.update { recovery?.replaceIfReadOnly(&$0) }
            guard let database = connection.value else {
                let error = recovery?.unavailable ?? StorageError.misuse("the writer has no connection")
                for job in batch { job.finish(.failure(error)) }
                return
            }
            let errors = commit(batch, on: database)
            recovery?.batchEnded(errors: errors)
            maintenance?.afterCommit(database)
        })
    }

    /// Runs `batch` in one transaction and reports every job's outcome.
    ///
    /// A failing job is rolled back to its savepoint — unless SQLite rolled the whole
    /// transaction back by itself (it may on SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM): then the
    /// jobs before it are undone too and those after it must not run outside a transaction, so
    /// the whole batch fails with that error. Returns the errors the jobs failed with.
    private func commit(_ batch: [any WriteJob], on database: Database) -> [Error] {
        // A rollback that failed earlier may have left a transaction open.
        if database.isInTransaction { try? database.execute("ROLLBACK") }
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.finish(.failure(error)) }
            return [error]
        }
        var results: [Result<Void, Error>] = []
        results.reserveCapacity(batch.count)
        let single = batch.count == 1
        for job in batch {
            observer?.jobWillRun()
            if single {
                results.append(Result { try job.run(database) })
                continue
            }
            switch JobSavepoint.run(execute: { try database.execute($0) }, abortsTransaction: { _ in !database.isInTransaction },
                                    { try job.run(database) }) {
            case .kept:
                results.append(.success(()))
            case .undone(let error):
                observer?.jobRolledBack()
                results.append(.failure(error))
            case .transactionLost(let error):
                if database.isInTransaction { try? database.execute("ROLLBACK") }
                observer?.transactionRolledBack()
                for job in batch { job.finish(.failure(error)) }
                return [error]
            }
        }
        if single, case .failure(let error) = results[0] {
            try? database.execute("ROLLBACK")
            observer?.transactionRolledBack()
            batch[0].finish(.failure(error))
            return [error]
        }
        do {
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            observer?.transactionRolledBack()
            for job in batch { job.finish(.failure(error)) }
            return [error]
        }
        observer?.transactionCommitted()
        commitHooks.afterCommit?()
        counts.withLock { $0 = ($0.commits + 1, $0.jobs + UInt64(batch.count)) }
        for (job, result) in zip(batch, results) { job.finish(result) }
        return results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
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

/// The writer's closure jobs.
extension ClosureWriteJob: WriteJob where Connection == Database {}

extension ClosureWriteJob where Connection == Database {
    convenience init(body: @escaping @Sendable (Database) throws -> Value, completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        self.init(body: body, completion: completion, missingValue: { StorageError.misuse("write job finished without a value") })
    }
}
