import Foundation
import Storage

/// When and how much of `index_queue` to merge into `cell_index` and `client_ids`.
///
/// A merge inserts random keys into large B-trees, which is cheap per row only in big sorted
/// batches — and it holds the single writer while it runs (about 5–10 µs per row here), so it
/// delays ingest commits by that long. Hence: merge big batches when ingest pauses; under
/// steady load, whatever waited `maxAgeSeconds`; under heavy load, back to back once the
/// unmerged fixes pass `highWater` (memory: ~100 bytes each).
public struct MergePolicy: Sendable {
    /// Merge by itself at all (tests and tools call `SQLiteBackend.mergeIndex` instead).
    public var automatic: Bool
    /// Merge once no append has committed for this long (milliseconds)…
    public var idleMilliseconds: Int
    /// …in batches of this many fixes.
    public var idleBatch: Int
    /// Above this many unmerged fixes, merge back to back even while ingest runs…
    public var highWater: Int
    /// …in batches of this many (also the batch of age-triggered merges).
    public var pressureBatch: Int
    /// Even while ingest never pauses, merge once the last merge (or the moment nothing was
    /// unmerged) is this many seconds ago, so the in-memory part stays small under steady load.
    public var maxAgeSeconds: Double

    public init(automatic: Bool = true, idleMilliseconds: Int = 250, idleBatch: Int = 100_000,
                highWater: Int = 1_000_000, pressureBatch: Int = 100_000, maxAgeSeconds: Double = 30) {
        self.automatic = automatic
        self.idleMilliseconds = idleMilliseconds
        self.idleBatch = idleBatch
        self.highWater = highWater
        self.pressureBatch = pressureBatch
        self.maxAgeSeconds = maxAgeSeconds
    }

    public static let standard = MergePolicy()
    public static let manual = MergePolicy(automatic: false)
}

/// Runs merges by `MergePolicy` on its own thread; each merge is one job of the writer.
///
/// Lifetime: created stopped; `start` begins the thread (once); `stop` ends it, waiting for a
/// merge in flight. Merging is also callable directly (`merge`).
final class IndexMerger: @unchecked Sendable {
    // @unchecked: every var is guarded by `condition`.
    private let condition = NSCondition()
    private var lastAppend = Date.distantPast
    /// When a merge last finished, or the merger last saw nothing unmerged.
    private var lastCaughtUp = Date()
    /// The thread sleeps with nothing to merge (it needs a signal to start the idle timer).
    private var idleWithNothingQueued = false
    private var inFlight = false
    private var stopping = false
    private var running = false
    private let policy: MergePolicy
    private let unmerged: UnmergedFixes
    private let writer: DatabaseWriter

