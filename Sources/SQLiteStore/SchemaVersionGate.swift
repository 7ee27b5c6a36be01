import Foundation
import Storage
import Tracking

/// Refuses a database written by a newer release before the store opens it for writing, by
/// comparing its schema version (`PRAGMA user_version`) with the newest migration this binary
/// has. Reading the version changes nothing on disk.
enum SchemaVersionGate {
    /// Throws `SchemaTooNew` when the database at `path` is newer than `migrator` knows. A missing
    /// file (a new data directory) passes; so does one whose version cannot be read, which the
    /// writer's own open then reports (the migrator refuses a newer schema there too).
    static func check(path: String, migrator: Migrator = Schema.migrator) throws {
        guard let found = storedVersion(path: path) else { return }
        let known = migrator.migrations.count
        if found > known {
            throw SchemaTooNew(database: path, found: Int64(found), known: Int64(known))
        }
    }

    /// The schema version of the database at `path`, nil when there is none or it is unreadable.
    /// Without a write-ahead log beside it the file's header is the whole truth, and is read
    /// directly (a read-only SQLite connection would leave empty `-wal` and `-shm` files); with
    /// one, a read-only connection reads the version through it.
    static func storedVersion(path: String) -> Int? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        if !FileManager.default.fileExists(atPath: path + "-wal") {
            guard let handle = FileHandle(forReadingAtPath: path),
                  let data = try? handle.read(upToCount: headerBytes) else { return nil }
            let header = [UInt8](data)
            guard header.count == headerBytes, header.starts(with: magic) else { return nil }
            // `user_version`: the big-endian 32-bit integer at offset 60 of the 100-byte header.
            return header[60..<64].reduce(0) { $0 << 8 | Int($1) }
        }
        guard let probe = try? Database(path: path, mode: .readOnly) else { return nil }
        return try? Migrator.currentVersion(of: probe)
    }

    /// SQLite's file header: its size and the magic string it starts with.
    private static let headerBytes = 100
    private static let magic = Array("SQLite format 3\0".utf8)
}
