import Foundation
import PostgresClient
import Synchronization
import Testing

@Suite("PostgreSQL connection pool and advisory locks", TestDatabase.available)
struct PoolAndLockTests {
    @Test func manyThreadsShareAFixedNumberOfConnections() throws {
        let pool = ConnectionPool(try TestDatabase.server().url, size: 3, checkoutTimeout: .seconds(30))
        let table = TestDatabase.uniqueName("pool")
        try pool.withConnection { try $0.execute("CREATE TABLE \(table) (thread bigint, n bigint)") }
        let failures = Mutex<[String]>([])
        let backends = Mutex<Set<Int32>>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<25 {
                do {
                    try pool.withConnection { connection in
                        backends.withLock { _ = $0.insert(connection.backendPID) }
                        try connection.queryPrepared("INSERT INTO \(table) VALUES ($1, $2)", [.int64(Int64(thread)), .int64(Int64(n))])
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(backends.withLock { $0.count } <= 3)
        #expect(pool.statistics.open <= 3 && pool.statistics.lent == 0)
        #expect(try pool.withConnection { try $0.query("SELECT count(*) FROM \(table)").row(0).int64(0) } == 200)
    }

    @Test func aBorrowerWaitsAtMostTheCheckoutTimeout() throws {
        let pool = ConnectionPool(try TestDatabase.server().url, size: 1, checkoutTimeout: .milliseconds(50))
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? pool.withConnection { _ in
                held.signal()
                release.wait()
            }
        }
        holder.start()
        held.wait()
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error?.sqlState == .tooManyConnections && error?.isUnavailable == true)
        release.signal()
        // The holder gives it back; a patient borrower gets it.
        let patient = ConnectionPool(try TestDatabase.server().url, size: 1, checkoutTimeout: .seconds(30))
        #expect(try patient.withConnection { try $0.query("SELECT 1").row(0).int64(0) } == 1)
        pool.close()
        let closed = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(closed?.sqlState == .objectNotInPrerequisiteState)
    }

    @Test func brokenConnectionsAreReplaced() throws {
        let pool = ConnectionPool(try TestDatabase.server().url, size: 1, checkoutTimeout: .seconds(30))
        let admin = try TestDatabase.connect()
        let first = try pool.withConnection { $0.backendPID }
        // Its session ends while it sits idle in the pool: found before it is lent again.
        #expect(try terminate(first, from: admin))
        let second = try pool.withConnection { connection throws in
            #expect(try connection.query("SELECT 1").row(0).int64(0) == 1)
            return connection.backendPID
        }
        #expect(second != first)
        // Its session ends while lent: the borrower sees the error, the pool drops the connection.
        #expect(throws: PostgresError.self) {
            try pool.withConnection { connection in
                _ = try terminate(connection.backendPID, from: admin)
                try connection.query("SELECT 1")
            }
        }
        // Left inside a transaction: not lent again either.
        let third = try pool.withConnection { connection in
            try connection.begin()
            return connection.backendPID
        }
        let fourth = try pool.withConnection { connection in
            #expect(connection.transactionStatus == .idle)
            return connection.backendPID
        }
        #expect(third != second && fourth != third)
        #expect(pool.statistics.open == 1)
    }

    @Test func anUnreachableDatabaseIsUnavailableNotFatal() throws {
        let pool = ConnectionPool("postgresql://postgres@127.0.0.1:1/postgres?connect_timeout=5", size: 2)
        for _ in 0..<3 {
            let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
            #expect(error?.isUnavailable == true)
        }
        #expect(pool.statistics.open == 0)
    }

    @Test func anAdvisoryLockHasOneHolderAtATime() throws {
        let url = try TestDatabase.server().url
        let key = AdvisoryLockKey(name: TestDatabase.uniqueName("retention"))
        #expect(AdvisoryLockKey(name: "retention") == AdvisoryLockKey(name: "retention"))
        // FNV-1a's published 64-bit values: the key of a name never changes between builds.
        #expect(AdvisoryLockKey(name: "").rawValue == Int64(bitPattern: 0xcbf2_9ce4_8422_2325))
        #expect(AdvisoryLockKey(name: "a").rawValue == Int64(bitPattern: 0xaf63_dc4c_8601_ec8c))
        let nodeA = try AdvisoryLockSession(url)
        let nodeB = try AdvisoryLockSession(url)
        #expect(try nodeA.tryLock(key))
        #expect(try !nodeB.tryLock(key))
        #expect(nodeA.isHeld(key) && !nodeB.isHeld(key))
        #expect(nodeA.heldKeys == [key] && nodeB.heldKeys.isEmpty)
        #expect(try nodeA.unlock(key))
        #expect(!nodeA.isHeld(key))
        #expect(try nodeB.tryLock(key))
        #expect(try !nodeA.tryLock(key))
        // B's node dies: the server releases its lock, A takes over; B knows it lost it.
        let admin = try Connection(url)
        #expect(try terminate(nodeB.backendPID, from: admin))
        #expect(try nodeA.tryLock(key))
        #expect(!nodeB.isHeld(key))
        #expect(nodeB.heldKeys.isEmpty)
        try nodeB.reconnect()
        #expect(try !nodeB.tryLock(key))
        // Negative keys and keys above 32 bits map to pg_locks correctly.
        for raw in [Int64(-1), Int64.min, Int64(1) << 40 | 7] {
            #expect(try nodeB.tryLock(AdvisoryLockKey(raw)))
            #expect(nodeB.isHeld(AdvisoryLockKey(raw)))
            #expect(!nodeA.isHeld(AdvisoryLockKey(raw)))
        }
    }
}
