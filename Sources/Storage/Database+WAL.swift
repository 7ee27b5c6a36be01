import CSQLite

/// Write-ahead-log primitives of one connection: checkpoints and the commit hook.
extension Database {
    /// SQLite's checkpoint modes (`sqlite3_wal_checkpoint_v2`).
    public enum CheckpointMode: Sendable {
        /// Copies what it can without waiting for anyone; never blocks the writer or readers.
        case passive
        /// Holds the write lock, waits for readers of old snapshots, copies every frame, and makes
        /// the next commit write the log from its start (the file keeps its size).
        case restart
        /// As `restart`, then truncates the log file to zero bytes.
        case truncate

        var code: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// What a checkpoint did, in frames (one frame = one page plus a 24-byte header).
    public struct CheckpointOutcome: Sendable, Equatable {
        /// Frames in the log when the checkpoint ran (0 after a successful truncate).
        public var logFrames: Int
        /// Frames of the log already copied into the database file.
        public var copiedFrames: Int
        /// Another connection held a lock the mode needed for longer than it waited
        /// (`restart`/`truncate`: a reader of an old snapshot; any mode: another checkpoint).
        public var busy: Bool

        /// Every frame is in the database file (and, for `restart`/`truncate`, the log restarts).
        public var isComplete: Bool { !busy && copiedFrames >= logFrames }
    }

    /// Runs a checkpoint, waiting at most `waitMilliseconds` for locks held by others (the
    /// connection's usual busy timeout is restored afterwards). The connection must have no
    /// transaction open.
    ///
    /// - Throws: `StorageError` for failures other than "busy" (I/O errors, a full disk).
    public func checkpoint(_ mode: CheckpointMode, waitMilliseconds: Int32 = 0) throws(StorageError) -> CheckpointOutcome {
        if mode != .passive { sqlite3_busy_timeout(handle, max(0, waitMilliseconds)) }
        defer { if mode != .passive { sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds) } }
        var log: Int32 = 0, copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, mode.code, &log, &copied)
        if rc == SQLITE_BUSY {
            return CheckpointOutcome(logFrames: Int(max(0, log)), copiedFrames: Int(max(0, copied)), busy: true)
        }
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
        return CheckpointOutcome(logFrames: Int(max(0, log)), copiedFrames: Int(max(0, copied)), busy: false)
    }

    /// Calls `onCommit` with the number of frames in the log after every commit of this
    /// connection (on the committing thread, after the write lock is released). Replaces the
    /// automatic checkpoint (`wal_autocheckpoint`), so that no commit ever checkpoints by itself.
    public func observeWALCommits(_ onCommit: @escaping (_ logFrames: Int) -> Void) {
        let hook = WALCommitHook(onCommit)
        walHook = hook
        sqlite3_wal_hook(handle, { context, _, _, frames in
            if let context { Unmanaged<WALCommitHook>.fromOpaque(context).takeUnretainedValue().onCommit(Int(frames)) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// The page size in bytes (`PRAGMA page_size`).
    public func pageSize() throws -> Int {
        try firstRow("PRAGMA page_size") { $0.int(0) } ?? 4_096
    }
}

/// The context handed to `sqlite3_wal_hook`; owned by the `Database` it is registered on, so it
/// lives as long as the handle that calls it.
final class WALCommitHook {
    let onCommit: (Int) -> Void
    init(_ onCommit: @escaping (Int) -> Void) { self.onCommit = onCommit }
}
