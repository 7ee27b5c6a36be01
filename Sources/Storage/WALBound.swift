import Foundation
import Synchronization

/// How large the write-ahead log may grow, and how quickly it is given back.
public struct WALLimits: Sendable, Equatable {
    /// The bound, bytes: the `-wal` file exceeds it by at most the frames of one commit.
    public var maxBytes: Int64
    /// Without a commit for this long the log is copied into the database and the file
    /// truncated to zero bytes (milliseconds).
    public var idleTruncateMilliseconds: Int
    /// Pause between background (passive) checkpoints once they have caught up (milliseconds).
    public var passiveIntervalMilliseconds: Int
    /// How long the writer's checkpoint waits for readers of old snapshots while the log is
    /// below the bound (milliseconds); at the bound it waits as long as it takes.
    public var restartPatienceMilliseconds: Int
    /// See `earlyRestartBytes` (bytes).
    public var earlyRestartTargetBytes: Int64

    public init(maxBytes: Int64 = WALLimits.defaultMaxBytes, idleTruncateMilliseconds: Int = 1_000,
                passiveIntervalMilliseconds: Int = 250, restartPatienceMilliseconds: Int = 20,
                earlyRestartTargetBytes: Int64 = 8 << 20) {
        self.maxBytes = max(WALLimits.minimumMaxBytes, maxBytes)
        self.earlyRestartTargetBytes = max(64 << 10, earlyRestartTargetBytes)
        self.idleTruncateMilliseconds = idleTruncateMilliseconds
        self.passiveIntervalMilliseconds = passiveIntervalMilliseconds
        self.restartPatienceMilliseconds = restartPatienceMilliseconds
    }

    public static let defaultMaxBytes: Int64 = 256 << 20
    public static let minimumMaxBytes: Int64 = 1 << 20

    /// Past this (half the bound) the writer checkpoints between commits so that the log starts
    /// over, waiting up to `restartPatienceMilliseconds` for readers of older snapshots. It is
    /// also what the file is cut back to when the log starts over (`journal_size_limit`): a
    /// file that keeps its size is overwritten, and syncing overwritten blocks is cheaper than
    /// syncing appended ones.
    public var restartBytes: Int64 { maxBytes / 2 }

    /// Past this (`earlyRestartTargetBytes`, 8 MiB by default, at most `restartBytes`) the
    /// writer already tries to start the log over between commits, but only when that waits
    /// for nobody: the background checkpoint is not running and no reader uses the log (a busy
    /// attempt is retried once another sixteenth of this has been written), and for at most
    /// ~1/32 of the writer's time (large commits leave more to copy). A short log keeps its
    /// pages warm, and SQLite looks a page up in fewer of the log's index blocks (one per
    /// 4,096 frames) on every read and write: at 10 fixes a request on 4 connections, 88.5k
    /// instead of 81.0k fixes/s (medians of 4 alternating rounds).
    public var earlyRestartBytes: Int64 { min(restartBytes, earlyRestartTargetBytes) }

    public static let standard = WALLimits()
}

/// The state of the write-ahead log, for metrics.
public struct WALStatus: Sendable {
    /// The configured bound (`WALLimits.maxBytes`).
    public var limitBytes: Int64
    /// Size of the `-wal` file on disk.
    public var fileBytes: Int64
    /// Bytes of frames written since the log last started over (≤ `fileBytes`).
    public var logBytes: Int64
    /// Bytes of those frames not yet copied into the database file (checkpoint lag).
    public var lagBytes: Int64
    /// When a checkpoint last found every frame of the log copied into the database.
    public var lastCompleteCheckpoint: Date?
    /// Checkpoints the writer ran between commits that made the log start over.
    public var restarts: Int
    /// Those of `restarts` that came before `WALLimits.restartBytes` (waiting for nobody).
    public var earlyRestarts: Int
    /// Truncations of the file to zero bytes after ingest paused.
    public var truncations: Int
    /// Time the writer spent in those checkpoints (seconds; writes wait meanwhile).
    public var writerCheckpointSeconds: Double
    /// The most frames one commit has added, in bytes (the slack allowed past the bound).
    public var largestCommitBytes: Int64
    /// Bytes of frames all commits have written since start.
    public var writtenBytes: Int64
    /// How long the writer has been holding writes back at the bound, waiting for readers
    /// of old snapshots to finish (0 when it is not).
    public var holdingSeconds: Double
}

