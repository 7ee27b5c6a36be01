/// Reading the event log.
///
/// Reads are synchronous and each sees one committed snapshot (joined with the request's other
/// reads inside `TrackingStore.readingTogether`). `async` writes run on the store's single
/// writer in the next group commit, each in its own savepoint (one that throws leaves nothing
/// behind), and return once the commit is durable. Storage faults throw `StoreFailure`.
/// Event ids are per group, 1, 2, 3, … in commit order without gaps; `redacted` events keep
/// their ids. Times are milliseconds since 1970. Pruning deletes in batches of its own commits.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol EventLog: Sendable {
    /// Events of `groupID` with id > `after`, oldest first, at most `limit`.
    func events(groupID: GroupID, after: EventID, limit: Int) throws -> [GroupEvent]
    /// The newest event id of the group (0 when none) and the oldest id still in the log
    /// (nil when the log holds none of the group's events).
    func eventBounds(groupID: GroupID) throws -> (last: EventID, oldest: EventID?)
    /// Deletes events older than `before` (ms); returns how many.
    func pruneEvents(before: Int64) async throws -> Int
    /// From one snapshot: whether `readerID` is a member of `groupID` (nil when not), who shares
    /// there, and the log's bounds — what a new stream starts from.
    func feedSnapshot(groupID: GroupID, readerID: UserID) throws -> FeedSnapshot?
}
