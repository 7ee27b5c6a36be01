import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// The shared throwaway server of this test process, and names no other test uses.
enum TestDatabase {
    /// Suites that need PostgreSQL carry this trait: they skip, saying why, without the server programs.
    static let available = ConditionTrait.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason))

    static func server() throws -> PostgresTestServer { try PostgresTestServer.shared.get() }

    static func connect() throws -> Connection { try Connection(server().url) }

    private static let counter = Atomic<Int>(0)

    /// `prefix_N`, unique in this process (tables, channels, lock keys).
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(counter.add(1, ordering: .relaxed).newValue)"
    }
}

/// Runs `body`, expecting it to throw a `PostgresError` with `state`; returns the error.
@discardableResult
func expectError(_ state: SQLState, sourceLocation: SourceLocation = #_sourceLocation,
                 _ body: () throws -> Void) -> PostgresError? {
    do {
        try body()
        Issue.record("expected SQLSTATE \(state), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as PostgresError {
        #expect(error.sqlState == state, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a PostgresError with \(state), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Ends the session `pid` (`pg_terminate_backend`) and waits until its process is gone.
func terminate(_ pid: Int32, from admin: Connection) throws(PostgresError) -> Bool {
    try admin.query("SELECT pg_terminate_backend($1::integer, 30000)", [.int64(Int64(pid))]).row(0).bool(0)
}
