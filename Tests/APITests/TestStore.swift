import API
import Foundation
import HTTPServer
import PostgresClient
import PostgresStore
import PostgresTestSupport
import SQLiteStore
import Storage
import Synchronization
import Tracking

/// Which store the API suite runs on: `FOD_TEST_STORE` unset or `sqlite` for the embedded store
/// (the default), `postgresql` for a fresh database per `TestApp` on the test process's
/// throwaway PostgreSQL server. `make test` runs the suite once each way.
///
/// Any other value is a mistake, not a choice: every `TestApp` then fails, saying so, and the
/// SQLite-only tests are skipped.
enum TestStoreKind: String, Sendable {
    case sqlite, postgresql

    static let variable = "FOD_TEST_STORE"

    /// The store `FOD_TEST_STORE` names; nil when it names none.
    static let selected: TestStoreKind? = {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return .sqlite }
        return TestStoreKind(rawValue: value.lowercased())
    }()

    /// True when the suite runs on the embedded store: the condition of the tests of SQLite's own
    /// machinery (`.enabled(if: TestStoreKind.isSQLite, "why")`).
    static var isSQLite: Bool { selected == .sqlite }

    static func selectedOrFailure() throws -> TestStoreKind {
        guard let selected else {
            throw TestFailure("\(variable)=\(ProcessInfo.processInfo.environment[variable] ?? "") names no store (use sqlite or postgresql)")
        }
        return selected
    }
}

/// A fresh, empty store of the selected kind for one `TestApp`, and how to throw it away.
///
/// Lifetime: `open()`, then `start(services:)` once the services exist, then `close()` exactly
/// once after the HTTP server has stopped.
final class TestStore: Sendable {
    let store: any TrackingStore
    /// The embedded store, on SQLite (nil on PostgreSQL).
    let sqlite: SQLiteBackend?
    /// The cluster store, on PostgreSQL (nil on SQLite).
    let postgres: PostgresStore?
    /// On PostgreSQL: the store's database, dropped at `close()`.
    private let database: TestDatabase?
    /// On SQLite: the data directory, deleted at `close()`.
    private let directory: String?

    private init(store: any TrackingStore, sqlite: SQLiteBackend?, postgres: PostgresStore?, database: TestDatabase?, directory: String?) {
        self.store = store
        self.sqlite = sqlite
        self.postgres = postgres
        self.database = database
        self.directory = directory
    }

    /// Opens a fresh store: SQLite in a new temporary directory, or a new database on the test
    /// PostgreSQL server (created here, dropped at `close()`).
    static func open() throws -> TestStore {
        switch try TestStoreKind.selectedOrFailure() {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "fod-test-" + UUID().uuidString
            let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal)
            return TestStore(store: backend, sqlite: backend, postgres: nil, database: nil, directory: directory)
        case .postgresql:
            let database = try TestDatabase.create()
            do {
                // Opened as a node opens it (its migrations find nothing to do).
                let store = try PostgresStore.open(database.url, readerCount: 4)
                return TestStore(store: store, sqlite: nil, postgres: store, database: database, directory: nil)
            } catch {
                database.drop()
                throw error
            }
        }
    }

    /// Starts the store announcing its commits to the consumers `services` registered, as
    /// `fod serve` does (on PostgreSQL: the relays of the database's notifications).
    func start(services: Services) throws {
        let logger = services.logger
        try store.startPublishing { logger.warning($0) }
    }

    /// The first column of `sql`'s rows as text, read straight from the store's tables (for the
    /// few tests that check what is stored, not what the API answers). Both schemas name the
    /// columns these tests read alike.
    func strings(_ sql: String) throws -> [String] {
        if let sqlite {
            return try sqlite.read { try $0.rows(sql, []) { $0.string(0) } }
        }
        guard let database else { throw TestFailure("the store is neither SQLite nor PostgreSQL") }
        return try Connection(database.url).execute(sql).rows.map { try $0.text(0) }
    }

    /// Runs `sql` on a connection of its own, past the store, as another process, another node or
    /// a repair by hand would. The statements must suit both schemas (`TRUE`/`FALSE`, no
    /// store-specific columns).
    func executeOnAnotherConnection(_ sql: String) throws {
        if let sqlite {
            try Database(path: sqlite.path).execute(sql)
            return
        }
        guard let database else { throw TestFailure("the store is neither SQLite nor PostgreSQL") }
        _ = try Connection(database.url).execute(sql)
    }

    /// Stops the relays, closes the store and deletes what it stored (on PostgreSQL: drops the
    /// database, in the background).
    func close() {
        store.stopPublishing()
        store.close()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        database?.drop()
    }
}

/// A new database on the test process's throwaway PostgreSQL server, with the current schema.
struct TestDatabase: Sendable {
    let name: String
    /// Its `postgresql://` URL.
    let url: String
    /// The server's own database, from which this one is dropped.
    private let adminURL: String

    private static let counter = Atomic<Int>(0)

    /// Creates a copy of the migrated template (`CREATE DATABASE … TEMPLATE`).
    static func create() throws -> TestDatabase {
        let server = try PostgresTestServer.shared.get()
        let template = try migratedTemplate.get()
        let name = "fod_api_\(counter.add(1, ordering: .relaxed).newValue)"
        try Connection(server.url).execute("CREATE DATABASE \(name) TEMPLATE \(template)")
        return TestDatabase(name: name, url: server.url(database: name), adminURL: server.url)
    }

    /// Drops the database, in the background (see `dropQueue`). Call once, after everything
    /// using it has stopped (`WITH (FORCE)` ends any session still open).
    func drop() {
        let name = name, adminURL = adminURL
        Self.dropQueue.async { _ = try? Connection(adminURL).execute("DROP DATABASE \(name) WITH (FORCE)") }
    }

    /// A database with the current schema, made once per process, that every test database is
    /// a copy of: copying it is cheaper than migrating each new one (the store conformance suite
    /// and ClusterTests migrate fresh databases).
    private static let migratedTemplate: Result<String, any Error> = Result {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_api_template"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        try PostgresStore.open(server.url(database: name), readerCount: 1).close()
        return name
    }

    /// Where databases are dropped, one at a time, off the tests' threads: `DROP DATABASE` waits
    /// for a checkpoint (about a second here), which no test needs to wait for. Drops still
    /// queued when the process ends go with the throwaway server.
    private static let dropQueue = DispatchQueue(label: "fod.test.drop-database")
}
