import PostgresStore
import SQLiteStore
import Tracking

/// The store a command that writes the server's data opens (`fod import`, `fod user`): the
/// PostgreSQL database with `--database` (or `$FOD_DATABASE_URL`), which it shares with running
/// nodes; else the embedded database of the data directory (`--data`, `$FOD_DATA`,
/// `./fod-data`), under the data directory's lock, so it refuses to run while a server holds it.
///
/// Lifetime: `close()` exactly once; the lock is held until this value goes.
struct OfflineStore {
    let store: any TrackingStore
    /// Where the data is, for messages ("the PostgreSQL database" or the directory).
    let place: String
    /// Held while the embedded database is open (nil on PostgreSQL).
    private let lock: DataDirectoryLock?

    /// - Parameters:
    ///   - purpose: the command, recorded in the lock file (e.g. "fod import").
    ///   - advice: what to do instead while a server holds the data directory.
    static func open(_ arguments: Arguments, environment: [String: String], purpose: String, advice: String) throws -> OfflineStore {
        if let url = arguments.options["database"] ?? environment["FOD_DATABASE_URL"], !url.isEmpty {
            guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
                throw UsageError("--database must be a postgresql:// connection URI")
            }
            return OfflineStore(store: try PostgresStore.open(url, readerCount: 2), place: "the PostgreSQL database", lock: nil)
        }
        let directory = arguments.options["data"] ?? environment["FOD_DATA"] ?? "./fod-data"
        // The embedded database is written by one process at a time: not while a server runs on it.
        let lock = try DataDirectoryLock.acquire(directory, for: purpose, advice: advice)
        return OfflineStore(store: try SQLiteBackend.open(directory: directory), place: directory, lock: lock)
    }

    func close() {
        store.close()
        withExtendedLifetime(lock) {}
    }
}
