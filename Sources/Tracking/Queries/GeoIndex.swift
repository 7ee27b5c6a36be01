import Crypto

/// A device whose positions the caller may read in this group.
public struct SharedDevice: Sendable {
    public let key: DeviceKey
    public let deviceID: DeviceID
    public let userID: UserID
    public let last: LastLocation?
    /// The part of its history the group may read (its sharing periods there).
    public let windows: HistoryWindows

    public init(key: DeviceKey, deviceID: DeviceID, userID: UserID, last: LastLocation?, windows: HistoryWindows = .all) {
        self.key = key
        self.deviceID = deviceID
        self.userID = userID
        self.last = last
        self.windows = windows
    }

    func result(_ longitude: Double, _ latitude: Double, _ timestamp: Int64, distance: Double?) -> GeoQueryResult {
        GeoQueryResult(deviceID: deviceID, userID: userID, longitude: longitude, latitude: latitude, timestamp: timestamp, distance: distance)
    }
}

/// One entry of the cell index as a range scan yields it.
public struct IndexEntry: Sendable {
    public let cell: Int64
    public let deviceKey: DeviceKey
    public let timestamp: Int64
    public let sequence: Int64
    public let longitude: Double
    public let latitude: Double

    public init(cell: Int64, deviceKey: DeviceKey, timestamp: Int64, sequence: Int64, longitude: Double, latitude: Double) {
        self.cell = cell
        self.deviceKey = deviceKey
        self.timestamp = timestamp
        self.sequence = sequence
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// The devices of members sharing with one group, by store key, with their sharing periods
/// there: what a history query of the group may read (before the caller's own devices, which it
/// reads in full). Immutable, so a store may hand the same instance to many queries.
public final class SharingDevices: Sendable {
    public let byKey: [DeviceKey: SharedDevice]
    /// The keys of each member's devices here.
    public let byUser: [UserID: [DeviceKey]]
    /// Whether any device has a sharing period (otherwise only a caller's own device is readable).
    public let anyShared: Bool

    /// `byKey` as a table for the lookups of index scans (built once, with the cache entry).
    let table: ReadableDeviceTable
    /// This instance's scope in the query service's ``CoveringCache`` (random, never shared).
    let coveringScope = Secrets.randomBytes(16)

    public init(_ devices: [SharedDevice]) {
        byKey = Dictionary(devices.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        byUser = Dictionary(grouping: byKey.values, by: \.userID).mapValues { $0.map(\.key) }
        anyShared = devices.contains { !$0.windows.isEmpty }
        table = ReadableDeviceTable(byKey.values)
    }

    /// The history of `key` that `caller` may read: all of it for the device's owner, else its
    /// sharing periods here; nothing for a device not in the group's sharing devices.
    public func windows(of key: DeviceKey, readBy caller: UserID?) -> HistoryWindows {
        guard let device = byKey[key] else { return .none }
        return device.userID == caller ? .all : device.windows
    }
}

/// The cell-keyed index of stored fixes.
public protocol GeoIndex: Sendable {
    /// Devices of members sharing with `groupID`, with their latest positions and sharing periods.
    func sharedDevices(groupID: GroupID) throws -> [SharedDevice]
    /// The same devices for the history path (their `last` may be stale or nil): a store may
    /// answer from a cache, as long as every change of memberships and sharing periods
    /// committed before the call is in the answer.
    func sharingDevices(groupID: GroupID) throws -> SharingDevices
    /// Runs `body` with a reader on one consistent snapshot of the index.
    func withReader<T>(_ body: (any GeoIndexReader) throws -> T) throws -> T
    /// Runs `body` with the group's sharing devices (as `sharingDevices(groupID:)` gives them)
    /// and a reader of the index. A store whose reads cost a round trip each may read both in
    /// one snapshot and fewer trips; by default the devices are read first.
    func withReader<T>(sharingDevicesOf groupID: GroupID, _ body: (SharingDevices, any GeoIndexReader) throws -> T) throws -> T
}

extension GeoIndex {
    public func sharingDevices(groupID: GroupID) throws -> SharingDevices {
        SharingDevices(try sharedDevices(groupID: groupID))
    }

    public func withReader<T>(sharingDevicesOf groupID: GroupID, _ body: (SharingDevices, any GeoIndexReader) throws -> T) throws -> T {
        let devices = try sharingDevices(groupID: groupID)
        return try withReader { reader in try body(devices, reader) }
    }
}

/// Reads the cell index inside one snapshot.
public protocol GeoIndexReader {
    /// Calls `body` for each entry whose signed cell key is in `range` and time in [from, to]
    /// (each entry once; order unspecified); returns false if `body` stopped the scan.
    func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// `scan` for searches that do not need the entries' `sequence` (it may be 0): a reader may
    /// then leave that column unread.
    func scanPositions(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// `scan` of each of `ranges` in turn (each range's entries before the next range's);
    /// returns false if `body` stopped. Readers that prefer batched probes read the first
    /// entries of every range in one call.
    func scan(ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// Whether any entry lies in `range` (and [from, to]): one B-tree probe.
    func hasEntries(in range: ClosedRange<Int64>, from: Int64?, to: Int64?) throws -> Bool
    /// The least cell key among the entries of `range` (and [from, to]) that `accept` takes;
    /// nil if it takes none. `accept` may also see entries past that one (it must not depend
    /// on which); a reader whose scan yields keys in order stops at the first one taken.
    func firstCell(in range: ClosedRange<Int64>, from: Int64?, to: Int64?, where accept: (IndexEntry) throws -> Bool) throws -> Int64?
    /// True when a reader pays per call rather than per entry (a database across a network
    /// round trip): searches then ask `leadingEntries` for several ranges at once instead of
    /// probing them one at a time when they reach them.
    var prefersBatchedProbes: Bool { get }
    /// Up to `count` entries of each of `ranges` with a time in [from, to], in the order of
    /// `ranges`; fewer than `count` for a range means it holds no more.
    func leadingEntries(of ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, count: Int) throws -> [[IndexEntry]]
}

extension GeoIndexReader {
    public var prefersBatchedProbes: Bool { false }

    /// By `scan` (entries with their sequences).
    public func scanPositions(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        try scan(range, from: from, to: to, body)
    }

    /// By a scan of the whole range (`scan` promises no order).
    public func firstCell(in range: ClosedRange<Int64>, from: Int64?, to: Int64?,
                          where accept: (IndexEntry) throws -> Bool) throws -> Int64? {
        var least: Int64?
        _ = try scan(range, from: from, to: to) { entry in
            if entry.cell < least ?? .max, try accept(entry) { least = entry.cell }
            return true
        }
        return least
    }

    public func scan(ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        for range in ranges where try !scan(range, from: from, to: to, body) { return false }
        return true
    }

    public func leadingEntries(of ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, count: Int) throws -> [[IndexEntry]] {
        try ranges.map { range in
            var entries: [IndexEntry] = []
            _ = try scan(range, from: from, to: to) { entry in
                entries.append(entry)
                return entries.count < count
            }
            return entries
        }
    }
}
