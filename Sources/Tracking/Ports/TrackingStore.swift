/// Everything the services persist, as one store: the embedded SQLite store or PostgreSQL.
///
/// The ports it joins each state their contract (`AccountStore`, `DirectoryStore`,
/// `LocationStore`, `EventLog`, `GeoIndex`, `ExportStore`, `ShareStore`, `FriendStore`,
/// `SignInRecordStore`, `DeviceLogStore`, `NotificationStore`, `AccountAdministrationStore`,
/// `ImportTokenStore`, `PlaceStore`, `HistoryImportStore`, `CommitPublisher`); the store
/// conformance suite checks every store against them. What holds across all of them:
/// - A write returns once it is durable ("a 2xx means committed"), and its events are logged in
///   the same transaction as the change they describe, with per-group ids 1, 2, 3, … in commit
///   order; `onCommit` callbacks run in that order.
/// - A read sees one committed snapshot.
/// - A fault of the storage itself (full, read-only, busy, unreachable) is thrown as a
///   `StoreFailure`, never as a trap; other errors are `TrackingError`s of the domain.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol TrackingStore: AccountStore, DirectoryStore, LocationStore, EventLog, GeoIndex, ExportStore, HistoryImportStore,
    ShareStore, FriendStore, PlaceStore, SignInRecordStore, DeviceLogStore, NotificationStore, AccountAdministrationStore,
    ImportTokenStore, CommitPublisher {
    /// Figures for `/metrics` (name, help, value).
    var gauges: [StoreGauge] { get }
    /// Where the abuse limits count: in this process for a store that is the only node's, in
    /// the database for a store that nodes share.
    var limitCounters: any LimitCounters { get }
    /// Finishes queued writes and closes every connection. Call exactly once, last.
    func close()
    /// Runs `body`, synchronous, with the reads it makes on the calling thread joined into one
    /// read transaction: one snapshot for a request's credential, membership, visibility and
    /// query, and the cost of one transaction instead of one each. Writes are unaffected.
    func readingTogether<T>(_ body: () throws -> T) throws -> T
}

extension TrackingStore {
    /// A store whose reads cost nothing to begin just runs `body`.
    public func readingTogether<T>(_ body: () throws -> T) throws -> T { try body() }
}

/// One `/metrics` gauge of a store.
public struct StoreGauge: Sendable {
    public let name: String
    public let help: String
    public let value: Double

    public init(_ name: String, _ help: String, _ value: Double) {
        self.name = name
        self.help = help
        self.value = value
    }
}

/// The storage could not do it for a reason that is not the request's: the disk is full, the
/// database is read-only or busy, or the database server cannot be reached. Answered 503 with
/// `Retry-After`; the same request may succeed later.
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case full, readOnly, busy, unavailable
    }

    public let kind: Kind
    /// What the store said (for the log, never for clients).
    public let detail: String

    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "storage \(kind): \(detail)" }
}
