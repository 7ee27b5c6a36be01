import Dispatch

/// Runs WAL checkpoints on its own connection, off the writer thread.
///
/// With SQLite's automatic checkpoints the committing writer copies the WAL into the database
/// (and, with `synchronous=FULL`, fsyncs it) every ~4 MiB of WAL, stalling every request queued
/// behind that commit. Here the writer's auto-checkpoint is turned off and this passive
/// checkpoint runs every `interval`; passive checkpoints never block the writer or readers.
/// `@unchecked Sendable`: `database` is touched only on `queue`.
public final class Checkpointer: @unchecked Sendable {
    private let queue = DispatchQueue(label: "fod.checkpointer", qos: .utility)
    private let timer: DispatchSourceTimer
    private var database: Database?

    public init(path: String, interval: DispatchTimeInterval = .milliseconds(500)) throws {
        database = try Database(path: path)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [unowned self] in
            try? self.database?.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
        timer.resume()
    }

    /// Stops checkpointing and closes the connection; waits for a running checkpoint.
    public func close() {
        timer.cancel()
        queue.sync { database = nil }
    }
}
