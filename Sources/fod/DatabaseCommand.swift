import Foundation
import Storage
import SQLiteStore
import Tracking

/// `fod db check` and `fod db backup <file>`.
enum DatabaseCommand {
    static func run(_ arguments: Arguments, environment: [String: String]) throws -> Int32 {
        try arguments.rejectUnknown(["data"])
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
}
