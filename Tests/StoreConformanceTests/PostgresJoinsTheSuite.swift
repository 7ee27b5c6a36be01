import PostgresTestSupport
import StoreTestSupport
import Testing

/// Says, as a skipped test, when the PostgreSQL store is left out of the conformance suite.
@Suite("Store conformance: PostgreSQL")
struct PostgresJoinsTheSuite {
    @Test(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
    func thePostgreSQLStoreRunsEveryContract() {
        #expect(StoreFactory.all.map(\.name).contains("PostgreSQL"))
    }
}
