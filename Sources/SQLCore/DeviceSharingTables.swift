import Tracking

/// The groups a device's member shares into, with the sharing periods of each: what an append
/// logs location events by and an import tallies, written once for both stores (PostgreSQL reads
/// the same rows inside its append's pipeline, `DeviceSharingRows`).
public enum DeviceSharingTables {
    /// A row per sharing period of each membership of device `?` whose member shares: group id,
    /// user id, start and end of the period (ms since 1970; end NULL while open).
    public static let periodsSQL = """
        SELECT m.group_id, m.user_id, p.start_ts, p.end_ts FROM memberships m
        JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id
        WHERE m.device_id = ? AND m.share_location = TRUE
        """

    /// The device's memberships whose member shares, with their periods, in group id order.
    public static func sharing(deviceID: DeviceID, on db: some SQLExecutor) throws -> [DeviceSharing] {
        var rows = DeviceSharingRows()
        try db.forEachRow(periodsSQL, [.id(deviceID)]) { try rows.add($0) }
        return rows.sharing
    }

    /// An import's summary events (`ImportEventTally`) for the groups the device's member shares
    /// into now, each group's handed to `append` (each store logs events its own way), in group
    /// id order; none for a device that no longer exists. Inside the caller's write on `db`.
    public static func importEvents(_ tally: ImportEventTally, on db: some SQLExecutor,
                                    append: (GroupID, [EventLogEntry]) throws -> [GroupEvent]) throws -> [GroupEvent] {
        guard let device = try db.firstRow("SELECT key, last_ts FROM devices WHERE id = ?", [.id(tally.deviceID)], {
            (key: try $0.int64(0), lastTimestamp: try $0.optionalInt64(1))
        }) else { return [] }
        let sharingNow = Set(try sharing(deviceID: tally.deviceID, on: db).map(\.groupID))
        var events: [GroupEvent] = []
        for (groupID, entries) in tally.entries(deviceKey: DeviceKey(storeValue: device.key), latestTimestamp: device.lastTimestamp,
                                                sharingNow: sharingNow) {
            events += try append(groupID, entries)
        }
        return events
    }
}

/// Gathers rows of `DeviceSharingTables.periodsSQL`'s first four columns into memberships.
public struct DeviceSharingRows {
    private var periods: [GroupID: (userID: UserID, periods: [(start: Int64, end: Int64?)])] = [:]

    public init() {}

    /// Adds the period of one row (group id, user id, start, end in columns 0…3).
    public mutating func add(_ row: some SQLRow) throws {
        let groupID: GroupID = try row.id(0), userID: UserID = try row.id(1)
        periods[groupID, default: (userID, [])].periods.append((try row.int64(2), try row.optionalInt64(3)))
    }

    /// The memberships in group id order (every writer takes event heads in that order).
    public var sharing: [DeviceSharing] {
        periods.sorted { $0.key < $1.key }.map {
            DeviceSharing(groupID: $0.key, userID: $0.value.userID, windows: HistoryWindows(periods: $0.value.periods))
        }
    }
}

/// `HistoryImportStore.sharingWindows` in one snapshot.
extension SQLTransactions {
    public func sharingWindows(deviceID: DeviceID) throws -> [DeviceSharing] {
        try readSQL { try DeviceSharingTables.sharing(deviceID: deviceID, on: $0) }
    }
}
