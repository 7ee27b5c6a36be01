import LocationFormats

/// Persistence of location history.
///
/// Reads are synchronous and each sees one committed snapshot (joined with the request's other
/// reads inside `TrackingStore.readingTogether`). `async` writes run on the store's single
/// writer in the next group commit, each in its own savepoint (one that throws leaves nothing
/// behind), and return once the commit is durable. Storage faults throw `StoreFailure`.
/// An append is one write job whose outcome goes to `completion` rather than a suspended task.
/// Times are milliseconds since 1970; fixes are WGS 84 degrees.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol LocationStore: Sendable {
    /// Dedupes `fixes` (by client id, else by timestamp; against stored fixes and each other, in
    /// the given order), stores the rest keyed by leaf cell, updates the device's latest
    /// location when a newer fix arrived, logs the location events `events` gives for each group
    /// where the device's member shares (same transaction), and returns once durable.
    /// `onCommit` runs right after the commit, in commit order across all writers.
    /// `completion` is called once: with the outcome once durable (after `onCommit`), or with
    /// the error — by the store's writer itself, so that no task waits for the commit (and none
    /// needs a thread of a pool to resume on). `append(…) async` awaits the same.
    ///
    /// `report`, when given, is written in the same transaction (even when `fixes` is empty or
    /// all duplicates): the device's status as `DeviceStatus.updated(by:)` says (nothing when it
    /// says nil), its rejections and its region events (an event equal to a kept one in time,
    /// kind and region is not kept twice), each trimmed to the newest `DeviceReport.max…Kept`.
    func append(deviceID: DeviceID, fixes: [Fix], report: DeviceReport?, events: LocationEventRule,
                onCommit: @escaping @Sendable (IngestOutcome) -> Void,
                completion: @escaping @Sendable (Result<IngestOutcome, Error>) -> Void)
    /// History of a device in [from, to], oldest first, after `cursor`, at most `limit`.
    func history(deviceID: DeviceID, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int) throws -> HistoryPage
    /// Deletes fixes of `deviceID` older than `before` (ms), and redacts their location events;
    /// returns how many. Works in batches.
    func deleteHistory(deviceID: DeviceID, before: Int64) async throws -> Int
    /// Deletes fixes older than `before` of every device, at most `batch` rows per commit;
    /// returns how many in all.
    func purge(before: Int64, batch: Int) async throws -> Int
}

extension LocationStore {
    /// `append` without a report (imports, tools).
    public func append(deviceID: DeviceID, fixes: [Fix], events: LocationEventRule,
                       onCommit: @escaping @Sendable (IngestOutcome) -> Void,
                       completion: @escaping @Sendable (Result<IngestOutcome, Error>) -> Void) {
        append(deviceID: deviceID, fixes: fixes, report: nil, events: events, onCommit: onCommit, completion: completion)
    }

    /// `append` awaited: returns the outcome once durable, or throws the error.
    public func append(deviceID: DeviceID, fixes: [Fix], report: DeviceReport? = nil, events: LocationEventRule,
                       onCommit: @escaping @Sendable (IngestOutcome) -> Void) async throws -> IngestOutcome {
        try await withCheckedThrowingContinuation { continuation in
            append(deviceID: deviceID, fixes: fixes, report: report, events: events, onCommit: onCommit) { continuation.resume(with: $0) }
        }
    }
}
