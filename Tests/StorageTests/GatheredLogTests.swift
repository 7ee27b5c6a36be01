import CSQLite
import Testing
@testable import Storage

/// The VFS that gathers write-ahead log writes (Sources/CSQLiteLog): which connections use it,
/// and that what they commit is in the file for every other connection the moment the commit
/// returns, whatever the size of the transaction, spills, rollbacks and restarts of the log.
@Suite struct GatheredLogTests {
    /// The name of the VFS the connection opened its files with.
    static func vfsName(_ database: Database) -> String? {
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        guard sqlite3_file_control(database.handle, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK,
              let name = vfs?.pointee.zName else { return nil }
        return String(cString: name)
    }

    @Test func connectionsThatWriteAndSyncEveryCommitGather() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let writer = try Database(path: path)
        #expect(Self.vfsName(writer) == "fod-gathered-log")
        #expect(Self.vfsName(try Database(path: path, synchronous: .normal)) == "unix")
        #expect(Self.vfsName(try Database(path: path, mode: .readOnly)) == "unix")
    }

    /// Every commit is readable at once by a connection of the default VFS: small ones, one of
    /// ~1.3 MB (far past the 120 KiB gathered at most, with page spills from a 10-page cache),
    /// a spilled transaction rolled back, and commits after the log started over.
    @Test func whatACommitWroteIsReadableByEveryoneAtOnce() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let writer = try Database(path: path)
        try writer.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        try writer.execute("PRAGMA cache_size=10")
        let reader = try Database(path: path, mode: .readOnly)
        func readerSees() throws -> (count: Int, bytes: Int) {
            try reader.firstRow("SELECT count(*), coalesce(sum(length(v)), 0) FROM t") { (Int($0.int64(0)), Int($0.int64(1))) }
                ?? (-1, -1)
        }
        var count = 0
        var bytes = 0
        for k in 0..<200 {
            try writer.run("INSERT INTO t (k, v) VALUES (?, randomblob(?))", [.int(k), .int(k % 50 + 1)])
            count += 1
            bytes += k % 50 + 1
            #expect(try readerSees() == (count, bytes))
        }
        try writer.transaction {
            for k in 1_000..<6_000 { try writer.run("INSERT INTO t (k, v) VALUES (?, randomblob(250))", [.int(k)]) }
        }
        count += 5_000
        bytes += 5_000 * 250
        #expect(try readerSees() == (count, bytes))
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try writer.transaction {
                for k in 10_000..<14_000 { try writer.run("INSERT INTO t (k, v) VALUES (?, randomblob(300))", [.int(k)]) }
                throw Abandon()
            }
        }
        #expect(try readerSees() == (count, bytes))
        for round in 0..<3 {
            try writer.execute("PRAGMA wal_checkpoint(RESTART)")
            try writer.transaction {
                for k in 0..<500 { try writer.run("INSERT INTO t (k, v) VALUES (?, randomblob(100))", [.int(20_000 + round * 1_000 + k)]) }
            }
            count += 500
            bytes += 50_000
            #expect(try readerSees() == (count, bytes))
        }
        #expect(try reader.firstRow("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }

    /// What was committed survives closing every connection (the log is read back at the next
    /// open, before any checkpoint copied it).
    @Test func commitsSurviveReopening() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        do {
            let writer = try Database(path: path)
            try writer.execute("PRAGMA wal_autocheckpoint=0")
            try writer.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
            try writer.transaction {
                for k in 0..<3_000 { try writer.run("INSERT INTO t (k, v) VALUES (?, zeroblob(200))", [.int(k)]) }
            }
            try writer.run("INSERT INTO t (k, v) VALUES (?, x'01')", [.int(99_999)])
            // Keep the log: a second connection open while the first closes stops SQLite's
            // checkpoint-on-close, so the reopened database must read the rows from the log.
            let holder = try Database(path: path, mode: .readOnly)
            _ = try holder.firstRow("SELECT count(*) FROM t") { $0.int64(0) }
            _ = consume writer
            _ = holder
        }
        let reopened = try Database(path: path, mode: .readOnly)
        #expect(try reopened.firstRow("SELECT count(*) FROM t") { $0.int64(0) } == 3_001)
        #expect(try reopened.firstRow("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }
}
