import GeoKit
import LocationFormats
import Timestamps

/// A fix as stored: the submitted `Fix` plus the device it belongs to and its arrival order.
public struct StoredFix: Sendable, Equatable {
    public let deviceID: DeviceID
    /// Global arrival order, unique and increasing (also the live feed's commit order).
    public let sequence: Int64
    /// The fix as validated. Its `timestamp` stays bare milliseconds: `Fix` is built and
    /// compared in the ingest loop (parsing, dedupe, the index buffer), which this change did not
    /// measure; ``timestamp`` is the same time as a `Timestamp`.
    public let fix: Fix

    /// The time of the fix.
    @inlinable
    public var timestamp: Timestamp { Timestamp(millisecondsSince1970: fix.timestamp) }

    /// Where the fix was, in the fix's own degrees (its `longitude` and `latitude` stay bare
    /// `Double`s for the same reason as its time).
    @inlinable
    public var position: GeoPosition { GeoPosition(longitude: fix.longitude, latitude: fix.latitude) }

    public init(deviceID: DeviceID, sequence: Int64, fix: Fix) {
        self.deviceID = deviceID
        self.sequence = sequence
        self.fix = fix
    }
}

/// What one ingest call did: counts as API.md's batch reply, plus what changed.
public struct IngestOutcome: Sendable {
    public var accepted = 0
    public var duplicates = 0
    /// The stored fixes in commit order.
    public var stored: [StoredFix] = []
    /// Sequence of the fix that became the device's latest (newest by timestamp), if any did.
    public var newLatestSequence: Int64?
    /// The group events logged for the stored fixes (groups where the device's member shares).
    public var events: [GroupEvent] = []

    public init() {}
}

/// A page of history, oldest first.
public struct HistoryPage: Sendable {
    public let fixes: [StoredFix]
    /// Where the next page starts (nil on the last page).
    public let next: HistoryCursor?

    public init(fixes: [StoredFix], next: HistoryCursor?) {
        self.fixes = fixes
        self.next = next
    }
}

/// A keyset position in a device's history: the last (timestamp, sequence) returned.
public struct HistoryCursor: Sendable, Equatable {
    public let timestamp: Int64
    public let sequence: Int64

    public init(timestamp: Int64, sequence: Int64) {
        self.timestamp = timestamp
        self.sequence = sequence
    }
}

/// Persistence of location history.
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
