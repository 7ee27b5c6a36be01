// Why one file of ~420 lines: the mirror's runs, their merge policy and the lookups that read them
// share one lock and one invariant (runs hold consecutive commits, each sorted by cell); keeping
// them together keeps that invariant checkable in one read.

import Tracking
import Storage
import Synchronization

/// The in-memory mirror of `index_queue`: fixes already durable in `locations` whose cell-index
/// and client-id entries are not merged yet (see `IndexMerger`).
///
/// Geo queries read the merged `cell_index` plus this mirror; ingest checks client ids against
/// `client_ids` plus this mirror. Entries are kept as cell-sorted runs (a new run per commit,
/// neighbouring runs merged when the newer is at least half the older's size, up to
/// `maxRunLength`), so a range lookup costs one binary search per run. Runs hold consecutive
/// commits, so merging (which takes the oldest sequences) mostly drops whole runs.
///
/// Transactions: write jobs record changes (`add`, `cellsMerged`, `clientIDsMerged`, `remove`)
/// that take effect
/// when their transaction commits and vanish if their job or transaction rolls back — the writer
/// reports both (`TransactionObserver`). Client ids a job stores are visible to later jobs of
/// the same transaction at once (`stageClientID`) and withdrawn on rollback.
/// Threading: only the writer thread mutates; readers take an immutable `Snapshot`.
/// Invariant: after each commit the mirror holds exactly the queued fixes that are still in
/// history and not covered by the stored `MergePoint` (and their client ids, until merged).
final class UnmergedFixes: Sendable {
    /// A client id of one device, as the dedupe check sees it. Hashing uses only a precomputed
    /// 64-bit fingerprint (so the writer never hashes strings); equality compares the id itself.
    struct ClientKey: Hashable, Sendable {
        let deviceKey: Int64
        let clientID: String
        let fingerprint: UInt64

        /// `idHash` is `idHash(clientID)`, passed in when computed earlier off the writer thread.
        init(deviceKey: Int64, clientID: String, idHash: UInt64? = nil) {
            self.deviceKey = deviceKey
            self.clientID = clientID
            fingerprint = Self.fingerprint(deviceKey: deviceKey, idHash: idHash ?? Self.idHash(clientID))
        }

        /// The key's 64-bit fingerprint: the id's hash mixed with the device (SplitMix64's
        /// finaliser), so its bits are uniform (`ClientIDFilter` uses them directly).
        static func fingerprint(deviceKey: Int64, idHash: UInt64) -> UInt64 {
            var x = idHash ^ (UInt64(bitPattern: deviceKey) &* 0x9E37_79B9_7F4A_7C15)
            x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
            x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
            return x ^ (x >> 31)
        }

        /// 64-bit FNV-1a of the id's UTF-8 bytes.
        static func idHash(_ id: String) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }

