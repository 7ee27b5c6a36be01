// Why one file of ~410 lines: the merge policy (when, how much) and the merge cycle (chunked
// commits, the WAL-bound interplay with the checkpointer) are tuned together; every knob below is
// measured by Benchmarks/soak and Benchmarks/ingest, and reading them apart hides that coupling.

import Tracking
import Foundation
import Storage
import Synchronization
import ThreadControl

/// When and how much of `index_queue` to merge into `cell_index` and `client_ids`.
///
/// A merge inserts random keys into large B-trees, which is cheap per row only in big sorted
/// batches; and each of its commits holds the single writer. So a merge *cycle* takes a big
/// batch (`cycleBatch` fixes) but commits it in chunks (`chunk` rows, in key order), letting
/// ingest commits run in between. Cycles start once ingest pauses (`idleMilliseconds`), under
/// steady load when the last one is `maxAgeSeconds` old, and back to back once the unmerged
/// fixes pass `highWater` (memory: ~150 bytes each; by default 5% of RAM) — then half of
/// `highWater` per cycle (at most the cycle batch): the bigger a sorted batch, the more of its
/// rows share each index page it writes, and the chunked commits still leave the writer to
/// ingest in between. Ten-minute soaks here: a tenth held 118k fixes/s and left idle memory
/// 81 MiB higher afterwards; half held 115–131k and +39–48 MiB (its 1M-entry sorted arrays are
/// past glibc's mmap threshold, so they go back to the system whole).
public struct MergePolicy: Sendable {
    /// Merge by itself at all (tests and tools drive cycles with `SQLiteBackend.beginMerge`).
    public var automatic: Bool
    /// Start a cycle once no append has committed for this long (milliseconds).
    public var idleMilliseconds: Int
    /// Above this many unmerged fixes, run cycles back to back even while ingest runs.
    public var highWater: Int
    /// Even while ingest never pauses, start a cycle once the last one ended (or the moment
    /// nothing was unmerged) this many seconds ago.
    public var maxAgeSeconds: Double
    /// Fixes per cycle (the batch whose keys are sorted together).
    public var cycleBatch: Int
    /// Rows per commit within a cycle (how long a merge commit holds the writer). 2,048 was
    /// tried: it shortened the writer's bursts (merge-time query p99 0.15–0.18 ms against
    /// 0.19–0.36), but in a 3-minute soak the merge fell behind sustained ingest (28M fixes
    /// unmerged, 4.5 GB RSS, against 1.6M and ~0.7 GB with 16,384): each commit rewrites the
    /// index's upper pages, so smaller chunks write far more per row. Hence `quietChunk`.
    public var chunk: Int
    /// Rows per commit while nothing was appended for `idleMilliseconds` and nothing presses
    /// (backlog under `highWater`, no import waiting): then the merge competes only with
    /// queries, and short commits (and checkpoints) keep their latency flat; when ingest
    /// resumes, the cycle goes on in `chunk`s. At most `chunk`.
    public var quietChunk: Int
    /// The backlog an import may leave before it waits for the merge (at most `highWater`):
    /// history imports of any size stay within a few hundred bytes × this of memory (mirror,
    /// dedupe set, the merge cycle's sorted keys), while live ingest keeps the whole `highWater`
    /// to absorb bursts. Default 20,000 (four 5,000-fix import batches): on a 5M-point import
    /// here, 300,000 peaked 133 MiB higher and imported at 45.2k instead of 49.4k fixes/s.
    public var importHighWater = 20_000

    /// The backlog below which imports go on.
    var importThreshold: Int { max(1, min(highWater, importHighWater)) }

    public init(automatic: Bool = true, idleMilliseconds: Int = 250, highWater: Int = MergePolicy.defaultHighWater,
                maxAgeSeconds: Double = 30, cycleBatch: Int = 1_000_000, chunk: Int = 16_384, quietChunk: Int = 2_048) {
        self.automatic = automatic
        self.idleMilliseconds = idleMilliseconds
        self.highWater = highWater
        self.maxAgeSeconds = maxAgeSeconds
        self.cycleBatch = cycleBatch
        self.chunk = chunk
        self.quietChunk = quietChunk
    }

