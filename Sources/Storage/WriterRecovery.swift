import Foundation

/// When and how the writer replaces a connection that cannot write. Used on the writer thread
/// only.
///
/// SQLite never upgrades a connection that opened its file read-only, and all connections of a
/// process to one file share that file's WAL index (`-shm`): if the index could only be opened
/// read-only (a read-only directory or filesystem), no connection of the process writes again
/// until every one of them has closed. So while the writer's connection is read-only, or its
/// last batch failed because the database was read-only, a probe connection tries to open the
/// file read-write before each batch; once it can, the writer's connection is closed and
/// `reconnect` — which closes and reopens the process's other connections to the file around
/// it — opens a new one. Reconnects happen at most once per `minimumInterval` seconds (a
/// database that opens read-write but still refuses writes must not make every batch
/// reconnect).
final class WriterRecovery {
    private let path: String
    private let reconnect: () throws -> Database
    private let minimumInterval: Double
    private var lastReconnect = Date.distantPast
    /// The last batch failed with `StorageError.Fault.readOnly`.
    private var failedReadOnly = false
    /// Why there is no connection (the last reconnect failed), reported to the jobs meanwhile.
    private(set) var unavailable: Error = StorageError(code: 8, message: "the database cannot be opened for writing")

    init(path: String, minimumInterval: Double = 1, reconnect: @escaping () throws -> Database) {
        self.path = path
        self.minimumInterval = minimumInterval
        self.reconnect = reconnect
    }

    /// Notes how a batch ended: `errors` are its jobs' (or its commit's) failures.
    func batchEnded(errors: [Error]) {
        failedReadOnly = errors.contains { ($0 as? StorageError)?.fault == .readOnly }
    }

    /// Replaces `connection` (nil after a failed reconnect) with a new one when it cannot write
    /// and the file opens read-write again; leaves it alone otherwise.
    func replaceIfReadOnly(_ connection: inout Database?) {
        if let current = connection, !current.isReadOnly, !failedReadOnly { return }
        guard Date().timeIntervalSince(lastReconnect) >= minimumInterval else { return }
        do {
            // The probe: a read-write open succeeds only once the file is writable.
            guard try !Database(path: path).isReadOnly else { return }
        } catch {
            return
        }
        lastReconnect = Date()
        failedReadOnly = false
        connection = nil   // closes it: `reconnect` needs every connection of the process closed
        do {
            connection = try reconnect()
        } catch {
            unavailable = error
        }
    }
}
