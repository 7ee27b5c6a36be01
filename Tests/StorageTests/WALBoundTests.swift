import Foundation
import Synchronization
import Testing
@testable import Storage

/// The write-ahead log stays within its bound while writes and reads never pause, and is
/// truncated once writes stop.
@Suite struct WALBoundTests {
    static func walBytes(_ path: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Without the background checkpointer only the writer's checkpoints copy frames, so the log
    /// can start over only through them; with it, most frames are copied beforehand.
    @Test(arguments: [false, true])
    func theLogStaysWithinItsBoundUnderConcurrentWritesAndReadsAndIsTruncatedAfterwards(background: Bool) async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path, synchronous: .normal)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        let limits = WALLimits(maxBytes: 4 << 20, idleTruncateMilliseconds: 20)
        let bound = WALBound(limits: limits, databasePath: path)
        try bound.attach(to: db)
        let writer = DatabaseWriter(database: db, maintenance: bound)
        let checkpointer = background ? try Checkpointer(path: path, bound: bound) : nil
        let readers = try ReaderPool(path: path, size: 2)
        let probe = LoadProbe()

        // Readers never stop while the writes run; each read is one short transaction.
        let reads = Task.detached {
            var count = 0
            while probe.running.withLock({ $0 }) {
                _ = try readers.read { try $0.firstRow("SELECT count(*), sum(length(v)) FROM t") { $0.int(0) } }
                probe.note(Self.walBytes(path))
                count += 1
                await Task.yield()   // the cooperative pool must run the writes too
            }
            return count
        }
        // 20 writers × 100 commits; rows are rewritten at random keys so commits touch pages all over.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<20 {
                group.addTask {
                    var random = UInt64(w + 1) &* 0x9E37_79B9_7F4A_7C15
                    for i in 0..<100 {
                        random ^= random << 13; random ^= random >> 7; random ^= random << 17
                        let key = Int64(w * 100 + i), other = Int64(random % 2_000)
                        try await writer.write { db in
                            try db.run("INSERT OR REPLACE INTO t (k, v) VALUES (?, randomblob(3000))", [.integer(key)])
                            try db.run("UPDATE t SET v = randomblob(3000) WHERE k = ?", [.integer(other)])
                        }
                        probe.note(Self.walBytes(path))
                    }
                }
            }
            try await group.waitForAll()
        }
        probe.running.withLock { $0 = false }
        let readCount = try await reads.value

        let status = bound.status
        // The load wrote many times the bound (so it took checkpoints to stay within it) ...
        #expect(status.writtenBytes >= 4 * limits.maxBytes, "\(status)")
        if !background { #expect(status.restarts + status.truncations >= 3, "\(status)") }
        #expect(readCount > 0)
        // ... and the file never exceeded it by more than one commit (well under the bound).
        #expect(status.largestCommitBytes < limits.maxBytes / 2, "\(status)")
        #expect(probe.largest.withLock { $0 } <= limits.maxBytes + status.largestCommitBytes, "\(status)")

        // Liveness, not timing: the deadline only keeps a broken bound from hanging the suite.
        #expect(bound.waitUntilTruncated(deadline: Date().addingTimeInterval(60)))
        #expect(Self.walBytes(path) == 0)
        #expect(bound.status.lastCompleteCheckpoint != nil)

        checkpointer?.close()
        writer.close()
        readers.close()
        let reopened = try Database(path: path)
        #expect(try reopened.integrityCheck() == ["ok"])
        #expect(try reopened.firstRow("SELECT count(*) FROM t") { $0.int(0) } == 2_000)
    }

    /// Past the early target the writer starts the log over only when that waits for nobody:
    /// while a reader holds an old snapshot the attempts give way and writes go on; once it is
    /// gone the log starts over again and again long before half the bound (the background
    /// checkpoint, as in the server, leaving the writer little to copy).
    @Test func theLogStartsOverEarlyWhenNobodyHasToWait() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path, synchronous: .full)   // the server's pace: one sync a commit
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        let limits = WALLimits(maxBytes: 64 << 20, idleTruncateMilliseconds: 600_000, earlyRestartTargetBytes: 256 << 10)
        let bound = WALBound(limits: limits, databasePath: path)
        try bound.attach(to: db)
        let writer = DatabaseWriter(database: db, maintenance: bound)
        let checkpointer = try Checkpointer(path: path, bound: bound)
        defer { checkpointer.close(); writer.close() }
        func insert(_ keys: Range<Int>) async throws {
            for key in keys {
                try await writer.write { try $0.run("INSERT INTO t (k, v) VALUES (?, randomblob(3000))", [.integer(Int64(key))]) }
            }
        }

        let reader = try Database(path: path, mode: .readOnly)
        try reader.execute("BEGIN")
        _ = try reader.firstRow("SELECT count(*) FROM t") { $0.int(0) }   // holds its snapshot
        try await insert(0..<300)
        let pinned = bound.status
        #expect(pinned.restarts == 0 && pinned.logBytes > 4 * limits.earlyRestartBytes && pinned.holdingSeconds == 0, "\(pinned)")

        try reader.execute("COMMIT")
        // Writes go on until the log has started over three times (bounded by rows, not time):
        // each time early, none at half the bound.
        var rows = 300
        while bound.status.earlyRestarts < 3 && rows < 20_000 {
            try await insert(rows..<(rows + 100))
            rows += 100
        }
        let status = bound.status
        #expect(status.earlyRestarts >= 3 && status.restarts == status.earlyRestarts, "\(status)")
        #expect(status.logBytes < limits.restartBytes && status.holdingSeconds == 0, "\(status)")
        #expect(try db.firstRow("SELECT count(*) FROM t") { $0.int(0) } == rows)
    }

    /// Early attempts that gave way to an old reader are forgotten once the log starts over by
    /// other means (here the restart at half the bound, after the reader let go): the next log
    /// starts over early again.
    @Test func earlyRestartsResumeAfterTheLogStartedOverAtHalfTheBound() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path, synchronous: .full)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        let limits = WALLimits(maxBytes: 8 << 20, idleTruncateMilliseconds: 600_000, restartPatienceMilliseconds: 0,
                               earlyRestartTargetBytes: 256 << 10)
        let bound = WALBound(limits: limits, databasePath: path)
        try bound.attach(to: db)
        let writer = DatabaseWriter(database: db, maintenance: bound)
        let checkpointer = try Checkpointer(path: path, bound: bound)
        defer { checkpointer.close(); writer.close() }
        var rows = 0
        func insert(_ count: Int) async throws {
            for _ in 0..<count {
                let key = Int64(rows)
                try await writer.write { try $0.run("INSERT INTO t (k, v) VALUES (?, randomblob(3000))", [.integer(key)]) }
                rows += 1
            }
        }

        // A reader pins the log past half the bound: every restart attempt gives way meanwhile.
        let reader = try Database(path: path, mode: .readOnly)
        try reader.execute("BEGIN")
        _ = try reader.firstRow("SELECT count(*) FROM t") { $0.int(0) }
        while bound.status.logBytes < limits.restartBytes + (512 << 10) && rows < 20_000 { try await insert(50) }
        #expect(bound.status.restarts == 0, "\(bound.status)")
        try reader.execute("COMMIT")
        // Writes go on until the log has started over (by the writer at half the bound, or by
        // SQLite once everything was copied), then until it starts over early again.
        var limit = rows + 20_000
        while bound.status.logBytes >= limits.restartBytes && rows < limit { try await insert(10) }
        #expect(bound.status.logBytes < limits.restartBytes && bound.status.earlyRestarts == 0, "\(bound.status)")
        limit = rows + 20_000
        while bound.status.earlyRestarts < 1 && rows < limit { try await insert(50) }
        #expect(bound.status.earlyRestarts >= 1, "\(bound.status)")
    }

    @Test func aCheckpointWaitsForAnOldReaderOnlyAsLongAsAllowed() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path, synchronous: .normal)
        try db.execute("PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
        let reader = try Database(path: path, mode: .readOnly)
        try reader.execute("BEGIN")
        _ = try reader.firstRow("SELECT count(*) FROM t") { $0.int(0) }   // holds its snapshot
        try db.execute("INSERT INTO t VALUES (2)")
        let pinned = try db.checkpoint(.restart, waitMilliseconds: 10)
        #expect(pinned.busy && !pinned.isComplete)
        try reader.execute("COMMIT")
        let done = try db.checkpoint(.truncate, waitMilliseconds: 10)
        #expect(done.isComplete && done.logFrames == 0)
        #expect(Self.walBytes(path) == 0)
    }
}

/// What concurrent load tasks share: whether to go on, and the largest WAL file size seen.
final class LoadProbe: Sendable {
    let running = Mutex(true)
    let largest = Mutex<Int64>(0)

    func note(_ walBytes: Int64) { largest.withLock { $0 = max($0, walBytes) } }
}
