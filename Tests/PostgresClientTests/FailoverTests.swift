import PostgresClient
import PostgresTestSupport
import Testing

@Suite("PostgreSQL streaming replica, multi-host URIs and promotion", TestDatabase.available)
struct FailoverTests {
    /// A primary with a synchronous streaming replica, then the primary's loss and the
    /// replica's promotion; a multi-host URI listing the replica first follows the writable one.
    @Test func multiHostURIFollowsTheWritableServer() throws {
        let primary = try PostgresTestServer.start()
        defer { primary.stop() }
        let replica = try primary.startReplica(name: "standby1", synchronous: true)
        defer { replica.stop() }
        let hosts = "postgresql://postgres@127.0.0.1:\(replica.port),127.0.0.1:\(primary.port)/postgres"
        let writable = "\(hosts)?target_session_attrs=read-write&connect_timeout=10"

        let writer = try Connection(writable)
        #expect(writer.port == String(primary.port))
        #expect(try !writer.query("SELECT pg_is_in_recovery()").row(0).bool(0))
        let anyServer = try Connection("\(hosts)?target_session_attrs=any")
        #expect(anyServer.port == String(replica.port))
        #expect(anyServer.parameter("in_hot_standby") == "on")

        // remote_apply: the commit returns once the replica applied it, so it is visible there.
        try writer.execute("SET synchronous_commit = remote_apply")
        try writer.execute("CREATE TABLE fixes (id bigint PRIMARY KEY)")
        try writer.query("INSERT INTO fixes VALUES ($1)", [1])
        #expect(try anyServer.query("SELECT count(*) FROM fixes").row(0).int64(0) == 1)
        let readOnly = expectError(.readOnlySQLTransaction) { try anyServer.query("INSERT INTO fixes VALUES (2)") }
        #expect(readOnly?.isReadOnly == true && readOnly?.isUnavailable == true)

        // The primary dies; its sessions see a lost connection, and nothing accepts writes yet.
        let pool = ConnectionPool(writable, size: 1, checkoutTimeout: .seconds(30))
        #expect(try pool.withConnection { $0.port } == String(primary.port))
        primary.stop()
        do throws(PostgresError) {
            _ = try writer.query("SELECT 1")
            Issue.record("a stopped primary answered")
        } catch {
            #expect(error.isConnectionLost, "\(error)")
        }
        let noPrimary = expectError(.unableToConnect) { _ = try Connection(writable) }
        #expect(noPrimary?.isUnavailable == true)

        // Promoted, the replica is the writable server the same URI reaches.
        try replica.promote()
        try writer.reset()
        #expect(writer.port == String(replica.port))
        try writer.query("INSERT INTO fixes VALUES ($1)", [2])
        #expect(try writer.query("SELECT count(*) FROM fixes").row(0).int64(0) == 2)
        // The pool's idle connection to the old primary is replaced by one to the new.
        #expect(try pool.withConnection { $0.port } == String(replica.port))
    }
}