/// Keeps the write-ahead log within `WALLimits`.
///
/// SQLite reuses the log from its start only when a writer finds every frame copied into the
/// database and no reader still using the log; under sustained writes and reads that never
/// happens by itself (checkpoint starvation), and the file grows without end. So:
/// - a `Checkpointer` copies frames in the background with passive checkpoints (which never
///   block anyone), keeping the lag small;
/// - after a commit that leaves the log past `earlyRestartBytes`, the writer thread — between
///   commits, so no write can start — runs a RESTART checkpoint that copies the few frames
///   left, if it can do so without waiting for anyone; past `restartBytes` it waits up to
///   `restartPatienceMilliseconds` for readers of older snapshots. The next commit then writes
///   the log from its start and cuts the file to `restartBytes`;
/// - past `maxBytes` the writer holds every write back until such a checkpoint succeeds, so the
///   file never exceeds the bound by more than the one commit that crossed it (readers'
///   transactions are short, so this takes milliseconds);
/// - once no commit came for `idleTruncateMilliseconds`, the writer truncates the file to zero.
/// Only one checkpoint runs at a time (`gate`): SQLite refuses a second one at once.
public final class WALBound: WriterMaintenance {
    public let limits: WALLimits
    /// Path of the `-wal` file.
    let walPath: String
    private let state = Mutex(State())
    /// Held by whoever runs a checkpoint (the writer thread or the `Checkpointer`).
    private let gate = Mutex(())
    /// Signalled when the file was truncated (for `waitUntilTruncated`).
    private let emptied = NSCondition()

    private struct State {
        var frameBytes: Int64 = 4_096 + 24
        /// Frames in the log (after the last commit), and how many of them are copied.
        var logFrames = 0
        var copiedFrames = 0
        var largestCommitFrames = 0
        var writtenFrames: Int64 = 0
        /// The file is empty: truncated and no commit since.
        var truncated = false
        var nextIdleAttempt = Date()
        var lastComplete: Date?
        var restarts = 0
        var earlyRestarts = 0
        var truncations = 0
        var writerSeconds = 0.0
        var holdingSince: Date?
        /// No early restart is tried before the log holds this many frames (after a busy one)
        /// or before this time (after any).
        var nextEarlyAttemptFrames = 0
        var nextEarlyAttemptTime = Date.distantPast

        func bytes(_ frames: Int) -> Int64 { frames > 0 ? 32 + Int64(frames) * frameBytes : 0 }

        /// The log starts over (whoever restarted it): nothing in it, nothing copied, and an
        /// early restart may be tried again as soon as the new log reaches the target.
        mutating func logStartedOver() {
            logFrames = 0
            copiedFrames = 0
            nextEarlyAttemptFrames = 0
        }
    }

    /// `databasePath` is the main database file; the log is beside it.
    public init(limits: WALLimits = .standard, databasePath: String) {
        self.limits = limits
        self.walPath = databasePath + "-wal"
        let idle = Double(limits.idleTruncateMilliseconds) / 1000
        state.withLock { $0.nextIdleAttempt = Date().addingTimeInterval(idle) }
    }

    /// Prepares the writer connection (before the writer starts): its commits report the log's
    /// size here, never checkpoint by themselves, and a restarted log cuts the file back.
    public func attach(to database: Database) throws {
        try database.execute("PRAGMA journal_size_limit = \(limits.restartBytes)")
        let frameBytes = Int64(try database.pageSize()) + 24
        state.withLock { $0.frameBytes = frameBytes }
        database.observeWALCommits { [self] frames in committed(logFrames: frames) }
    }

    /// Called inside each commit of the writer connection.
    private func committed(logFrames frames: Int) {
        let idle = Double(limits.idleTruncateMilliseconds) / 1000
        state.withLock { s in
            // Fewer frames than before: the log started over with this commit.
            let added = frames >= s.logFrames ? frames - s.logFrames : frames
            if frames < s.logFrames { s.logStartedOver() }
            s.largestCommitFrames = max(s.largestCommitFrames, added)
            s.writtenFrames += Int64(added)
            s.logFrames = frames
            s.truncated = false
            s.nextIdleAttempt = Date().addingTimeInterval(idle)
        }
    }

    // MARK: Writer thread

    public func afterCommit(_ database: Database) {
        let now = Date()
        let (logBytes, earlyAttemptDue) = state.withLock { s in
            (s.bytes(s.logFrames), s.logFrames >= s.nextEarlyAttemptFrames && now >= s.nextEarlyAttemptTime)
        }
        guard logBytes >= limits.earlyRestartBytes else { return }
        if logBytes >= limits.maxBytes {
            holdUntilRestarted(database)
        } else if logBytes >= limits.restartBytes {
            // The background checkpoint is running: try again after the next commit.
            _ = gate.withLockIfAvailable { _ in restart(database, waitMilliseconds: limits.restartPatienceMilliseconds) }
        } else if earlyAttemptDue {
            let outcome = gate.withLockIfAvailable { _ in restart(database, waitMilliseconds: 0) }
            let spent = Date().timeIntervalSince(now)
            state.withLock { s in
                // Early restarts take at most ~1/32 of the writer's time (large commits leave
                // more to copy), and a busy one waits for another sixteenth of the target.
                s.nextEarlyAttemptTime = now.addingTimeInterval(32 * spent)
                if outcome == .restarted {
                    s.earlyRestarts += 1
                } else {
                    s.nextEarlyAttemptFrames = s.logFrames + max(1, Int(limits.earlyRestartBytes / 16 / s.frameBytes))
                }
            }
        }
    }

