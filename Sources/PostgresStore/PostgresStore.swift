import Synchronization
import PostgresClient
import Tracking

/// The server-database store: any number of `fod` nodes on one PostgreSQL database.
///
/// Each node has a few group-committing writer connections (`GroupCommitWriters`) and a pool
/// of reader connections; everything that must hold across nodes is decided by the database —
/// duplicates by unique indexes, the latest location by a conditional UPDATE, per-group event
/// ids by the row lock of `event_heads`, a `NOTIFY` on `PostgresStore.eventChannel` in the
/// transaction of every event (an `EventNotice`) for other nodes' live feeds.
///
/// Lifetime: `open` migrates the schema (safe when several nodes start at once); `close`
/// finishes queued writes and closes every connection. Call `close` exactly once.
public final class PostgresStore: Sendable {
    /// The channel every node LISTENs on for committed events.
    public static let eventChannel = "fod_events"

    let connectionString: String
    let writers: GroupCommitWriters
    let readers: ConnectionPool
    /// Connections for the notification queue's short write transactions, each its own
    /// (`writeSQLAside`), beside the group commit.
    let asideWriters: ConnectionPool
    /// Parsed place shapes for arrivals on ingest.
    let placeShapes = PlaceShapeCache()
    /// The groups' places and place-index cells by version, for appends (`PostgresPlaceArrivals`).
    let placeIndex = PlaceIndexCache()
    /// Sharing devices of recently queried groups, checked against `group_visibility`.
    let visibility = SharingDevicesCache()
    /// The abuse limits count in the database, for every node alike.
    public let limitCounters: any LimitCounters
    /// Where this node's consumers get every node's commits (fed by `relays`).
    public let commits = CommitDoor(relayed: true)
    /// The node's relays while it publishes (`startPublishing`).
    let relays = Mutex<NodeRelays?>(nil)

    /// Connects to `connectionString` (libpq's: a `postgresql://` URI, multi-host allowed) and
    /// applies pending migrations. Throws `StoreFailure(.unavailable)` when the database
    /// cannot be reached.
    /// - Parameters:
    ///   - readerCount: reader connections in the pool.
    ///   - writerCount: group-committing writer connections (`GroupCommitWriters`), at least 1.
    public static func open(_ connectionString: String, readerCount: Int = 8, writerCount: Int = defaultWriterCount) throws -> PostgresStore {
        do {
            let connection = try Connection(connectionString)
            try PostgresSchema.migrate(connection)
        } catch {
            throw translate(error)
        }
        return PostgresStore(connectionString: connectionString, readerCount: readerCount, writerCount: writerCount)
    }

    /// Writers a node opens unless told otherwise: two keep two backends busy (1.3× the batched
    /// ingest of one writer on this 2-core machine; three or four measured no better).
    public static let defaultWriterCount = 2

    /// Connections a node opens at most for `writeSQLAside`.
    static let asideWriterCount = 4

    init(connectionString: String, readerCount: Int, writerCount: Int) {
        self.connectionString = connectionString
        writers = GroupCommitWriters(connectionString: connectionString, count: writerCount)
        readers = ConnectionPool(connectionString, size: readerCount, checkoutTimeout: .seconds(10))
        asideWriters = ConnectionPool(connectionString, size: Self.asideWriterCount, checkoutTimeout: .seconds(10))
        limitCounters = PostgresLimitCounters(readers: readers)
    }

    /// The schema version of the database.
    public func schemaVersion() throws -> Int64 {
        try read { try PostgresSchema.version($0) }
    }

    // MARK: Reading and writing

    /// Runs `body` on a reader connection (statements see what was committed before each began).
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        do { return try readers.withConnection(body) } catch { throw Self.translate(error) }
    }

    /// Runs `body` inside one read-only snapshot (`REPEATABLE READ`): every statement in it sees
    /// the same committed state.
    func readSnapshot<T>(planning: PlanCaching = .automatic, _ body: (Connection) throws -> T) throws -> T {
        try read { connection in try connection.transaction(.repeatableRead, readOnly: true, planning: planning, body) }
    }

    /// Runs `body` inside the next group commit; returns once it is durable.
    /// `lockOrder`: see `GroupCommitWriter` (appends name their device).
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T, lockOrder: String? = nil,
                            onCommit: (@Sendable (T) -> Void)? = nil) async throws -> T {
        do {
            return try await writers.writer(for: lockOrder).write(body, lockOrder: lockOrder, onCommit: onCommit)
        } catch {
            throw Self.translate(error)
        }
    }

    /// Like `write`, answering through `completion` on the writer thread right after the
    /// commit, or with the (translated) error.
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T, lockOrder: String? = nil,
                            completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        writers.writer(for: lockOrder).write(body, lockOrder: lockOrder) { completion($0.mapError(Self.translate)) }
    }

    /// A fault of the database as the domain's `StoreFailure`; any other error as it is.
    static func translate(_ error: Error) -> Error {
        guard let error = error as? PostgresError else { return error }
        if error.isDiskFull { return StoreFailure(.full, detail: error.description) }
        if error.isReadOnly { return StoreFailure(.readOnly, detail: error.description) }
        if error.sqlState == .tooManyConnections || error.sqlState == .lockNotAvailable {
            return StoreFailure(.busy, detail: error.description)
        }
        if error.isUnavailable { return StoreFailure(.unavailable, detail: error.description) }
        return error
    }

    public var gauges: [StoreGauge] {
        let pool = readers.statistics
        return [
            StoreGauge("fod_database_commits_total", "Group commits done by this node's writers.", Double(writers.commitCount)),
            StoreGauge("fod_database_writer_connections", "Group-committing writer connections of this node.", Double(writers.count)),
            StoreGauge("fod_database_reader_connections", "Reader connections this node holds open.", Double(pool.open)),
        ]
    }

    public func close() {
        writers.close()
        readers.close()
        asideWriters.close()
    }
}

extension PostgresStore: TrackingStore {}

extension PostgresStore {
    /// Runs `body` unless another session (another node) runs job `name` now: a session-level
    /// advisory lock held for the duration. Returns nil without running when the lock is taken.
    /// If this node dies meanwhile, the server releases the lock with its session.
    public func runExclusively<T: Sendable>(_ name: String, _ body: () async throws -> T) async throws -> T? {
        let session: AdvisoryLockSession
        let key = AdvisoryLockKey(name: "fod.job.\(name)")
        do {
            session = try AdvisoryLockSession(connectionString)
            guard try session.tryLock(key) else { return nil }
        } catch {
            throw Self.translate(error)
        }
        defer { _ = try? session.unlock(key) }
        return try await body()
    }
}
