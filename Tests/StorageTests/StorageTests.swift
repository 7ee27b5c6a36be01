import Foundation
import Synchronization
import Testing
@testable import Storage

func temporaryDatabasePath() -> String { NSTemporaryDirectory() + "fod-storage-" + UUID().uuidString + ".sqlite" }

/// Removes a test database with its write-ahead log, shared-memory index and rollback journal.
func removeDatabaseFiles(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

@Suite struct MigratorTests {
    let migrator = Migrator([
        .init(version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER)"),
        .init(version: 2, name: "b", sql: "CREATE TABLE b (y INTEGER)"),
    ])

    @Test func appliesInOrderOnceAndIsIdempotent() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        #expect(try migrator.migrate(db) == [1, 2])
        #expect(try Migrator.currentVersion(of: db) == 2)
        #expect(try migrator.migrate(db) == [])
        let reopened = try Database(path: path)
        #expect(try migrator.migrate(reopened) == [])
        try reopened.run("INSERT INTO b (y) VALUES (1)")
    }

    @Test func aFailingMigrationLeavesTheOldVersionAndNoHalfSchema() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try Migrator([migrator.migrations[0]]).migrate(db)
        let broken = Migrator(migrator.migrations.dropLast() + [.init(version: 2, name: "bad", sql: "CREATE TABLE c (z); SELEKT nonsense")])
        #expect(throws: StorageError.self) { try broken.migrate(db) }
        #expect(try Migrator.currentVersion(of: db) == 1)
        #expect(try db.rows("SELECT name FROM sqlite_master WHERE name = 'c'") { $0.string(0) }.isEmpty)
    }

    @Test func refusesADatabaseFromANewerProgram() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try migrator.migrate(db)
        #expect(throws: StorageError.self) { try Migrator([migrator.migrations[0]]).migrate(db) }
    }
}

@Suite struct WriterTests {
    @Test func concurrentWritesAreGroupCommittedAndAllDurable() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v INTEGER UNIQUE)")
        let writer = DatabaseWriter(database: db)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<500 {
                group.addTask { _ = try await writer.write { try $0.run("INSERT INTO t (v) VALUES (?)", [.int(i)]) } }
            }
            try await group.waitForAll()
        }
        let stats = writer.statistics
        writer.close()
        #expect(stats.jobs == 500)
        #expect(stats.commits < 500)  // several jobs shared a commit
        let readers = try ReaderPool(path: path, size: 1)
        #expect(try readers.read { try $0.firstRow("SELECT count(*) FROM t") { $0.int(0) } } == 500)
        readers.close()
    }

    @Test func oneFailingJobDoesNotRollBackItsBatchNeighbours() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v INTEGER UNIQUE)")
        try db.run("INSERT INTO t (v) VALUES (0)")
        let writer = DatabaseWriter(database: db)
        let failures = Counter()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask {
                    do { _ = try await writer.write { try $0.run("INSERT INTO t (v) VALUES (?)", [.int(i % 100)]) } }
                    catch { failures.increment() }
                }
            }
        }
        writer.close()
        let readers = try ReaderPool(path: path, size: 1)
        #expect(try readers.read { try $0.firstRow("SELECT count(*) FROM t") { $0.int(0) } } == 100)
        readers.close()
        #expect(failures.value == 101)  // i = 0 and i = 100 both hit the pre-inserted 0
    }

    @Test func writesAfterCloseFailCleanly() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let writer = DatabaseWriter(database: try Database(path: path))
        writer.close()
        await #expect(throws: StorageError.self) { try await writer.write { try $0.execute("SELECT 1") } }
    }
}

@Suite struct MaintenanceTests {
    @Test func integrityCheckAndBackup() throws {
        let path = temporaryDatabasePath()
        let copy = temporaryDatabasePath()
        defer { removeDatabaseFiles(path); removeDatabaseFiles(copy) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v TEXT)")
        for i in 0..<1000 { try db.run("INSERT INTO t (v) VALUES (?)", [.text("row \(i)")]) }
        #expect(try db.integrityCheck() == ["ok"])
        try db.backup(to: copy, pagesPerStep: 2)
        let restored = try Database(path: copy)
        #expect(try restored.firstRow("SELECT count(*) FROM t") { $0.int(0) } == 1000)
    }

    @Test func statementCacheReusesPreparedStatements() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        let a = try db.prepare("SELECT 1")
        let b = try db.prepare("SELECT 1")
        #expect(a === b)
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite struct ReaderPoolTests {
    /// Reads joined by `readingTogether` see one snapshot (a commit made meanwhile is not in
    /// it, and is in the next read after it), on one connection: with a pool of one, a read
    /// that took a connection of its own inside would wait forever. Another pool's reads keep
    /// transactions of their own.
    @Test func readsJoinedTogetherShareOneSnapshotAndOneConnection() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
        let readers = try ReaderPool(path: path, size: 1)
        defer { readers.close() }
        let others = try ReaderPool(path: path, size: 1)
        defer { others.close() }
        func count(_ pool: ReaderPool) throws -> Int? { try pool.read { try $0.firstRow("SELECT count(*) FROM t") { $0.int(0) } } }
        let seen = try readers.readingTogether { () throws -> [Int?] in
            let before = try count(readers)
            try db.execute("INSERT INTO t VALUES (2)")
            let nested = try readers.readingTogether { try count(readers) }
            return [before, try count(readers), nested, try count(others)]
        }
        #expect(seen == [1, 1, 1, 2])
        #expect(try count(readers) == 2)
        // An error inside ends the transaction and gives the connection back.
        struct Stop: Error {}
        #expect(throws: Stop.self) { try readers.readingTogether { _ = try count(readers); throw Stop() } }
        try db.execute("INSERT INTO t VALUES (3)")
        #expect(try count(readers) == 3)
    }
}
