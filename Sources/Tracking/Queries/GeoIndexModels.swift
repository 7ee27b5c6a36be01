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