    /// The rows of one piece of a cycle: a quiet commit takes one, a busy one `piecesPerChunk`.
    var piece: Int { max(1, min(chunk, quietChunk)) }
    var piecesPerChunk: Int { max(1, chunk / piece) }

    /// Bytes of memory one unmerged fix takes (its mirror entry, run slack and client id;
    /// measured: ~150 B per fix of RSS growth with 2.4M unmerged).
    public static let bytesPerUnmergedFix = 150

    /// The default `highWater`: what 5% of physical memory holds, at least 100,000 and at most
    /// 2,000,000 fixes (~300 MB; a 1 GiB machine buffers ~360k fixes, a 4 GiB one or larger 2M).
    /// The cap bounds the memory a sustained load takes and how long the merge needs to catch up
    /// once it ends (2M fixes: ~20 s on a 2-core machine), after which the memory is returned.
    public static let defaultHighWater: Int = {
        let budget = Double(ProcessInfo.processInfo.physicalMemory) * 0.05 / Double(bytesPerUnmergedFix)
        return Int(min(2_000_000, max(100_000, budget)))
    }()

    public static let standard = MergePolicy()
    public static let manual = MergePolicy(automatic: false)
}

/// Runs merge cycles by `MergePolicy` on its own thread; each chunk is one job of the writer.
///
/// Lifetime: created stopped; `start` begins the thread (once); `stop` ends it, waiting for a
/// merge in flight. Tests and tools drive cycles themselves (`SQLiteBackend.beginMerge`).
final class IndexMerger: @unchecked Sendable {
    // @unchecked: every var is guarded by `condition`.
    private let condition = NSCondition()
    private var lastAppend = Date.distantPast
    /// When the last cycle ended: appends that waited behind its commits land only after it, so
    /// ingest counts as paused only once none committed for `idleMilliseconds` after this too.
    private var lastCycleEnd = Date.distantPast
    /// When a merge last finished, or the merger last saw nothing unmerged.
    private var lastCaughtUp = Date()
    /// The thread sleeps with nothing to merge (it needs a signal to start the idle timer).
    private var idleWithNothingQueued = false
    /// After a failed cycle, no new one before this (a persistent failure must not spin).
    private var retryAfter = Date.distantPast
    private var inFlight = false
    /// The backlog (pending mirror work) when memory was last returned, or the largest since:
    /// merging half of it away returns memory again. Touched only by the merger thread.
    private var backlogAtLastTrim = 0
    private var stopping = false
    private var running = false
    private let policy: MergePolicy
    private let unmerged: UnmergedFixes
    private let writer: DatabaseWriter
    private let readers: ReaderPool
    /// Cycles that failed (a chunk's commit threw), for metrics.
    var failures: Int {
        condition.lock()
        defer { condition.unlock() }
        return failureCount
    }
    private var failureCount = 0
    /// Imports waiting for the backlog to drop below `highWater` (`awaitCapacity`).
    private var capacityWaiters: [CheckedContinuation<Void, Never>] = []

    init(policy: MergePolicy, unmerged: UnmergedFixes, writer: DatabaseWriter, readers: ReaderPool) {
        self.policy = policy
        self.unmerged = unmerged
        self.writer = writer
        self.readers = readers
    }

    /// An append committed (called on the writer thread).
    func noteAppended() {
        guard policy.automatic else { return }
        condition.lock()
        lastAppend = Date()
        if idleWithNothingQueued || unmerged.count >= policy.highWater { condition.signal() }
        condition.unlock()
    }

    func start() {
        guard policy.automatic else { return }
        condition.lock()
        defer { condition.unlock() }
        guard !running else { return }
        running = true
        let thread = Thread { [self] in
            CurrentThread.name("fod-index-merge")
            loop()
        }
        thread.start()
    }