    /// At the bound: no write until the log can start over.
    private func holdUntilRestarted(_ database: Database) {
        state.withLock { $0.holdingSince = Date() }
        defer { state.withLock { $0.holdingSince = nil } }
        var wait = max(1, limits.restartPatienceMilliseconds)
        while true {
            switch gate.withLock({ _ in restart(database, waitMilliseconds: wait) }) {
            case .restarted, .failed: return   // a failure (I/O, disk full) is not retried in a loop
            case .busy: wait = min(wait * 2, 1_000)
            }
        }
    }

    private enum RestartResult { case restarted, busy, failed }

    /// A RESTART checkpoint on the writer connection; call with `gate` held.
    private func restart(_ database: Database, waitMilliseconds: Int) -> RestartResult {
        let start = Date()
        let outcome = try? database.checkpoint(.restart, waitMilliseconds: Int32(clamping: waitMilliseconds))
        let seconds = Date().timeIntervalSince(start)
        return state.withLock { s in
            s.writerSeconds += seconds
            guard let outcome else { return .failed }
            guard outcome.isComplete else {
                s.copiedFrames = min(s.logFrames, max(s.copiedFrames, outcome.copiedFrames))
                return .busy
            }
            s.logStartedOver()
            s.restarts += 1
            s.lastComplete = Date()
            return .restarted
        }
    }

    public func idleDeadline() -> Date? {
        state.withLock { $0.truncated ? nil : $0.nextIdleAttempt }
    }

    public func idle(_ database: Database) {
        let outcome = gate.withLockIfAvailable { _ in
            try? database.checkpoint(.truncate, waitMilliseconds: Int32(clamping: limits.restartPatienceMilliseconds))
        }
        let retry = Double(limits.idleTruncateMilliseconds) / 1000
        state.withLock { s in
            guard let outcome, let outcome, outcome.isComplete else {
                s.nextIdleAttempt = Date().addingTimeInterval(retry)
                return
            }
            s.logStartedOver()
            s.truncated = true
            s.truncations += 1
            s.lastComplete = Date()
        }
        emptied.lock()
        emptied.broadcast()
        emptied.unlock()
    }

    /// Blocks until the file has been truncated with no commit since, or until `deadline`;
    /// returns whether it was (for tests and tools).
    public func waitUntilTruncated(deadline: Date) -> Bool {
        emptied.lock()
        defer { emptied.unlock() }
        while !state.withLock({ $0.truncated }) {
            guard emptied.wait(until: deadline) else { return state.withLock { $0.truncated } }
        }
        return true
    }

    // MARK: Background checkpoints

    /// One passive checkpoint on `database` (the `Checkpointer`'s own connection) unless the
    /// writer is checkpointing; returns the bytes of frames left to copy.
    func passiveCheckpoint(on database: Database) -> Int64 {
        guard let attempt = gate.withLockIfAvailable({ _ in try? database.checkpoint(.passive) }),
              let outcome = attempt else { return 0 }
        return state.withLock { s in
            s.copiedFrames = min(s.logFrames, max(s.copiedFrames, outcome.copiedFrames))
            if outcome.isComplete && outcome.logFrames > 0 { s.lastComplete = Date() }
            return Int64(s.logFrames - s.copiedFrames) * s.frameBytes
        }
    }

    // MARK: Metrics

    public var status: WALStatus {
        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? NSNumber)?.int64Value ?? 0
        return state.withLock { s in
            WALStatus(limitBytes: limits.maxBytes, fileBytes: fileBytes, logBytes: s.bytes(s.logFrames),
                      lagBytes: Int64(max(0, s.logFrames - s.copiedFrames)) * s.frameBytes,
                      lastCompleteCheckpoint: s.lastComplete, restarts: s.restarts, earlyRestarts: s.earlyRestarts, truncations: s.truncations,
                      writerCheckpointSeconds: s.writerSeconds, largestCommitBytes: Int64(s.largestCommitFrames) * s.frameBytes,
                      writtenBytes: s.writtenFrames * s.frameBytes,
                      holdingSeconds: s.holdingSince.map { Date().timeIntervalSince($0) } ?? 0)
        }
    }
}
