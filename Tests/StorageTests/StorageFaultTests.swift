import Foundation
import Synchronization
import Testing
@testable import Storage

/// How storage failures are classified, and how the writer behaves through them.
@Suite struct StorageFaultTests {
    @Test(arguments: [
        (13, 13, 0, StorageError.Fault.storageFull),       // SQLITE_FULL
        (10, 778, Int(ENOSPC), .storageFull),               // SQLITE_IOERR_WRITE, no space
        (10, 778, Int(EFBIG), .storageFull),                // file-size limit (RLIMIT_FSIZE)
        (10, 778, Int(EDQUOT), .storageFull),               // quota
        (10, 4874, 0, .storageFull),                        // SQLITE_IOERR_SHMSIZE
        (8, 8, 0, .readOnly),                               // SQLITE_READONLY
        (8, 1032, 0, .readOnly),                            // SQLITE_READONLY_DBMOVED
        (10, 778, Int(EROFS), .readOnly),                   // filesystem remounted read-only
        (14, 14, Int(EACCES), .readOnly),                   // SQLITE_CANTOPEN, permission
        (10, 778, Int(EIO), .ioError),                      // a failing disk
        (5, 5, 0, .busy),
    ] as [(Int, Int, Int, StorageError.Fault)])
    func faultsAreRecognised(code: Int, extended: Int, errno: Int, fault: StorageError.Fault) {
        let error = StorageError(code: Int32(code), extendedCode: Int32(extended), message: "m", systemErrno: Int32(errno))
        #expect(error.fault == fault)
    }

    @Test func errorsOfTheStatementAreNoFault() {
        for (code, extended) in [(19, 2067), (1, 1), (11, 11), (21, 21), (14, 14)] {
            #expect(StorageError(code: Int32(code), extendedCode: Int32(extended), message: "m").fault == nil)
        }
    }

    /// SQLite may roll a whole transaction back by itself when a statement fails (SQLITE_FULL,
    /// SQLITE_IOERR …). A job doing that here stands in for it: the jobs before it in the batch
    /// are undone too, so they must fail, and the jobs after it must not run without a
    /// transaction (each statement would commit on its own, then be reported as failed).
    @Test func aTransactionLostInsideABatchFailsTheWholeBatchAndNothingRunsOutsideIt() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        let writer = DatabaseWriter(database: db)
        defer { writer.close() }
        let blocking = DispatchSemaphore(value: 0), running = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[Int: Bool]>([:])
        let done = DispatchGroup()
        func submit(_ tag: Int, _ body: @escaping @Sendable (Database) throws -> Void) {
            done.enter()
            writer.write(body) { result in
                outcomes.withLock { $0[tag] = (try? result.get()) != nil }
                done.leave()
            }
        }
        // Job 0 holds the writer thread so that jobs 1, 2 and 3 queue up into one batch.
        submit(0) { _ in running.signal(); blocking.wait() }
        running.wait()
        submit(1) { try $0.run("INSERT INTO t (v) VALUES (1)") }
        submit(2) { db in
            try db.execute("ROLLBACK")
            throw StorageError(code: 13, message: "database or disk is full")
        }
        submit(3) { try $0.run("INSERT INTO t (v) VALUES (3)") }
        blocking.signal()
        done.wait()
        #expect(outcomes.withLock { $0 } == [0: true, 1: false, 2: false, 3: false])
        let readers = try ReaderPool(path: path, size: 1)
        defer { readers.close() }
        #expect(try readers.read { try $0.rows("SELECT v FROM t") { $0.int(0) } } == [])
        // The writer carries on.
        done.enter()
        writer.write({ try $0.run("INSERT INTO t (v) VALUES (4)") }) { _ in done.leave() }
        done.wait()
        #expect(try readers.read { try $0.rows("SELECT v FROM t") { $0.int(0) } } == [4])
    }

    @Test func aFullDatabaseFailsAsStorageFullAndTheWriterCarriesOnOnceThereIsRoom() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v BLOB)")
        let writer = DatabaseWriter(database: db)
        defer { writer.close() }
        // `max_page_count` caps this connection's file at its current size: no room to grow.
        try await writer.write { db in
            let pages = try db.firstRow("PRAGMA page_count") { $0.int(0) } ?? 0
            try db.execute("PRAGMA max_page_count = \(pages)")
        }
        let blob = SQLValue.blob([UInt8](repeating: 7, count: 64 * 1024))
        let failure = await #expect(throws: StorageError.self) {
            try await writer.write { try $0.run("INSERT INTO t (v) VALUES (?)", [blob]) }
        }
        #expect(failure?.fault == .storageFull)
        try await writer.write { try $0.execute("PRAGMA max_page_count = 1073741823") }
        try await writer.write { try $0.run("INSERT INTO t (v) VALUES (?)", [blob]) }
        let count = try await writer.write { try $0.firstRow("SELECT count(*) FROM t") { $0.int(0) } }
        #expect(count == 1)
    }

    /// A connection opened read-only stays so; the writer replaces it through `reconnect` once
    /// the file opens read-write.
    @Test func aWriterOnAReadOnlyConnectionReconnectsWhenTheFileIsWritable() async throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        try Database(path: path).execute("CREATE TABLE t (v INTEGER)")
        let readOnly = try Database(path: path, mode: .readOnly)
        #expect(readOnly.isReadOnly)
        let reconnects = Counter()
        let writer = DatabaseWriter(database: readOnly) {
            reconnects.increment()
            return try Database(path: path)
        }
        defer { writer.close() }
        try await writer.write { try $0.run("INSERT INTO t (v) VALUES (1)") }
        try await writer.write { try $0.run("INSERT INTO t (v) VALUES (2)") }
        #expect(reconnects.value == 1)
        let count = try await writer.write { try $0.firstRow("SELECT count(*) FROM t") { $0.int(0) } }
        #expect(count == 2)
    }

    @Test func readersReopenAfterClosingTheirConnections() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(path) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
        let readers = try ReaderPool(path: path, size: 2)
        defer { readers.close() }
        readers.closeConnections()
        try db.execute("INSERT INTO t VALUES (2)")
        readers.reopenConnections()
        #expect(try readers.read { try $0.firstRow("SELECT count(*) FROM t") { $0.int(0) } } == 2)
    }
}
