import Foundation
import ProcessTestSupport

/// A PostgreSQL primary and its synchronous standby run by Patroni, with etcd as its store:
/// `scripts/patroni-cluster.sh supervise` in a child process, everything on loopback in a
/// temporary directory, stopped and deleted by `stop()` or when this process ends.
public final class PatroniTestCluster: Sendable {
    /// True when Patroni, etcd and the PostgreSQL 15 server programs are installed.
    public static var isAvailable: Bool {
        PostgresTestServer.isAvailable && ["patroni", "etcd"].allSatisfy { program in
            ["/usr/bin", "/usr/local/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
        }
    }

    public static let unavailableReason =
        "Patroni tests skipped: needs patroni, etcd and PostgreSQL 15 (apt-get install patroni etcd-server postgresql-15; scripts/install-deps.sh does)"

    /// The nodes' database URL: libpq's multi-host URI with `target_session_attrs=read-write`,
    /// so a connection reaches whichever member is primary.
    public let url: String
    /// The cluster's directory (each member's data and `patroni.log` in `pg1/`, `pg2/`).
    public let directory: String
    private let child: SupervisedScript

    /// Starts etcd and two Patroni members; returns once one is primary and the other its
    /// synchronous standby.
    public static func start() throws -> PatroniTestCluster {
        guard isAvailable else { throw ServerFailure(unavailableReason) }
        let child = try SupervisedScript(SupervisedScript.path("patroni-cluster.sh"), ["supervise"])
        let fields = child.readyLine.split(separator: " ", maxSplits: 1).map(String.init)
        guard fields.count == 2 else {
            child.stop()
            throw ServerFailure("patroni-cluster.sh supervise: unexpected \(child.readyLine)")
        }
        return PatroniTestCluster(child: child, directory: fields[0], url: fields[1])
    }

    private init(child: SupervisedScript, directory: String, url: String) {
        self.child = child
        self.directory = directory
        self.url = url
    }

    /// The member that is primary now (`pg1` or `pg2`).
    public func primary() throws -> String { try run(["primary", directory]) }

    /// Kills the primary's postmaster with SIGKILL (its Patroni agent lives on and fails over);
    /// returns the member's name.
    public func killPrimary() throws -> String { try run(["kill-primary", directory]) }

    /// Waits (at most 120 s) until a member other than `old` is primary with a synchronous
    /// standby again; returns its name.
    public func waitForNewPrimary(replacing old: String) throws -> String { try run(["wait-primary", directory, old]) }

    /// Stops Patroni, its servers and etcd, and deletes the directory. Idempotent.
    public func stop() { child.stop() }

    private func run(_ arguments: [String]) throws -> String {
        let (status, output) = try runToCompletion("/bin/bash", [SupervisedScript.path("patroni-cluster.sh")] + arguments, limitSeconds: 300)
        guard status == 0 else { throw ServerFailure("patroni-cluster.sh \(arguments[0]) failed: \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
