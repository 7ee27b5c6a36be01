import Foundation
import Synchronization
import PostgresClient
import Tracking
import ThreadControl

/// The node's writer: one connection on one thread that group-commits.
///
/// Jobs submitted from any thread queue up; the writer takes every queued job (up to
/// `maxJobsPerCommit`) and runs them in one transaction — each in its own savepoint, so one
/// job's failure rolls back only that job — commits once (`synchronous_commit` on: the commit
/// returned means the WAL is flushed), and only then completes each job, in commit order.
///
/// Jobs that name a `lockOrder` (an append names its device) run sorted by it, after the jobs
/// that name none, in submission order otherwise: every node's writer then takes device rows in
/// the same order, which keeps concurrent batches on different nodes from deadlocking.
///
/// When PostgreSQL aborts the whole transaction (a deadlock with another node's writer, a
/// serialization failure), the batch runs again, up to `maxAttempts` times: jobs are pure
/// functions of the database, so running one again is safe. When the connection is lost, the
/// batch fails with `StoreFailure(.unavailable)` (nothing of it is acknowledged; a resend is
/// deduplicated) and the next batch connects again; a connection whose session ended while it
/// was idle (the database restarted) is replaced before the batch, which then succeeds.
final class GroupCommitWriter: @unchecked Sendable {
    // @unchecked: the connection is the writer thread's (`ThreadConfined`, checked).
    private let line: GroupCommitLine<any PostgresWriteJob>
    private let commits = Atomic<UInt64>(0)
    private let connection = ThreadConfined<Connection?>(nil)
    private let connectionString: String
    /// Shared by the node's writers: jobs are reported in commit order across them.
    private let sequencer: CommitSequencer
    static let maxAttempts = 5

    init(connectionString: String, maxJobsPerCommit: Int = 1_024, sequencer: CommitSequencer = CommitSequencer()) {
        self.connectionString = connectionString
        self.line = GroupCommitLine(maxJobsPerCommit: maxJobsPerCommit)
        self.sequencer = sequencer
        let thread = Thread { [unowned self] in
            CurrentThread.name("fod-pg-writer")
            self.connection.claim()
            self.runLoop()
        }
        thread.start()
    }

    /// Runs `body` inside the next group commit; `onCommit` runs on the writer thread right
    /// after the commit, before the caller resumes (so in commit order).
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T, lockOrder: String? = nil,
                            onCommit: (@Sendable (T) -> Void)? = nil) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            write(body, lockOrder: lockOrder) { result in
                if case .success(let value) = result { onCommit?(value) }
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `body` inside the next group commit and calls `completion` on the writer thread
    /// right after the commit (in commit order), or with the error.
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T, lockOrder: String? = nil,
                            completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        enqueue(PostgresClosureJob(body: body, lockOrder: lockOrder, completion: completion))
    }

    /// Transactions committed so far.
    var commitCount: UInt64 { commits.load(ordering: .relaxed) }

    /// Finishes the queued jobs, stops the thread and closes the connection. Idempotent.
    func close() {
        line.closeAndWait()
    }

    private func enqueue(_ job: any PostgresWriteJob) {
        guard let refused = line.submit(job) else { return }
        refused.finish(.failure(StoreFailure(.unavailable, detail: "the store is closing")))
    }

    /// The writer thread: takes the queue's batches, in lock order, and commits them.
    private func runLoop() {
        line.runWriter(stop: { connection.value = nil }) { jobs in run(Self.lockOrdered(jobs)) }
    }

    /// `batch` with the jobs that name no lock order first, then the others sorted by it;
    /// submission order among equals.
    static func lockOrdered(_ batch: [any PostgresWriteJob]) -> [any PostgresWriteJob] {
        batch.enumerated().sorted { a, b in
            switch (a.element.lockOrder, b.element.lockOrder) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return true
            case (_, nil): return false
            case let (x?, y?): return x == y ? a.offset < b.offset : x < y
            }
        }.map(\.element)
    }

    /// Commits `batch`, trying again when the server aborted the transaction as a whole.
    private func run(_ batch: [any PostgresWriteJob]) {
        var attempt = 1
        while true {
            let connection: Connection
            do {
                connection = try connected()
            } catch {
                for job in batch { job.finish(.failure(PostgresStore.translate(error))) }
                return
            }
            switch commit(batch, on: connection) {
            case .committed(let results, let ticket):
                commits.add(1, ordering: .relaxed)
                if let ticket { sequencer.waitForTurn(ticket) }
                for (job, result) in zip(batch, results) { job.finish(result) }
                if let ticket { sequencer.done(ticket) }
                return
            case .notBegun(let error):
                // The session died while idle (a database restart the liveness check missed):
                // nothing of the batch was sent, so a new connection may run it.
                self.connection.value = nil
                if let error = error as? PostgresError, error.isConnectionLost, attempt < Self.maxAttempts {
                    attempt += 1
                    continue
                }
                for job in batch { job.finish(.failure(PostgresStore.translate(error))) }
                return
            case .failed(let error):
                if let error = error as? PostgresError, error.isRetryableTransaction, attempt < Self.maxAttempts {
                    attempt += 1
                    continue
                }
                for job in batch { job.finish(.failure(PostgresStore.translate(error))) }
                return
            }
        }
    }

    /// The writer's connection, opened again when it was lost — also when its session ended
    /// while it was idle (the database restarted), which is found before the batch is sent.
    private func connected() throws -> Connection {
        if let current = connection.value, current.isAliveWhenIdle() { return current }
        connection.value = nil
        let fresh = try Connection(connectionString)
        connection.value = fresh
        return fresh
    }

    private enum Outcome {
        /// Committed; each job's own result (a job that threw was rolled back to its savepoint),
        /// and the commit's `CommitSequencer` ticket (nil: nothing was committed), to be done
        /// once the jobs are reported.
        case committed([Result<Void, Error>], ticket: UInt64?)
        /// Nothing of the batch was kept.
        case failed(Error)
        /// The transaction could not even begin: nothing of the batch reached the server.
        case notBegun(Error)
    }

    private func commit(_ batch: [any PostgresWriteJob], on connection: Connection) -> Outcome {
        do {
            try connection.begin()
        } catch {
            return .notBegun(error)
        }
        var results: [Result<Void, Error>] = []
        results.reserveCapacity(batch.count)
        let single = batch.count == 1
        for job in batch {
            if single {
                results.append(Result { try job.run(connection) })
                continue
            }
            // The connection broke, or the server aborted the transaction as a whole: the batch fails.
            switch JobSavepoint.run(execute: { _ = try connection.execute($0) }, abortsTransaction: Self.abortsTransaction,
                                    { try job.run(connection) }) {
            case .kept:
                results.append(.success(()))
            case .undone(let error):
                results.append(.failure(error))
            case .transactionLost(let error):
                try? connection.rollback()
                return .failed(error)
            }
        }
        if single, case .failure(let error) = results[0] {
            try? connection.rollback()
            if Self.abortsTransaction(error) { return .failed(error) }
            return .committed(results, ticket: nil)
        }
        let ticket = sequencer.take()
        do {
            try connection.commit()
        } catch {
            sequencer.done(ticket)
            try? connection.rollback()
            return .failed(error)
        }
        return .committed(results, ticket: ticket)
    }

    /// Errors after which the transaction cannot go on: a lost connection, a deadlock or
    /// serialization failure (the server chose this transaction to abort).
    static func abortsTransaction(_ error: Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.isConnectionLost || error.isRetryableTransaction
    }
}

