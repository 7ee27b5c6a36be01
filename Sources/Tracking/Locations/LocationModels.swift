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
