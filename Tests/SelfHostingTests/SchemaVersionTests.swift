import Foundation
import HTTPTestSupport
import PostgresClient
import PostgresTestSupport
import ProcessTestSupport
import Storage
import Testing

/// Upgrades go one way: a database whose schema version is newer than the binary knows (a newer
/// release ran on it) is refused at start with a clear message, and left exactly as it was — no
/// migration, no write. Before, SQLite answered "misuse" and PostgreSQL started on it.
@Suite struct SchemaVersionTests {
    /// Sets the SQLite database's schema version one past what it holds; returns the new version.
    static func raiseVersion(of path: String) throws -> Int {
        let database = try Database(path: path)
        let version = try Migrator.currentVersion(of: database) + 1
        try database.execute("PRAGMA user_version = \(version)")
        return version
    }

    @Test func serveRefusesAnEmbeddedDatabaseOfANewerRelease() throws {
        let directory = try scratchDirectory("fod-newer-")
        defer { removeScratch(directory) }
        let server = try FodProcess(dataDirectory: directory)
        #expect(server.stop() == 0)
        let newer = try Self.raiseVersion(of: directory + "/fod.sqlite")
        let before = FileManager.default.contents(atPath: directory + "/fod.sqlite")
        let (status, output) = try FodProcess.run(["serve", "--port", "0", "--bind", "127.0.0.1", "--data", directory])
        #expect(status == 1, "\(output)")
        #expect(output.contains("has schema version \(newer), newer than this fod knows (\(newer - 1))"), "\(output)")
        #expect(output.contains("the database was left unchanged"), "\(output)")
        #expect(FileManager.default.contents(atPath: directory + "/fod.sqlite") == before)
        #expect(!FileManager.default.fileExists(atPath: directory + "/fod.sqlite-wal"))
        // The other commands that open the store refuse it too.
        let (exportStatus, exportOutput) = try FodProcess.run(["export", "device-ndjson", "d_x", "--as", "a@example.org", "--data", directory])
        #expect(exportStatus == 1 && exportOutput.contains("newer than this fod knows"), "\(exportOutput)")
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
    func aNodeRefusesAPostgreSQLDatabaseOfANewerRelease() throws {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_newer_\(ProcessInfo.processInfo.processIdentifier)"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        defer { _ = try? Connection(server.url).execute("DROP DATABASE \(name) WITH (FORCE)") }
        let url = server.url(database: name)
        let directory = try scratchDirectory("fod-newer-pg-")
        defer { removeScratch(directory) }
        let node = try FodProcess(dataDirectory: directory, extraArguments: ["--database", url])
        #expect(node.stop() == 0)
        let database = try Connection(url)
        let known = try database.query("SELECT max(version) FROM schema_migrations").row(0).int64(0)
        try database.execute("INSERT INTO schema_migrations (version, name) VALUES (\(known + 1), 'from a newer release')")
        let tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        let tablesBefore = try database.query(tables).row(0).int64(0)
        // Refused at once; a node that started instead is killed after two minutes, failing the test.
        let (status, output) = try runToCompletion(FodProcess.executablePath, ["serve", "--port", "0", "--bind", "127.0.0.1", "--data", directory,
                                                                               "--database", url], limitSeconds: 120)
        #expect(status == 1, "\(output)")
        #expect(output.contains("the PostgreSQL database has schema version \(known + 1), newer than this fod knows (\(known))"), "\(output)")
        #expect(try database.query("SELECT count(*) FROM schema_migrations").row(0).int64(0) == known + 1)
        #expect(try database.query(tables).row(0).int64(0) == tablesBefore)
    }
}
