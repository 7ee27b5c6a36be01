import PostgresClient
import Testing

@Suite("PostgreSQL transactions", TestDatabase.available)
struct TransactionTests {
    struct Abort: Error {}

    private func count(_ connection: Connection, _ table: String) throws -> Int64 {
        try connection.query("SELECT count(*) FROM \(table)").row(0).int64(0)
    }

    @Test func commitKeepsAndAThrowRollsBack() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("tx")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY)")
        let returned = try connection.transaction { c in
            try c.queryPrepared("INSERT INTO \(table) VALUES ($1)", [1])
            return "done"
        }
        #expect(returned == "done")
        #expect(throws: Abort.self) {
            try connection.transaction { c in
                try c.queryPrepared("INSERT INTO \(table) VALUES ($1)", [2])
                throw Abort()
            }
        }
        #expect(connection.transactionStatus == .idle)
        #expect(try count(connection, table) == 1)
    }

    /// Generic planning holds for the transaction only, read-only snapshots included.
    @Test func genericPlanningLastsForTheTransaction() throws {
        let connection = try TestDatabase.connect()
        let mode = { (c: Connection) throws -> String in try c.query("SHOW plan_cache_mode").row(0).text(0) }
        let inside = try connection.transaction(.repeatableRead, readOnly: true, planning: .generic) { c in
            (try mode(c), c.transactionStatus)
        }
        #expect(inside.0 == "force_generic_plan" && inside.1 == .inTransaction)
        #expect(try mode(connection) == "auto")
        #expect(try connection.transaction { c in try mode(c) } == "auto")
    }

    /// The opening statement runs inside the transaction it opens (same snapshot, same
    /// settings); when it fails, nothing is left open and the session works on.
    @Test func anOpeningStatementRunsInsideTheTransaction() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("txopen")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY)")
        try connection.queryPrepared("INSERT INTO \(table) VALUES ($1)", [1])
        let seen = try connection.transaction(.repeatableRead, readOnly: true, planning: .generic,
                                              opening: "SELECT count(*), current_setting('plan_cache_mode') FROM \(table) WHERE id >= $1", [1]) { c, opening in
            // A row committed by another session now is not in this snapshot.
            let other = try TestDatabase.connect()
            try other.queryPrepared("INSERT INTO \(table) VALUES ($1)", [2])
            let later = try c.query("SELECT count(*) FROM \(table)").row(0).text(0)
            return (try opening.row(0).text(0), try opening.row(0).text(1), later, c.transactionStatus)
        }
        #expect(seen.0 == "1" && seen.1 == "force_generic_plan" && seen.2 == "1" && seen.3 == .inTransaction)
        #expect(try count(connection, table) == 2)
        #expect(throws: PostgresError.self) {
            try connection.transaction(opening: "SELECT 1 / ($1::int - 1)", [1]) { _, _ in Issue.record("ran after a failed opening") }
        }
        #expect(connection.transactionStatus == .idle)
        #expect(try count(connection, table) == 2)
    }

    @Test func aFailedStatementCaughtInsideCannotCommit() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("txfail")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY)")
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { c in
                try c.queryPrepared("INSERT INTO \(table) VALUES ($1)", [1])
                _ = try? c.queryPrepared("INSERT INTO \(table) VALUES ($1)", [1])  // unique violation, swallowed
                #expect(c.transactionStatus == .failedTransaction)
            }
        }
        #expect(error?.sqlState == .inFailedSQLTransaction)
        #expect(connection.transactionStatus == .idle)
        #expect(try count(connection, table) == 0)
    }

    @Test func transactionsDoNotNest() throws {
        let connection = try TestDatabase.connect()
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { c in try c.transaction { _ in } }
        }
        #expect(error?.sqlState == .activeSQLTransaction)
        #expect(connection.transactionStatus == .idle)
    }

    @Test func repeatableReadReportsAConcurrentUpdateAsRetryable() throws {
        let first = try TestDatabase.connect()
        let second = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("rr")
        try first.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY, n bigint); INSERT INTO \(table) VALUES (1, 0)")
        try second.begin(.repeatableRead)
        #expect(try second.query("SELECT n FROM \(table) WHERE id = 1").row(0).int64(0) == 0)  // takes the snapshot
        try first.query("UPDATE \(table) SET n = n + 1 WHERE id = 1")
        let conflict = expectError(.serializationFailure) { try second.query("UPDATE \(table) SET n = n + 10 WHERE id = 1") }
        #expect(conflict?.isRetryableTransaction == true)
        try second.rollback()
        #expect(try first.query("SELECT n FROM \(table)").row(0).int64(0) == 1)
        let readOnly = expectError(.readOnlySQLTransaction) {
            try second.transaction(.serializable, readOnly: true) { c in _ = try c.query("DELETE FROM \(table)") }
        }
        #expect(readOnly?.isReadOnly == true)
    }
}
