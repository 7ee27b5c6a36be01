import Foundation
import ProcessTestSupport

/// A throwaway PostgreSQL 15 server on loopback for tests: `scripts/pg-test-server.sh
/// supervise` in a child process (initdb in a temporary directory, run as the `postgres` user
/// when this process is root, a free port, fsync on).
///
/// The child holds the server for as long as this process holds its standard input open
/// (`SupervisedScript`): `stop()` (or this process ending in any way, even `kill -9`) closes
/// it, and the child stops the server and deletes its directory. So a test cannot leave a
/// server behind.
public final class PostgresTestServer: @unchecked Sendable {
    /// Where Debian's `postgresql-15` puts the server programs.
    public static let binaryDirectory = "/usr/lib/postgresql/15/bin"

    /// True when the server programs are installed; tests skip otherwise.
    public static var isAvailable: Bool {
        ["initdb", "pg_ctl", "postgres", "pg_basebackup", "psql"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: "\(binaryDirectory)/\($0)")
        }
    }

    public static let unavailableReason =
        "PostgreSQL tests skipped: no PostgreSQL 15 server in \(binaryDirectory) (apt-get install postgresql-15)"

    /// One primary per test process, started on first use and stopped when the process ends.
    /// Tests share it and keep apart with their own table and channel names.
    public static let shared: Result<PostgresTestServer, any Error> = Result { try PostgresTestServer.start() }

    /// `postgresql://postgres@127.0.0.1:PORT/postgres` (trust authentication).
    public let url: String
    public let port: Int
    /// The server's directory (data in `data/`, log in `server.log`); deleted at stop.
    public let directory: String

    private let child: SupervisedScript

    /// Starts a new primary.
    public static func start() throws -> PostgresTestServer {
        try launch(["supervise"])
    }

    /// Starts a streaming replica of this server (`pg_basebackup -R`), named `name` (its
    /// `application_name`). With `synchronous`, it becomes this primary's synchronous standby:
    /// commits on the primary wait for it (and with `synchronous_commit = remote_apply`, are
    /// visible on it when the commit returns); stop the primary before the replica then.
    public func startReplica(name: String = "replica", synchronous: Bool = false) throws -> PostgresTestServer {
        try Self.launch(["supervise", "--replica-of", directory, "--name", name] + (synchronous ? ["--sync"] : []))
    }

    /// Promotes this replica to a primary (`pg_ctl promote`); returns once it accepts writes.
    public func promote() throws {
        try runOnDirectory("promote")
    }

    /// Restarts the server (`pg_ctl restart -m fast`: sessions are ended, the server shuts down
    /// cleanly and starts again on the same port); returns once it accepts connections again.
    public func restart() throws {
        try runOnDirectory("restart")
    }

    /// Kills the postmaster with SIGKILL, as a crash would; returns once it is gone. `resume`
    /// starts it again (with crash recovery).
    public func crash() throws {
        try runOnDirectory("crash")
    }

    /// Starts the server again on its port after `crash`; returns once it accepts connections.
    public func resume() throws {
        try runOnDirectory("resume")
    }

    private func runOnDirectory(_ command: String) throws {
        let (status, output) = try Self.runScript([command, directory])
        guard status == 0 else { throw ServerFailure("\(command) failed: \(output)") }
    }

    /// `url` with extra connection parameters, e.g. `["application_name": "node1"]`.
    public func url(parameters: [String: String]) -> String {
        let query = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return query.isEmpty ? url : "\(url)?\(query)"
    }

    /// The URL of database `name` on this server (create it first).
    public func url(database name: String) -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Stops the server and deletes its directory; waits until both are done. Idempotent.
    public func stop() { child.stop() }

    private init(child: SupervisedScript, port: Int, directory: String, url: String) {
        self.child = child
        self.port = port
        self.directory = directory
        self.url = url
    }

    // MARK: The child

    static var scriptPath: String { SupervisedScript.path("pg-test-server.sh") }

    private static func launch(_ arguments: [String]) throws -> PostgresTestServer {
        guard isAvailable else { throw ServerFailure(unavailableReason) }
        let child = try SupervisedScript(scriptPath, arguments)
        let fields = child.readyLine.split(separator: " ", maxSplits: 2).map(String.init)
        guard fields.count == 3, let port = Int(fields[0]) else {
            child.stop()
            throw ServerFailure("pg-test-server.sh \(arguments.joined(separator: " ")): unexpected \(child.readyLine)")
        }
        return PostgresTestServer(child: child, port: port, directory: fields[1], url: fields[2])
    }

    private static func runScript(_ arguments: [String]) throws -> (Int32, String) {
        try runToCompletion("/bin/bash", [scriptPath] + arguments, limitSeconds: 300)
    }
}

public struct ServerFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