    /// Returns once the unmerged backlog is below `importThreshold` (at once when it is, when merging
    /// is not automatic, or once stopping): imports call this before each batch, so they never
    /// grow the mirror past its memory budget. The loop merges back to back meanwhile (pressure).
    func awaitCapacity() async {
        guard policy.automatic else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if stopping || !running || unmerged.count < policy.importThreshold {
                condition.unlock()
                continuation.resume()
                return
            }
            capacityWaiters.append(continuation)
            condition.signal()
            condition.unlock()
        }
    }

    /// Resumes the capacity waiters when the backlog is below `highWater` (or `all`); called
    /// with `condition` locked.
    private func releaseCapacityWaiters(all: Bool = false) {
        guard !capacityWaiters.isEmpty, all || unmerged.count < policy.importThreshold else { return }
        let waiters = capacityWaiters
        capacityWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    func stop() {
        condition.lock()
        stopping = true
        releaseCapacityWaiters(all: true)
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    /// Whether a merge cycle is running (its client-id phase may outlast the cell entries).
    var isMerging: Bool {
        condition.lock()
        defer { condition.unlock() }
        return inFlight
    }

    /// Blocks until nothing is left unmerged and no merge is running, or until `deadline`;
    /// returns whether it got there (for tests and tools; merges must be automatic).
    func waitUntilAllMerged(deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while unmerged.pendingWork > 0 || inFlight {
            guard condition.wait(until: deadline) else { return unmerged.pendingWork == 0 && !inFlight }
        }
        return true
    }

    private func loop() {
        condition.lock()
        var nothingToMerge = false
        while !stopping {
            if Date() < retryAfter {
                _ = condition.wait(until: retryAfter)
                continue
            }
            // Cell entries, or client ids whose phase an interrupted cycle left undone.
            let pending = unmerged.count
            releaseCapacityWaiters(all: nothingToMerge)
            if nothingToMerge || unmerged.pendingWork == 0 {
                lastCaughtUp = Date()
                idleWithNothingQueued = true
                condition.wait()
                idleWithNothingQueued = false
                nothingToMerge = false
                continue
            }
            // Imports waiting for the backlog to shrink count as pressure too.
            let importPressure = !capacityWaiters.isEmpty && pending >= policy.importThreshold
            let pressure = pending >= policy.highWater || importPressure
            if !pressure {
                let now = Date()
                let idleDue = max(lastAppend, lastCycleEnd).addingTimeInterval(Double(policy.idleMilliseconds) / 1000)
                let ageDue = lastCaughtUp.addingTimeInterval(policy.maxAgeSeconds)
                if now < idleDue && now < ageDue {
                    _ = condition.wait(until: min(idleDue, ageDue))
                    continue
                }
            }
            inFlight = true
            condition.unlock()
            let batch = pending >= policy.highWater ? max(1, min(policy.cycleBatch, policy.highWater / 2))
                : importPressure ? max(1, min(policy.cycleBatch, policy.importThreshold / 2)) : policy.cycleBatch
            let outcome = runCycle(batch: batch)
            // The memory a merged backlog took goes back to the system as the backlog shrinks
            // (each halving) and once it is gone, so RSS follows the backlog down instead of
            // waiting for the last cycle.
            if case .merged = outcome {
                let left = unmerged.pendingWork
                if left == 0 || left <= backlogAtLastTrim / 2 {
                    FreeMemory.returnToSystem()
                    backlogAtLastTrim = left
                }
            }
            backlogAtLastTrim = max(backlogAtLastTrim, unmerged.pendingWork)
            condition.lock()
            inFlight = false
            lastCaughtUp = Date()
            lastCycleEnd = lastCaughtUp
            switch outcome {
            case .merged: break
            case .nothingQueued: nothingToMerge = true   // until the next append
            case .failed:
                failureCount += 1
                retryAfter = Date().addingTimeInterval(1)
                // Storage trouble: let imports go on to their write, which reports it (503).
                releaseCapacityWaiters(all: true)
            }
            releaseCapacityWaiters()
            condition.broadcast()
        }
        running = false
        releaseCapacityWaiters(all: true)
        condition.broadcast()
        condition.unlock()
    }

    enum CycleOutcome { case merged, nothingQueued, failed }

    /// Whether the next merge commit may be small (`MergePolicy.quietChunk`): no append for
    /// `idleMilliseconds`, the backlog under `highWater`, no import waiting for capacity.
    private func isQuiet() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return capacityWaiters.isEmpty && unmerged.count < policy.highWater
            && Date().timeIntervalSince(lastAppend) * 1000 >= Double(policy.idleMilliseconds)
    }

    /// One cycle, its chunks committed one after another (this thread waits for each). A
    /// failed chunk rolled back by itself; the next cycle starts again from the stored point.
    private func runCycle(batch: Int) -> CycleOutcome {
        do {
            guard let cycle = try MergeCycle(batch: batch, chunk: policy.piece, unmerged: unmerged, readers: readers)
            else { return .nothingQueued }
            while true {
                let done = DispatchSemaphore(value: 0)
                let more = Mutex<Result<Bool, Error>>(.success(false))
                let pieces = isQuiet() ? 1 : policy.piecesPerChunk
                writer.write({ db in try cycle.commitNextChunk(in: db, pieces: pieces) }) { result in
                    more.withLock { $0 = result }
                    done.signal()
                }
                done.wait()
                guard try more.withLock({ try $0.get() }) else { return .merged }
            }
        } catch {
            return .failed
        }
    }
}

