import Tracking
import Foundation
import Synchronization
import Storage
import ThreadControl

/// The embedded backend: one SQLite file in the data directory, one group-committing writer,
/// a small pool of readers. It implements the domain's store protocols.
///
/// Lifetime: `open` migrates the schema; `close` finishes queued writes, checkpoints the WAL
/// and closes every connection. Call `close` exactly once.
public final class SQLiteBackend: Sendable {
    public let path: String
    public let writer: DatabaseWriter
    public let readers: ReaderPool
    /// The readers and the checkpointer, which the writer closes and reopens around a new
    /// connection of its own when the database was read-only and is writable again.
    let files: FileConnections
    /// Keeps the write-ahead log within its bound (see `WALBound`).
    let walBound: WALBound
    let sequences = SequenceAllocator()
    /// Fixes in `index_queue`, mirrored in memory for queries and dedupe.
    let unmerged: UnmergedFixes
    /// Rules out most new client ids without a probe of `client_ids` (built in the background).
    let clientIDFilter = ClientIDFilter()
    /// Signalled once the filter's build ended (built or abandoned).
    private let clientIDFilterBuilt = DispatchSemaphore(value: 0)
    let merger: IndexMerger
    /// Parsed place shapes for arrivals on ingest.
    let placeShapes = PlaceShapeCache()
    /// The groups' places and place-index cells by version, for appends (`PlaceArrivalStore`).
    let placeIndex = PlaceIndexCache()
    /// Test seam: runs once, inside the next geo reader's snapshot, between reading the merge
    /// point and taking the mirror (to make a merge land exactly there).
    let readerTestHook = Mutex<(@Sendable () -> Void)?>(nil)
    /// Sharing devices of recently queried groups (history queries), checked against the
    /// visibility version on every use.
    let visibility = VisibilityCache()
    /// The abuse limits count in this process: an embedded database is one node's alone.
    public let limitCounters: any LimitCounters = LocalLimitCounters()
    /// Where the store announces what it committed, right after each commit (the writer runs
    /// commit callbacks in commit order).
    public let commits = CommitDoor()

    /// Page cache of the writer connection, KiB.
    public static let writerCacheKiB = 65_536

    /// Opens (creating) `fod.sqlite` in `directory`, applies pending migrations (refusing a
    /// database of a newer release, `SchemaTooNew`, before writing anything), loads the
    /// unmerged fixes and starts merging them by `merging`; the WAL is kept within `wal`.
    public static func open(directory: String, synchronous: Database.Synchronous = .full,
                            readerCount: Int = 4, merging: MergePolicy = .standard, wal: WALLimits = .standard) throws -> SQLiteBackend {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/fod.sqlite"
        try SchemaVersionGate.check(path: path)
        let walBound = WALBound(limits: wal, databasePath: path)
        let database: Database
        do {
            database = try writerConnection(path: path, synchronous: synchronous, walBound: walBound)
        } catch let error as StorageError where error.code == 14 && access(directory, W_OK) != 0 {
            throw StorageError(code: 14, message: "cannot open \(path): its directory is read-only, and SQLite can read a WAL database "
                               + "there only if its -wal and -shm files exist (make the directory writable)", systemErrno: errno)
        }
        try Schema.migrator.migrate(database)
        return try SQLiteBackend(path: path, writerDatabase: database, readerCount: readerCount, merging: merging,
                                 synchronous: synchronous, walBound: walBound)
    }

    /// Opens the writer's connection. A database that is read-only now opens read-only (reads
    /// work, writes fail with `StorageError.Fault.readOnly`); the writer opens a new one through
    /// `FileConnections.reconnectWriter` once it is writable again.
    static func writerConnection(path: String, synchronous: Database.Synchronous, walBound: WALBound) throws -> Database {
        let database = try Database(path: path, synchronous: synchronous)
        // Checkpoints run beside the writer (`Checkpointer`) and between its commits (`WALBound`),
        // never inside a commit.
        try walBound.attach(to: database)
        // The writer probes and inserts across the whole of `client_ids` and `cell_index`: a
        // page cache of 64 MiB (SQLite's default is 2 MiB) keeps their upper levels and hot
        // leaves in memory instead of re-reading them from the OS on every probe.
        try database.execute("PRAGMA cache_size = -\(Self.writerCacheKiB)")
        return database
    }