    init(policy: MergePolicy, unmerged: UnmergedFixes, writer: DatabaseWriter) {
        self.policy = policy
        self.unmerged = unmerged
        self.writer = writer
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
        let thread = Thread { [self] in loop() }
        thread.name = "fod-index-merger"
        thread.start()
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    /// Blocks until nothing is left unmerged and no merge is running, or until `deadline`;
    /// returns whether it got there (for tests and tools; merges must be automatic).
    func waitUntilAllMerged(deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while unmerged.count > 0 || inFlight {
            guard condition.wait(until: deadline) else { return unmerged.count == 0 && !inFlight }
        }
        return true
    }

    private func loop() {
        condition.lock()
        while !stopping {
            if inFlight { condition.wait(); continue }
            let pending = unmerged.count
            let batch: Int
            if pending >= policy.highWater {
                batch = policy.pressureBatch
            } else if pending > 0 {
                let now = Date()
                let idleDue = lastAppend.addingTimeInterval(Double(policy.idleMilliseconds) / 1000)
                let ageDue = lastCaughtUp.addingTimeInterval(policy.maxAgeSeconds)
                if now >= idleDue {
                    batch = policy.idleBatch
                } else if now >= ageDue {
                    batch = policy.pressureBatch
                } else {
                    _ = condition.wait(until: min(idleDue, ageDue))
                    continue
                }
            } else {
                lastCaughtUp = Date()
                idleWithNothingQueued = true
                condition.wait()
                idleWithNothingQueued = false
                continue
            }
            inFlight = true
            condition.unlock()
            Self.submit(batch: batch, unmerged: unmerged, writer: writer) { [self] _ in
                condition.lock()
                inFlight = false
                lastCaughtUp = Date()
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
        }
        while inFlight { condition.wait() }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Queues one merge of up to `batch` of the oldest queued fixes; `completion` gets how many
    /// were merged, on the writer thread after the commit.
    static func submit(batch: Int, unmerged: UnmergedFixes, writer: DatabaseWriter,
                       completion: @escaping @Sendable (Result<Int, Error>) -> Void) {
        writer.write({ db in try merge(batch: batch, unmerged: unmerged, in: db) }, completion: completion)
    }

    /// Moves the oldest queued appends (whole rows, about `batch` fixes) into `cell_index` and
    /// `client_ids`, each sorted by its key, skipping fixes deleted meanwhile, and records the
    /// merge point. Returns how many queued fixes it consumed.
    static func merge(batch: Int, unmerged: UnmergedFixes, in db: Database) throws -> Int {
        let records = try queuedRecords(upTo: batch, in: db)
        guard let last = records.last else { return 0 }
        let through = last.firstSequence + Int64(last.items.count) - 1
        var entries: [IndexEntry] = []
        var clientIDs: [(key: UnmergedFixes.ClientKey, sequence: Int64)] = []
        var consumed = 0
        let exists = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? AND seq = ?")
        for record in records {
            consumed += record.items.count
            for (sequence, item) in record.sequenced {
                try exists.bind(record.deviceKey, at: 1)
                try exists.bind(item.timestamp, at: 2)
                try exists.bind(sequence, at: 3)
                let stillStored = try exists.step()
                exists.reset()
                guard stillStored else { continue }
                entries.append(IndexEntry(cell: item.cell, deviceKey: record.deviceKey, timestamp: item.timestamp,
                                          sequence: sequence, longitude: item.longitude, latitude: item.latitude))
                if let id = item.clientID { clientIDs.append((.init(deviceKey: record.deviceKey, clientID: id), sequence)) }
            }
        }
        entries.sort { ($0.cell, $0.deviceKey, $0.timestamp, $0.sequence) < ($1.cell, $1.deviceKey, $1.timestamp, $1.sequence) }
        // OR REPLACE / OR IGNORE: a row can only be there already if the same fix was merged
        // before (it is the same row), which must not wedge every later merge.
        let intoIndex = try db.prepare("INSERT OR REPLACE INTO cell_index (cell, device_key, ts, seq, lon, lat) VALUES (?, ?, ?, ?, ?, ?)")
        for entry in entries {
            try intoIndex.bind(entry.cell, at: 1)
            try intoIndex.bind(entry.deviceKey, at: 2)
            try intoIndex.bind(entry.timestamp, at: 3)
            try intoIndex.bind(entry.sequence, at: 4)
            try intoIndex.bind(entry.longitude, at: 5)
            try intoIndex.bind(entry.latitude, at: 6)
            try intoIndex.run()
        }
        clientIDs.sort { ($0.key.deviceKey, $0.key.clientID) < ($1.key.deviceKey, $1.key.clientID) }
        let intoClientIDs = try db.prepare("INSERT OR IGNORE INTO client_ids (device_key, client_id, seq) VALUES (?, ?, ?)")
        for entry in clientIDs {
            try intoClientIDs.bind(entry.key.deviceKey, at: 1)
            try intoClientIDs.bind(entry.key.clientID, at: 2)
            try intoClientIDs.bind(entry.sequence, at: 3)
            try intoClientIDs.run()
        }
        try db.run("DELETE FROM index_queue WHERE seq <= ?", [.integer(last.firstSequence)])
        try db.run("UPDATE index_state SET merged_through = ?", [.integer(through)])
        unmerged.removeMerged(through: through, clientIDs: clientIDs.map(\.key))
        return consumed
    }

    /// The oldest queue rows, in order, until they hold at least `limit` fixes (or the queue ends).
    static func queuedRecords(upTo limit: Int, in db: Database) throws -> [IndexQueueRecord] {
        let statement = try db.prepare("SELECT seq, device_key, fixes FROM index_queue ORDER BY seq")
        defer { statement.reset() }
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