/// One merge cycle: the oldest queued appends (whole `index_queue` rows, about `batch` fixes),
/// moved into `cell_index` in cell order and then into `client_ids` in key order, in pieces of
/// `chunk` rows, one or more pieces per commit. Fixes no longer in history are left out when
/// the batch is read and, if anything was deleted since, again by each commit; each commit
/// records the new `MergePoint`; the last one removes the merged queue rows. A cycle interrupted (crash, restart, failed commit) is simply started again: its
/// inserts are idempotent and the stored merge point says what is already merged.
///
/// Not thread-safe: one caller drives `commitNextChunk` (each call on the writer thread).
final class MergeCycle: @unchecked Sendable {
    // @unchecked: `next` is touched only by the job that runs the next chunk, one at a time.
    private let unmerged: UnmergedFixes
    /// Cell-index entries in key order, split into chunks at cell boundaries.
    private let cellChunks: [ArraySlice<IndexEntry>]
    /// Client ids (with their fix's key) in key order, split into chunks.
    private let idChunks: [ArraySlice<(key: UnmergedFixes.ClientKey, timestamp: Int64, sequence: Int64)>]
    /// The highest sequence in the batch, and the key of its last queue row.
    private let through: Int64
    private let lastRowKey: Int64
    /// `index_state.deletions` when the batch was read.
    private let deletionsAtRead: Int64
    private var next = 0

    /// Queue rows read per read transaction: a reader that holds its snapshot long would keep
    /// the WAL from starting over (see `WALBound`), so a batch is read in short pieces. Rows
    /// are only appended meanwhile (and deleted with their device: the commits check).
    static let fixesPerRead = 32_768

