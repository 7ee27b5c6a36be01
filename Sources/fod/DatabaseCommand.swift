import Foundation
import Storage
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
            if problems == ["ok"] {
                print("ok: \(path) passes PRAGMA integrity_check (schema version \(version))")
                return 0
            }
            problems.forEach { print($0) }
            return 1
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