        /// `idHash` of an id's UTF-8 bytes as stored.
        static func idHash(bytes: UnsafeRawBufferPointer) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }

        func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

        static func == (a: ClientKey, b: ClientKey) -> Bool {
            a.fingerprint == b.fingerprint && a.deviceKey == b.deviceKey && a.clientID == b.clientID
        }
    }

    /// Entries sorted by (cell, sequence), with bounds of their sequences.
    struct Run: Sendable {
        let entries: [IndexEntry]
        let minSequence: Int64
        let maxSequence: Int64

        init(_ entries: [IndexEntry]) {
            self.entries = entries
            minSequence = entries.lazy.map(\.sequence).min() ?? .max
            maxSequence = entries.lazy.map(\.sequence).max() ?? .min
        }
    }

    /// What a reader uses: the runs, and the merge progress they reflect.
    struct Snapshot: Sendable {
        let runs: [Run]
        /// `MergePoint.progress` of the last merge commit applied to these runs.
        let progress: Int64
    }

    private struct State {
        var runs: [Run] = []
        var point = MergePoint.start
        var count = 0
    }

    private let state = Mutex(State())
    /// Client ids of the unmerged fixes (and those staged by the open transaction). Only the
    /// writer uses them, so they have their own lock and never delay a reader's snapshot.
    private let clientIDs = Mutex(ClientIDSet())

    /// Runs are not merged beyond this many entries: merging costs the writer time in one
    /// piece (~30 ns per entry), so bigger runs would stall ingest; more runs cost a query one
    /// binary search each.
    static let maxRunLength = 131_072

    /// A change recorded by a job of the open transaction, applied at its commit.
    private enum Change {
        case add([IndexEntry])
        case cellsMerged(MergePoint)
        case clientIDsMerged([ClientKey])
        case remove(deviceKey: Int64, sequences: Set<Int64>?, clientIDs: [ClientKey])
    }

    /// The open transaction's changes and staged client ids (writer thread only), with where the
    /// running job's began.
    private struct Journal {
        var changes: [Change] = []
        var staged: [ClientKey] = []
        var jobStart = (changes: 0, staged: 0)
    }

    private let journal = Mutex(Journal())

    /// Fixes waiting to be merged into the cell index.
    var count: Int { state.withLock { $0.count } }

    /// Cell entries plus client ids still to merge (zero once a cycle finished both phases).
    var pendingWork: Int { count + clientIDs.withLock { $0.count } }

    func snapshot() -> Snapshot {
        state.withLock { Snapshot(runs: $0.runs, progress: $0.point.progress) }
    }

    /// Replaces everything (at startup): `entries` must be the queued fixes `point` does not cover.
    func reload(entries: [IndexEntry], clientIDs: [ClientKey], point: MergePoint) {
        let run = entries.sorted(by: Self.order)
        let runs = stride(from: 0, to: run.count, by: Self.maxRunLength).map {
            Run(Array(run[$0..<min($0 + Self.maxRunLength, run.count)]))
        }
        state.withLock { $0 = State(runs: runs, point: point, count: run.count) }
        self.clientIDs.withLock { set in
            set = ClientIDSet()
            for key in clientIDs { set.insert(key) }
        }
    }

    // MARK: Client ids (writer thread)

    func containsClientID(_ key: ClientKey) -> Bool {
        clientIDs.withLock { $0.contains(key) }
    }

    /// Stages a client id the running job stores (the job itself and later jobs of the
    /// transaction see it at once) unless the mirror has it already; returns whether it was absent (one hash
    /// lookup for the common case of a new id). `unstage` takes back a key staged by the
    /// running job that turned out to be stored after all.
    func stageClientIDIfAbsent(_ key: ClientKey) -> Bool {
        guard clientIDs.withLock({ $0.insert(key) }) else { return false }
        journal.withLock { $0.staged.append(key) }
        return true
    }

    func unstage(_ key: ClientKey) {
        journal.withLock { journal in
            if let index = journal.staged.lastIndex(of: key), index >= journal.jobStart.staged { journal.staged.remove(at: index) }
        }
        clientIDs.withLock { $0.remove(key) }
    }

    // MARK: Changes recorded by write jobs (writer thread), applied at commit

    /// The entries of fixes the running job appended to `index_queue`.
    func add(_ entries: [IndexEntry]) {
        guard !entries.isEmpty else { return }
        journal.withLock { $0.changes.append(.add(entries)) }
    }

    /// The running job merged cells up to `point` (entries it covers leave the mirror).
    func cellsMerged(_ point: MergePoint) {
        journal.withLock { $0.changes.append(.cellsMerged(point)) }
    }

    /// The running job stored these client ids in `client_ids`.
    func clientIDsMerged(_ keys: [ClientKey]) {
        journal.withLock { $0.changes.append(.clientIDsMerged(keys)) }
    }

    /// The running job deleted a device's fixes with these sequences (nil: all of the device's
    /// fixes) and these client ids.
    func remove(deviceKey: Int64, sequences: Set<Int64>?, clientIDs: [ClientKey]) {
        journal.withLock { $0.changes.append(.remove(deviceKey: deviceKey, sequences: sequences, clientIDs: clientIDs)) }
    }

    private func apply(_ change: Change) {
        switch change {
        case .add(let entries): applyAdd(entries)
        case .cellsMerged(let point): applyCellsMerged(point)
        case .clientIDsMerged(let keys): self.clientIDs.withLock { set in for key in keys { set.remove(key) } }
        case .remove(let key, let sequences, let clientIDs): applyRemove(deviceKey: key, sequences: sequences, clientIDs: clientIDs)
        }
    }

    private func applyAdd(_ entries: [IndexEntry]) {
        var runs = state.withLock { $0.runs }
        runs.append(Run(entries.sorted(by: Self.order)))
        // Size-tiered: merge while the newest run is at least half the one before it.
        while runs.count >= 2, runs[runs.count - 1].entries.count * 2 >= runs[runs.count - 2].entries.count,
              runs[runs.count - 1].entries.count + runs[runs.count - 2].entries.count <= Self.maxRunLength {
            let newer = runs.removeLast()
            let older = runs.removeLast()
            runs.append(Run(Self.merge(older.entries, newer.entries)))
        }
        state.withLock {
            $0.runs = runs
            $0.count += entries.count
        }
    }

    private func applyCellsMerged(_ point: MergePoint) {
        let runs = state.withLock { $0.runs }
        // Runs wholly newer than the cycle stay as they are; the others lose what is covered.
        let kept = Self.filter(runs, skipping: { $0.minSequence > point.cycleThrough && $0.minSequence > point.mergedThrough }) {
            !point.covers($0)
        }
        state.withLock {
            $0.runs = kept.runs
            $0.count = kept.count
            $0.point = point
        }
    }

    private func applyRemove(deviceKey: Int64, sequences: Set<Int64>?, clientIDs: [ClientKey]) {
        let runs = state.withLock { $0.runs }
        let kept = Self.filter(runs, skipping: { _ in false }) { entry in
            entry.deviceKey.storeValue != deviceKey || (sequences.map { !$0.contains(entry.sequence) } ?? false)
        }
        state.withLock {
            $0.runs = kept.runs
            $0.count = kept.count
        }
        self.clientIDs.withLock { set in
            if sequences == nil {
                set.removeAll { $0.deviceKey == deviceKey }
            } else {
                for key in clientIDs { set.remove(key) }
            }
        }
    }

    // MARK: Sorted runs

    static func order(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        (a.cell, a.sequence) < (b.cell, b.sequence)
    }

    static func merge(_ a: [IndexEntry], _ b: [IndexEntry]) -> [IndexEntry] {
        var out: [IndexEntry] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if order(b[j], a[i]) { out.append(b[j]); j += 1 } else { out.append(a[i]); i += 1 }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    /// Keeps the entries `keep` accepts; runs for which `untouched` holds are kept whole,
    /// without looking at their entries.
    static func filter(_ runs: [Run], skipping untouched: (Run) -> Bool,
                       _ keep: (IndexEntry) -> Bool) -> (runs: [Run], count: Int) {
        var count = 0
        var kept: [Run] = []
        for run in runs {
            if untouched(run) {
                kept.append(run)
                count += run.entries.count
                continue
            }
            let filtered = run.entries.filter(keep)
            if !filtered.isEmpty { kept.append(Run(filtered)); count += filtered.count }
        }
        return (kept, count)
    }
}

