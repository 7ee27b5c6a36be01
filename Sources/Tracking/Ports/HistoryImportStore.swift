/// What the import service needs of a store beyond ingest.
///
/// Reads are synchronous and each sees one committed snapshot (joined with the request's other
/// reads inside `TrackingStore.readingTogether`). `async` writes run on the store's single
/// writer in the next group commit, each in its own savepoint (one that throws leaves nothing
/// behind), and return once the commit is durable. Storage faults throw `StoreFailure`.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol HistoryImportStore: Sendable {
    /// The groups where the device's member shares now, with the device's sharing periods there.
    func sharingWindows(deviceID: DeviceID) throws -> [DeviceSharing]
    /// Returns once the store can take another batch without its memory growing past its
    /// budget (the SQLite store: the unmerged index backlog below `--index-buffer`). Live
    /// ingest never waits for this; imports do, so a 4 GB file imports in bounded memory.
    func awaitIngestCapacity() async
    /// Logs `tally`'s entries (`ImportEventTally.entries`) in one transaction and returns the
    /// events (logged, and announced by the store through its `CommitDoor`).
    func logImportEvents(_ tally: ImportEventTally) async throws -> [GroupEvent]
}