    init(path: String, writerDatabase: Database, readerCount: Int, merging: MergePolicy, synchronous: Database.Synchronous,
         walBound: WALBound) throws {
        self.path = path
        let unmerged = UnmergedFixes()
        let mirroredIDs = try Self.loadUnmerged(into: unmerged, from: writerDatabase)
        self.unmerged = unmerged
        clientIDFilter.note(mirroredIDs.map(\.fingerprint))
        let files = try FileConnections(readers: try ReaderPool(path: path, size: readerCount)) {
            try Checkpointer(path: path, bound: walBound)
        }
        self.files = files
        self.readers = files.readers
        self.walBound = walBound
        let maintenance = WriterMaintenanceGroup([walBound, IdleMemoryRelease(readers: files.readers)])
        self.writer = DatabaseWriter(database: writerDatabase, observer: unmerged, maintenance: maintenance) {
            try files.reconnectWriter { try Self.writerConnection(path: path, synchronous: synchronous, walBound: walBound) }
        }
        self.merger = IndexMerger(policy: merging, unmerged: unmerged, writer: writer, readers: readers)
        merger.start()
        let (filter, readers, built) = (clientIDFilter, files.readers, clientIDFilterBuilt)
        let builder = Thread {
            CurrentThread.name("fod-id-filter")
            filter.build(from: readers)
            built.signal()
        }
        builder.start()
    }

    /// Blocks until the client-id filter's build ended; returns whether it is ready (tests).
    func awaitClientIDFilter() -> Bool {
        clientIDFilterBuilt.wait()
        clientIDFilterBuilt.signal()
        return clientIDFilter.isReady
    }

    /// Fills the mirror from `index_queue`: the fixes the stored merge point does not cover,
    /// leaving out those deleted since they were queued, and client ids not yet in `client_ids`
    /// (returned too).
    @discardableResult
    static func loadUnmerged(into unmerged: UnmergedFixes, from db: Database) throws -> [UnmergedFixes.ClientKey] {
        let point = try MergePoint.read(from: db)
        let idsMergedThrough = try db.firstRow("SELECT ids_merged_through FROM index_state", []) { $0.int64(0) } ?? 0
        var entries: [IndexEntry] = []
        var clientIDs: [UnmergedFixes.ClientKey] = []
        try IndexMerger.forEachStoredFix(of: IndexMerger.queuedRecords(upTo: .max, in: db), in: db) { entry, clientID in
            if !point.covers(entry) { entries.append(entry) }
            if let clientID, entry.sequence > idsMergedThrough {
                clientIDs.append(.init(deviceKey: entry.deviceKey.storeValue, clientID: clientID))
            }
        }
        unmerged.reload(entries: entries, clientIDs: clientIDs, point: point)
        return clientIDs
    }

    /// Fixes stored but not yet merged into the cell index (queries see them all the same).
    public var unmergedCount: Int { unmerged.count }

    /// Starts a merge cycle to drive chunk by chunk (`step`); nil when nothing is queued.
    /// One cycle at a time; with automatic merging, the merger runs its own.
    public func beginMerge(batch: Int, chunk: Int) throws -> MergeStepper? {
        let unmerged = self.unmerged
        guard let cycle = try MergeCycle(batch: batch, chunk: chunk, unmerged: unmerged, readers: readers) else { return nil }
        return MergeStepper(cycle: cycle, backend: self)
    }

    /// Whether the merger is running a merge cycle now.
    public var isMerging: Bool { merger.isMerging }

    /// Merge cycles that failed since start (each is retried a second later).
    public var mergeFailures: Int { merger.failures }

    /// With automatic merging: waits until the merger has merged everything, or `deadline`.
    public func waitUntilAllMerged(deadline: Date) -> Bool {
        merger.waitUntilAllMerged(deadline: deadline)
    }

