import Foundation
import Storage
import SQLiteStore
import Tracking

/// `fod db restore <file> --data <dir>`: puts a backup made by `fod db backup` back as the data
/// directory's database, with the server stopped.
///
/// Refuses, changing nothing: a data directory a server holds (its lock, `DataDirectoryLock`),
/// one that already has a database or its log (`fod.sqlite`, `-wal`, `-shm`: a stale log
/// beside a restored file could be replayed into it), a file that fails `PRAGMA
/// integrity_check` or is no fod database, and a backup of a newer release (`SchemaTooNew`).
/// The copy is written as `fod.sqlite.restoring` and renamed into place once whole, so a crash
/// midway leaves no half database under the real name. A backup of an older release is
/// migrated by the next `fod serve`.
enum DatabaseRestore {
    static func run(backup file: String, into directory: String) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: file) else { throw UsageError("no backup file at \(file)") }
        let lock = try DataDirectoryLock.acquire(directory, for: "fod db restore", advice: "stop it first, then restore")
        defer { withExtendedLifetime(lock) {} }
        let path = (directory as NSString).appendingPathComponent("fod.sqlite")
        let present = ["", "-wal", "-shm"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
        guard present.isEmpty else {
            print("\(directory) already holds a database (\(present.joined(separator: ", "))): restore into an empty data "
                  + "directory, or move those files away first (nothing was changed)")
            return 1
        }
        let source = try Database(path: file, mode: .readOnly)
        let problems = try source.integrityCheck()
        guard problems == ["ok"] else {
            print("\(file) fails PRAGMA integrity_check, not restored: \(problems.prefix(5).joined(separator: "; "))")
            return 1
        }
        let version = try Migrator.currentVersion(of: source)
        let known = Schema.migrator.migrations.count
        guard version >= 1, try source.firstRow("SELECT count(*) FROM sqlite_master WHERE name = 'locations'", [], { $0.int(0) }) == 1 else {
            print("\(file) is not a fod database (schema version \(version), no locations table): not restored")
            return 1
        }
        guard version <= known else {
            print(SchemaTooNew(database: file, found: Int64(version), known: Int64(known)))
            return 1
        }
        let restoring = path + ".restoring"
        try? FileManager.default.removeItem(atPath: restoring)
        do {
            try source.backup(to: restoring)
            guard rename(restoring, path) == 0 else {
                throw UsageError("cannot rename \(restoring) to \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: restoring)
            throw error
        }
        syncDirectory(directory)
        let migrates = version < known ? "; fod serve migrates it from schema version \(version) to \(known) at start" : ""
        print("restored \(file) (schema version \(version)) into \(path)\(migrates)")
        return 0
    }

    /// Makes the rename durable (the directory entry reaches the disk).
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
