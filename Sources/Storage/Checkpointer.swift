import Foundation
import ThreadControl

/// Copies the write-ahead log into the database in the background, on its own connection and
/// thread, with passive checkpoints (which never block the writer or readers).
///
/// With SQLite's automatic checkpoints the committing writer copies the WAL into the database
/// (and, with `synchronous=FULL`, fsyncs it) every ~4 MiB of WAL, stalling every request queued
/// behind that commit. Here the writer's automatic checkpoint is off (`WALBound.attach`) and this
/// thread keeps the frames not yet copied few: back to back while more than a sixteenth of
/// `WALLimits.earlyRestartBytes` remain, every 50 ms while some do, every
/// `WALLimits.passiveIntervalMilliseconds` otherwise. What makes the log start over is the
/// writer's own checkpoint between commits (`WALBound`), which then has little left to copy.
public final class Checkpointer: @unchecked Sendable {
    // @unchecked: `stopping` and `running` are guarded by `condition`; the connection is the
    // checkpoint thread's (`ThreadConfined`, checked; released by it when it ends).
    private let condition = NSCondition()
    private var stopping = false
    private var running = true
    private let connection: ThreadConfined<Database?>
    private let bound: WALBound

    public init(path: String, bound: WALBound) throws {
        connection = ThreadConfined(try Database(path: path))
        self.bound = bound
        let thread = Thread { [self] in
            CurrentThread.name("fod-checkpoint")
            connection.claim()
            loop()
        }
        thread.start()
    }

    private func loop() {
        let idle = Double(bound.limits.passiveIntervalMilliseconds) / 1000
        let backlog = bound.limits.earlyRestartBytes / 16
        condition.lock()
        while !stopping {
            condition.unlock()
            let lag = connection.value.map { bound.passiveCheckpoint(on: $0) } ?? 0
            condition.lock()
            if stopping { break }
            let pause = lag >= backlog ? 0.005 : lag > 0 ? 0.05 : idle
            _ = condition.wait(until: Date().addingTimeInterval(pause))
        }
        connection.value = nil
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Stops checkpointing and closes the connection; waits for a running checkpoint.
    public func close() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}
