import Foundation
import PostgresStore
import Storage
import SQLiteStore
import Tracking

/// `fod db check`, `fod db backup <file>` and `fod db restore <file>` on the embedded database,
/// and `fod db check --database <url>` (PostgreSQL; back it up with PostgreSQL's own tools:
/// docs/operations.md).
enum DatabaseCommand {
    static let usage = "usage: fod db check | fod db backup <file> | fod db restore <file>  [--data <dir> | --database <url>]"

    static func run(_ arguments: Arguments, environment: [String: String]) throws -> Int32 {
        try arguments.rejectUnknown(["data", "database"])
        if let url = arguments.options["database"] ?? environment["FOD_DATABASE_URL"] {
            return try runOnPostgres(url, subcommand: Array(arguments.positionals.dropFirst()))
        }
        let directory = arguments.options["data"] ?? environment["FOD_DATA"] ?? "./fod-data"
        switch (arguments.positionals.dropFirst().first ?? "", Array(arguments.positionals.dropFirst(2))) {
        case ("check", []):
            return try check(try existingDatabase(in: directory))
        case ("backup", let rest) where rest.count == 1:
            return try backup(try existingDatabase(in: directory), to: rest[0])
        case ("restore", let rest) where rest.count == 1:
            return try DatabaseRestore.run(backup: rest[0], into: directory)
        default:
            throw UsageError(usage)
        }
    }

    /// The path of the data directory's database, which must exist.
    private static func existingDatabase(in directory: String) throws -> String {
        let path = directory + "/fod.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            throw UsageError("no database at \(path) (use --data <dir>)")
        }
        return path
    }

    /// `PRAGMA integrity_check` and the cell index's consistency.
    private static func check(_ path: String) throws -> Int32 {
        let database = try Database(path: path)
        let problems = try database.integrityCheck()
        let version = try Migrator.currentVersion(of: database)
        guard problems == ["ok"] else {
            problems.forEach { print($0) }
            return 1
        }
        let known = Schema.migrator.migrations.count
        guard version <= known else {
            print(SchemaTooNew(database: path, found: Int64(version), known: Int64(known)))
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
    }

    /// An online copy (a server may be running): one read snapshot of the database, written to
    /// `<file>.partial`, switched to a rollback journal (a single self-contained file, readable
    /// from read-only media), checked, then renamed over `file`, so `file` is only ever a whole
    /// backup.
    private static func backup(_ path: String, to file: String) throws -> Int32 {
        let partial = file + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            try Database(path: path).backup(to: partial)
            let problems = try { () throws -> [String] in
                let copy = try Database(path: partial)
                try copy.execute("PRAGMA journal_mode=DELETE")
                return try copy.integrityCheck()
            }()
            guard problems == ["ok"] else {
                print("backup failed its check, \(file) left as it was: \(problems.joined(separator: "; "))")
                try? FileManager.default.removeItem(atPath: partial)
                return 1
            }
            guard rename(partial, file) == 0 else { throw UsageError("cannot rename \(partial) to \(file): \(String(cString: strerror(errno)))") }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        print("backed up \(path) to \(file) (verified)")
        return 0
    }

    /// `check` on a PostgreSQL database: `PostgresStore.consistency()`.
    static func runOnPostgres(_ url: String, subcommand: [String]) throws -> Int32 {
        guard subcommand == ["check"] else {
            throw UsageError("on PostgreSQL only `fod db check --database <url>`; back up with pg_dump or pg_basebackup (docs/operations.md)")
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