/// How far merging into `cell_index` has come (the row of `index_state`): every fix with
/// sequence ≤ `mergedThrough` is merged, and so is every fix with sequence ≤ `cycleThrough`
/// whose cell is below `cycleCell` — a merge cycle goes through its fixes in cell order, one
/// commit per chunk. `progress` counts merge commits.
struct MergePoint: Sendable, Equatable {
    var mergedThrough: Int64
    var cycleThrough: Int64
    var cycleCell: Int64
    var progress: Int64

    static let start = MergePoint(mergedThrough: 0, cycleThrough: 0, cycleCell: .min, progress: 0)

    /// Whether the fix with this sequence and cell is in `cell_index` as of this point.
    func covers(sequence: Int64, cell: Int64) -> Bool {
        sequence <= mergedThrough || (sequence <= cycleThrough && cell < cycleCell)
    }

    func covers(_ entry: IndexEntry) -> Bool { covers(sequence: entry.sequence, cell: entry.cell) }

    static func read(from db: Database) throws -> MergePoint {
        try db.firstRow("SELECT merged_through, cycle_through, cycle_cell, progress FROM index_state", []) {
            MergePoint(mergedThrough: $0.int64(0), cycleThrough: $0.int64(1), cycleCell: $0.int64(2), progress: $0.int64(3))
        } ?? .start
    }

    func write(to db: Database) throws {
        try db.run("UPDATE index_state SET merged_through = ?, cycle_through = ?, cycle_cell = ?, progress = ?",
                   [.integer(mergedThrough), .integer(cycleThrough), .integer(cycleCell), .integer(progress)])
    }
}