    /// Reads the batch on `readers` (off the writer). Nil when nothing is queued.
    init?(batch: Int, chunk: Int, unmerged: UnmergedFixes, readers: ReaderPool) throws {
        var idsMergedThrough: Int64 = 0, deletions: Int64 = 0, point = MergePoint.start
        var entries: [IndexEntry] = []
        var ids: [(key: UnmergedFixes.ClientKey, timestamp: Int64, sequence: Int64)] = []
        var last: (firstSequence: Int64, lastSequence: Int64)?
        var count = 0
        var resuming = false
        repeat {
            let first = last == nil
            let piece: (firstSequence: Int64, lastSequence: Int64)? = try readers.read { db in
                if first {
                    (idsMergedThrough, deletions) = try db.firstRow("SELECT ids_merged_through, deletions FROM index_state", []) {
                        ($0.int64(0), $0.int64(1))
                    } ?? (0, 0)
                    point = try MergePoint.read(from: db)
                    resuming = point.cycleThrough > point.mergedThrough
                }
                // An interrupted cycle's point covers part of its batch (the cells below
                // `cycleCell`). The new batch is exactly the rest of that batch: a batch reaching
                // further would start its chunks at lower cells, and the point of its first commit
                // would stop covering fixes the interrupted cycle merged (a restart would then load
                // them into the mirror again, and queries would find them twice).
                let records = try IndexMerger.queuedRecords(after: last?.firstSequence ?? idsMergedThrough,
                                                            through: resuming ? point.cycleThrough : .max,
                                                            upTo: resuming ? Self.fixesPerRead : min(Self.fixesPerRead, batch - count),
                                                            in: db)
                try IndexMerger.forEachStoredFix(of: records, checkStored: deletions > 0, in: db) { entry, clientID in
                    if !point.covers(entry) { entries.append(entry) }
                    if let clientID {
                        ids.append((.init(deviceKey: entry.deviceKey.storeValue, clientID: clientID), entry.timestamp, entry.sequence))
                    }
                }
                count += records.reduce(0) { $0 + $1.items.count }
                return records.last.map { ($0.firstSequence, $0.lastSequence) }
            }
            guard let piece else { break }
            last = piece
        } while resuming || count < batch   // resuming: the rows stop at `cycleThrough` (an empty piece ends it)
        self.unmerged = unmerged
        if resuming {
            // Even if the rest of the interrupted batch was deleted since, this cycle completes
            // its point.
            through = point.cycleThrough
            lastRowKey = last?.firstSequence ?? .min
        } else {
            guard let last else { return nil }
            through = last.lastSequence
            lastRowKey = last.firstSequence
        }
        deletionsAtRead = deletions
        entries.sort { ($0.cell, $0.deviceKey, $0.timestamp, $0.sequence) < ($1.cell, $1.deviceKey, $1.timestamp, $1.sequence) }
        ids.sort { ($0.key.deviceKey, $0.key.clientID) < ($1.key.deviceKey, $1.key.clientID) }
        cellChunks = Self.split(entries, chunk: max(1, chunk)) { $0.cell }
        idChunks = stride(from: 0, to: ids.count, by: max(1, chunk)).map { ids[$0..<min($0 + max(1, chunk), ids.count)] }
    }

    /// Splits sorted `items` into pieces of about `chunk`, never between two equal keys.
    static func split<T>(_ items: [T], chunk: Int, key: (T) -> Int64) -> [ArraySlice<T>] {
        var pieces: [ArraySlice<T>] = []
        var start = 0
        while start < items.count {
            var end = min(start + chunk, items.count)
            while end < items.count && key(items[end]) == key(items[end - 1]) { end += 1 }
            pieces.append(items[start..<end])
            start = end
        }
        return pieces
    }

