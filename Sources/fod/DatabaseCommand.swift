import Foundation
import PostgresStore
import Storage
import SQLiteStore
import Tracking

/// `fod db check` and `fod db backup <file>` (the embedded database), and `fod db check
/// --database <url>` (PostgreSQL; back it up with PostgreSQL's own tools).
enum DatabaseCommand {
    static func run(_ arguments: Arguments, environment: [String: String]) throws -> Int32 {
        try arguments.rejectUnknown(["data", "database"])
        if let url = arguments.options["database"] ?? environment["FOD_DATABASE_URL"] {
            return try runOnPostgres(url, subcommand: Array(arguments.positionals.dropFirst()))
        }
        let directory = arguments.options["data"] ?? environment["FOD_DATA"] ?? "./fod-data"
        let path = directory + "/fod.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            throw UsageError("no database at \(path) (use --data <dir>)")
        }
        let database = try Database(path: path)
        let subcommand = arguments.positionals.dropFirst().first ?? ""
        switch (subcommand, Array(arguments.positionals.dropFirst(2))) {
        case ("check", []):
            let problems = try database.integrityCheck()
            let version = try Migrator.currentVersion(of: database)
            guard problems == ["ok"] else {
                problems.forEach { print($0) }
                return 1
            }
            let index = try database.transaction { try IndexConsistency.check(database) }
            let summary = "\(index.history) fixes in history, \(index.indexed) in the cell index, \(index.queued) queued for it"
            guard index.isConsistent else {
                print("index problem: \(summary); \(index.orphans) indexed fixes not in history, \(index.missing) stored fixes neither indexed nor queued")
                return 1
            }
            print("ok: \(path) passes PRAGMA integrity_check (schema version \(version)); \(summary)")
            return 0
        case ("backup", let rest) where rest.count == 1:
            try database.backup(to: rest[0])
            let copy = try Database(path: rest[0])
            let problems = try copy.integrityCheck()
            print(problems == ["ok"] ? "backed up \(path) to \(rest[0]) (verified)" : "backup written but check failed: \(problems)")
            return problems == ["ok"] ? 0 : 1
        default:
            throw UsageError("usage: fod db check | fod db backup <file>")
        }
    }

    /// `check` on a PostgreSQL database: `PostgresStore.consistency()`.
    static func runOnPostgres(_ url: String, subcommand: [String]) throws -> Int32 {
        guard subcommand == ["check"] else {
            throw UsageError("on PostgreSQL only `fod db check --database <url>`; back up with pg_dump or pg_basebackup")
        }
        let store = try PostgresStore.open(url, readerCount: 1)
        defer { store.close() }
        let report = try store.consistency()
        let summary = "schema version \(report.schemaVersion), \(report.fixes) fixes of \(report.devices) devices, \(report.groups) groups with events"
        guard report.isConsistent else {
            report.problems.forEach { print($0) }
            print("problems: \(summary)")
            return 1
        }
        print("ok: PostgreSQL database consistent (\(summary)): latest locations, event ids and fix cells")
        return 0
    }
}