extension UnmergedFixes.Snapshot {
    /// Calls `body` for each entry that `point` (the reader's stored merge point) does not
    /// cover whose key is in `range` and time in [from, to]; returns false if `body` stopped.
    func scan(_ range: ClosedRange<Int64>, from: Int64, to: Int64, point: MergePoint,
              _ body: (IndexEntry) throws -> Bool) rethrows -> Bool {
        for run in runs.lazy.map(\.entries) {
            var index = Self.lowerBound(run, range.lowerBound)
            while index < run.count, run[index].cell <= range.upperBound {
                let entry = run[index]
                index += 1
                guard !point.covers(entry), entry.timestamp >= from, entry.timestamp <= to else { continue }
                if try !body(entry) { return false }
            }
        }
        return true
    }

    /// Whether `scan` would yield anything.
    func hasEntries(in range: ClosedRange<Int64>, from: Int64, to: Int64, point: MergePoint) -> Bool {
        !scan(range, from: from, to: to, point: point) { _ in false }
    }

    /// First index whose cell is ≥ `cell`.
    static func lowerBound(_ run: [IndexEntry], _ cell: Int64) -> Int {
        var low = 0, high = run.count
        while low < high {
            let mid = (low + high) / 2
            if run[mid].cell < cell { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

extension UnmergedFixes: TransactionObserver {
    func jobWillRun() {
        journal.withLock { $0.jobStart = ($0.changes.count, $0.staged.count) }
    }

    func jobRolledBack() {
        let withdrawn: [ClientKey] = journal.withLock { journal in
            let withdrawn = Array(journal.staged[journal.jobStart.staged...])
            journal.changes.removeSubrange(journal.jobStart.changes...)
            journal.staged.removeSubrange(journal.jobStart.staged...)
            return withdrawn
        }
        clientIDs.withLock { set in for key in withdrawn { set.remove(key) } }
    }

    func transactionCommitted() {
        let changes = journal.withLock { journal in
            defer { journal = Journal() }
            return journal.changes
        }
        for change in changes { apply(change) }
    }

    func transactionRolledBack() {
        let withdrawn = journal.withLock { journal in
            defer { journal = Journal() }
            return journal.staged
        }
        clientIDs.withLock { set in for key in withdrawn { set.remove(key) } }
    }
}

/// A set of client keys split in 64 shards by fingerprint, so that growing it never rehashes
/// everything at once (a single set of a million keys stalls its inserter for ~0.25 s).
///
/// A Swift set keeps its storage when elements leave; a shard that falls below a quarter of
/// its capacity is copied into storage of its size (and an empty one freed), so the memory a
/// burst of ids took returns once they are merged.
struct ClientIDSet {
    private var shards = [Set<UnmergedFixes.ClientKey>](repeating: [], count: 64)

    /// Shards smaller than this (in capacity) are never compacted: not worth the copy.
    static let compactionFloor = 4_096

    private static func shard(_ key: UnmergedFixes.ClientKey) -> Int { Int(key.fingerprint >> 58) }

    func contains(_ key: UnmergedFixes.ClientKey) -> Bool { shards[Self.shard(key)].contains(key) }

    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// Element slots allocated in all shards (for tests: the memory held).
    var capacity: Int { shards.reduce(0) { $0 + $1.capacity } }

    /// Returns whether `key` was absent.
    @discardableResult
    mutating func insert(_ key: UnmergedFixes.ClientKey) -> Bool { shards[Self.shard(key)].insert(key).inserted }

    mutating func remove(_ key: UnmergedFixes.ClientKey) {
        let index = Self.shard(key)
        shards[index].remove(key)
        compact(index)
    }

    mutating func removeAll(where shouldRemove: (UnmergedFixes.ClientKey) -> Bool) {
        for index in shards.indices {
            shards[index] = shards[index].filter { !shouldRemove($0) }
            compact(index)
        }
    }

    private mutating func compact(_ index: Int) {
        let shard = shards[index]
        guard shard.capacity >= Self.compactionFloor, shard.count < shard.capacity / 4 else { return }
        if shard.isEmpty {
            shards[index] = []
        } else {
            var smaller = Set<UnmergedFixes.ClientKey>(minimumCapacity: shard.count * 2)
            for key in shard { smaller.insert(key) }
            shards[index] = smaller
        }
    }
}