    /// Commits the next `pieces` chunks of the current phase (inside the writer's transaction);
    /// returns whether more remain.
    func commitNextChunk(in db: Database, pieces: Int = 1) throws -> Bool {
        let exists = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? AND seq = ?")
        let deletedSinceRead = try db.firstRow("SELECT deletions FROM index_state", []) { $0.int64(0) } != deletionsAtRead
        func stillStored(_ deviceKey: Int64, _ timestamp: Int64, _ sequence: Int64) throws -> Bool {
            guard deletedSinceRead else { return true }
            try exists.bind(deviceKey, at: 1)
            try exists.bind(timestamp, at: 2)
            try exists.bind(sequence, at: 3)
            defer { exists.reset() }
            return try exists.step()
        }
        let step = next
        if step < cellChunks.count {
            let end = min(cellChunks.count, step + max(1, pieces))
            next = end
            // OR REPLACE: a fix merged by an interrupted cycle is merged again, the same row.
            let insert = try db.prepare("INSERT OR REPLACE INTO cell_index (cell, device_key, ts, seq, lon, lat) VALUES (?, ?, ?, ?, ?, ?)")
            for entry in cellChunks[step..<end].joined() where try stillStored(entry.deviceKey.storeValue, entry.timestamp, entry.sequence) {
                try insert.bind(entry.cell, at: 1)
                try insert.bind(entry.deviceKey.storeValue, at: 2)
                try insert.bind(entry.timestamp, at: 3)
                try insert.bind(entry.sequence, at: 4)
                try insert.bind(entry.longitude, at: 5)
                try insert.bind(entry.latitude, at: 6)
                try insert.run()
            }
            var point = try MergePoint.read(from: db)
            point.progress += 1
            if end < cellChunks.count {
                point.cycleThrough = max(point.cycleThrough, through)
                // `split` makes no empty piece; the fallback only keeps this free of traps.
                point.cycleCell = cellChunks[end].first?.cell ?? point.cycleCell
            } else {
                point.mergedThrough = max(point.mergedThrough, through)
                point.cycleThrough = point.mergedThrough
                point.cycleCell = .min
            }
            try point.write(to: db)
            unmerged.cellsMerged(point)
        } else if step - cellChunks.count < idChunks.count {
            let first = step - cellChunks.count
            let end = min(idChunks.count, first + max(1, pieces))
            next = cellChunks.count + end
            let insert = try db.prepare("INSERT OR IGNORE INTO client_ids (device_key, client_id, seq) VALUES (?, ?, ?)")
            let chunk = idChunks[first..<end].joined()
            for id in chunk where try stillStored(id.key.deviceKey, id.timestamp, id.sequence) {
                try insert.bind(id.key.deviceKey, at: 1)
                try insert.bind(id.key.clientID, at: 2)
                try insert.bind(id.sequence, at: 3)
                try insert.run()
            }
            unmerged.clientIDsMerged(chunk.map(\.key))
        }
        if next < cellChunks.count + idChunks.count { return true }
        if cellChunks.isEmpty {
            // Only client ids (or nothing) were left: the cell index already had every fix.
            var point = try MergePoint.read(from: db)
            if point.mergedThrough < through {
                point.mergedThrough = through
                point.cycleThrough = through
                point.cycleCell = .min
                point.progress += 1
                try point.write(to: db)
                unmerged.cellsMerged(point)
            }
        }
        try db.run("UPDATE index_state SET ids_merged_through = max(ids_merged_through, ?)", [.integer(through)])
        try db.run("DELETE FROM index_queue WHERE seq <= ?", [.integer(lastRowKey)])
        return false
    }
}

extension IndexMerger {
    /// Calls `body` with every fix of `records` that is still in history (all of them if
    /// `checkStored` is false: nothing was deleted since they were read), as a cell-index entry
    /// with its client id.
    static func forEachStoredFix(of records: [IndexQueueRecord], checkStored: Bool = true, in db: Database,
                                 _ body: (IndexEntry, String?) throws -> Void) throws {
        let exists = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? AND seq = ?")
        for record in records {
            for (entry, clientID) in record.items {
                if checkStored {
                    try exists.bind(entry.deviceKey.storeValue, at: 1)
                    try exists.bind(entry.timestamp, at: 2)
                    try exists.bind(entry.sequence, at: 3)
                    let stillStored = try exists.step()
                    exists.reset()
                    guard stillStored else { continue }
                }
                try body(entry, clientID)
            }
        }
    }

    /// The queue rows after sequence `after` and none past sequence `through`, in order, until
    /// they hold at least `limit` fixes. (A row's fixes are numbered from its key on; every merge
    /// point ends at the last fix of a row, so a row starting at or before one ends there too.)
    static func queuedRecords(after: Int64 = .min, through: Int64 = .max, upTo limit: Int,
                              in db: Database) throws -> [IndexQueueRecord] {
        let statement = try db.prepare("SELECT seq, device_key, fixes FROM index_queue WHERE seq > ? AND seq <= ? ORDER BY seq")
        defer { statement.reset() }
        try statement.bind(after, at: 1)
        try statement.bind(through, at: 2)
        var records: [IndexQueueRecord] = []
        var count = 0
        while count < limit, try statement.step() {
            guard let record = IndexQueueRecord.decode(firstSequence: statement.int64(0), deviceKey: statement.int64(1),
                                                       bytes: statement.blob(2)) else {
                throw StorageError(code: 11, message: "index_queue row \(statement.int64(0)) is damaged")  // SQLITE_CORRUPT
            }
            records.append(record)
            count += record.items.count
        }
        return records
    }
}