    /// Merges until nothing is left queued.
    public func drainIndex(batch: Int = 400_000, chunk: Int = 16_384) async throws {
        while let cycle = try beginMerge(batch: batch, chunk: chunk) {
            while try await cycle.step() {}
        }
    }

    /// Runs `body` with a read-only connection (one consistent snapshot). A fault of the
    /// storage comes out as `StoreFailure`.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try readers.read(body) } catch let error as StorageError { throw Self.translate(error) }
    }

    /// `read` in a snapshot taken now, even inside `readingTogether` (`ReaderPool.readAlone`).
    func readAlone<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try readers.readAlone(body) } catch let error as StorageError { throw Self.translate(error) }
    }

    /// Every `read` that `body` makes on this thread joins one read transaction
    /// (`ReaderPool.readingTogether`).
    public func readingTogether<T>(_ body: () throws -> T) throws -> T {
        do { return try readers.readingTogether(body) } catch let error as StorageError { throw Self.translate(error) }
    }

    /// Runs `body` inside the next group commit; returns once it is durable.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await writer.write(body) } catch let error as StorageError { throw Self.translate(error) }
    }

    /// Like `write`; `onCommit` runs on the writer thread right after the commit, in commit order.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        do { return try await writer.write(body, onCommit: onCommit) } catch let error as StorageError { throw Self.translate(error) }
    }

    /// Like `write`, answering through `completion` on the writer thread right after the
    /// commit (in commit order), or with the error: no task waits.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        writer.write(body) { result in
            completion(result.mapError { error in (error as? StorageError).map(Self.translate) ?? error })
        }
    }

    /// A storage fault as the domain's `StoreFailure`; any other SQLite error as it is (a bug).
    static func translate(_ error: StorageError) -> Error {
        switch error.fault {
        case .storageFull?: StoreFailure(.full, detail: error.description)
        case .readOnly?: StoreFailure(.readOnly, detail: error.description)
        case .busy?: StoreFailure(.busy, detail: error.description)
        case .ioError?: StoreFailure(.unavailable, detail: error.description)
        case nil: error
        }
    }

    /// The write-ahead log: its size, bound and checkpoint lag.
    public var walStatus: WALStatus { walBound.status }

    /// Size of the database file in bytes.
    public func sizeBytes() -> Int64 {
        (try? read { try $0.fileSizeBytes() }) ?? 0
    }

    public var gauges: [StoreGauge] {
        let wal = walStatus
        return [
            StoreGauge("fod_database_size_bytes", "Size of the SQLite database file.", Double(sizeBytes())),
            StoreGauge("fod_database_commits_total", "Group commits done by the writer.", Double(writer.statistics.commits)),
            StoreGauge("fod_index_unmerged_fixes", "Stored fixes not yet merged into the cell index (queries see them anyway).",
                       Double(unmergedCount)),
            StoreGauge("fod_index_merge_running", "1 while a merge cycle (cell index, then client ids) is running.", isMerging ? 1 : 0),
            StoreGauge("fod_index_merge_failures", "Merge cycles that failed since start (retried).", Double(mergeFailures)),
        ] + WALGauges.gauges(wal)
    }

    public func close() {
        merger.stop()
        writer.close()
        files.close()
        if let database = try? Database(path: path) {
            database.checkpoint()
        }
    }
}

/// A merge cycle driven from outside, one commit per `step`.
public final class MergeStepper: Sendable {
    let cycle: MergeCycle
    let backend: SQLiteBackend

    init(cycle: MergeCycle, backend: SQLiteBackend) {
        self.cycle = cycle
        self.backend = backend
    }

    /// Commits the next `pieces` chunks (as the merger does while ingest runs); returns whether
    /// more remain.
    public func step(pieces: Int = 1) async throws -> Bool {
        let cycle = self.cycle
        return try await backend.write { db in try cycle.commitNextChunk(in: db, pieces: pieces) }
    }

}

extension SQLiteBackend: TrackingStore {}
