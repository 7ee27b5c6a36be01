import Foundation
import PostgresClient
import PostgresStore
import PostgresTestSupport
import SQLCore
import Synchronization
import StoreTestSupport
import Testing
import Tracking

/// On a database many nodes share, whether an account is the server's first (and so its
/// administrator, admitted without an invitation) is decided one account at a time: an account
/// creation waits for another one under way on any node, then sees it.
@Suite("PostgreSQL: one first account", .enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
struct PostgresAccountCreationTests {
    @Test func anAccountCreationWaitsForTheOneUnderWayOnAnotherNode() async throws {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_first_\(UUID().uuidString.prefix(8).lowercased())"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        defer { _ = try? Connection(server.url).execute("DROP DATABASE \(name) WITH (FORCE)") }
        let store = try PostgresStore.open(server.url(database: name), readerCount: 2)
        defer { store.close() }
        // Another node creating the first account: it holds the lock, its account not committed yet.
        let other = try Connection(server.url(database: name))
        try other.execute("BEGIN")
        try other.execute("SELECT pg_advisory_xact_lock(\(AccountTables.accountCreationLockKey))")
        try other.execute("""
            INSERT INTO users (id, email, display_name, password_hash, created_at, is_admin)
            VALUES ('u_other', 'other@example.org', 'Other', '$argon2id$other', \(Fixtures.t0), true)
            """)
        let finished = Atomic<Bool>(false)
        let attempt = Task {
            defer { finished.store(true, ordering: .sequentiallyConsistent) }
            return await Fixtures.refused {
                _ = try await store.createAccount(Fixtures.account("ann"), admission: .firstOrInvited(inviteCodeHash: nil),
                                                  now: Fixtures.t0)
            }
        }
        // Until the attempt waits for the lock (or, were there none, has finished).
        let deadline = Date().addingTimeInterval(60)
        while !finished.load(ordering: .sequentiallyConsistent), Date() < deadline,
              try other.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").row(0).int64(0) == 0 {
            await Task.yield()
        }
        try other.execute("COMMIT")
        #expect(await attempt.value == "signup_closed")
        #expect(try store.accounts().map(\.email) == ["other@example.org"])
    }
}