/// A unit of work for the writer: `run` executes inside the transaction; `finish` reports the
/// outcome after the commit (or the failure).
protocol PostgresWriteJob: AnyObject {
    /// Where the job goes in its batch (see `GroupCommitWriter`); nil: first, as submitted.
    var lockOrder: String? { get }
    func run(_ connection: Connection) throws
    func finish(_ result: Result<Void, Error>)
}

/// A closure job with the lock order it runs in (`GroupCommitWriter`).
private final class PostgresClosureJob<T: Sendable>: PostgresWriteJob {
    let lockOrder: String?
    private let job: ClosureWriteJob<Connection, T>

    init(body: @escaping @Sendable (Connection) throws -> T, lockOrder: String?,
         completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        self.lockOrder = lockOrder
        job = ClosureWriteJob(body: body, completion: completion) {
            StoreFailure(.unavailable, detail: "a write job finished without a value")
        }
    }

    func run(_ connection: Connection) throws { try job.run(connection) }
    func finish(_ result: Result<Void, Error>) { job.finish(result) }
}

/// A node's writers: `count` group-committing connections, so that the database can work on
/// several transactions at once (one writer keeps one backend busy at most). A job that names a
/// `lockOrder` (an append names its device) always goes to the same writer, so one device's
/// appends commit in submission order; jobs that name none go to the first.
///
/// Writers of one node meet each other's locks exactly as other nodes' writers do: duplicates,
/// the latest location and event ids are decided by the database, and a deadlock between two
/// writers is retried (`GroupCommitWriter.maxAttempts`). They share a `CommitSequencer`, so
/// their jobs are reported (`onCommit`, completions) in commit order.
final class GroupCommitWriters: Sendable {
    private let writers: [GroupCommitWriter]

    /// - Parameter count: connections, at least 1.
    init(connectionString: String, count: Int) {
        let sequencer = CommitSequencer()
        writers = (0..<max(1, count)).map { _ in GroupCommitWriter(connectionString: connectionString, sequencer: sequencer) }
    }

    /// The writer of jobs with `lockOrder` (FNV-1a of its bytes, the same in every run).
    func writer(for lockOrder: String?) -> GroupCommitWriter {
        guard let lockOrder, writers.count > 1 else { return writers[0] }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in lockOrder.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return writers[Int(hash % UInt64(writers.count))]
    }

    var count: Int { writers.count }
    var commitCount: UInt64 { writers.reduce(0) { $0 + $1.commitCount } }
    func close() { for writer in writers { writer.close() } }
}
