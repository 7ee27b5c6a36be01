import LocationFormats
import Tracking

/// The directory's rows (users, devices, groups, memberships, sharing periods, invitations),
/// written once for both stores: the reads behind `PartitionFacts` here, and
/// `DirectoryTablesTransaction` for `DirectoryTransaction`. Each runs inside the caller's
/// transaction on `db`.
public enum DirectoryTables {
    /// The columns `device(_:)` decodes, in its order (the last three: `statusColumns`).
    static let deviceColumns = "id, owner_id, name, platform_id, created_at, last_lon, last_lat, last_ts, receive_group_locations, "
        + "owntracks_secret IS NOT NULL, \(statusColumns)"

    /// The columns of a device row `status(_:at:)` decodes, in its order.
    public static let statusColumns = "last_seen_at, battery, battery_at"

    static func device(_ row: any SQLRow) throws -> Device {
        let last = try row.isNull(7) ? nil : LastLocation(position: try row.position(5), timestamp: try row.time(7))
        return Device(id: try row.id(0), ownerID: try row.id(1), name: try row.text(2), platformID: try row.optionalText(3),
                      createdAt: try row.time(4), lastLocation: last, receiveGroupLocations: try row.bool(8),
                      status: try status(row, at: 10), ownTracksEncryption: try row.bool(9))
    }

    /// The status in `statusColumns` starting at `column` (a battery only with both its columns).
    public static func status(_ row: any SQLRow, at column: Int) throws -> DeviceStatus {
        var battery: BatteryReading?
        if let percent = try row.optionalDouble(column + 1), let at = try row.optionalInt64(column + 2) {
            battery = BatteryReading(percent: percent, timestamp: at)
        }
        return DeviceStatus(lastSeenAt: try row.optionalInt64(column), battery: battery)
    }

    static let membershipColumns = "group_id, user_id, device_id, share_location"

    static func membership(_ row: any SQLRow) throws -> Membership {
        Membership(groupID: try row.id(0), userID: try row.id(1), deviceID: try row.id(2), shareLocation: try row.bool(3))
    }

    public static func user(id: UserID, on db: some SQLExecutor) throws -> User? {
        try db.firstRow("SELECT \(AccountTables.userColumns) FROM users WHERE id = ?", [.id(id)], AccountTables.user)
    }

    /// The device and owner of a device token; nil for an unknown token and for a disabled
    /// account's devices (they post no more: `AccountAdministrationStore`).
    public static func deviceCredential(tokenHash: String, on db: some SQLExecutor) throws -> (DeviceID, UserID)? {
        try db.firstRow("""
            SELECT d.id, d.owner_id FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.token_hash = ? AND u.disabled_at IS NULL
            """, [.text(tokenHash)]) { (try $0.id(0), try $0.id(1)) }
    }

    public static func deviceOwner(deviceID: DeviceID, on db: some SQLExecutor) throws -> UserID? {
        try db.firstRow("SELECT owner_id FROM devices WHERE id = ?", [.id(deviceID)]) { try $0.id(0) }
    }

    public static func isMember(userID: UserID, groupID: GroupID, on db: some SQLExecutor) throws -> Bool {
        try db.firstRow("SELECT 1 FROM memberships WHERE group_id = ? AND user_id = ?", [.id(groupID), .id(userID)]) { _ in true } ?? false
    }

    /// Whether the device shares now with a group `viewerID` is a member of.
    public static func isSharedWith(deviceID: DeviceID, viewerID: UserID, on db: some SQLExecutor) throws -> Bool {
        try db.firstRow("""
            SELECT 1 FROM memberships shared JOIN memberships viewer ON viewer.group_id = shared.group_id
            WHERE shared.device_id = ? AND shared.share_location = TRUE AND viewer.user_id = ? LIMIT 1
            """, [.id(deviceID), .id(viewerID)]) { _ in true } ?? false
    }

    /// The sharing periods of the device with every group `viewerID` is a member of and it shares with now.
    public static func sharedHistoryWindows(deviceID: DeviceID, viewerID: UserID, on db: some SQLExecutor) throws -> HistoryWindows {
        HistoryWindows(periods: try db.rows("""
            SELECT p.start_ts, p.end_ts FROM memberships shared
            JOIN memberships viewer ON viewer.group_id = shared.group_id AND viewer.user_id = ?
            JOIN sharing_periods p ON p.group_id = shared.group_id AND p.user_id = shared.user_id
            WHERE shared.device_id = ? AND shared.share_location = TRUE
            """, [.id(viewerID), .id(deviceID)]) { (start: try $0.int64(0), end: try $0.optionalInt64(1)) })
    }

    /// The sharing periods of every member of `groupID` who shares now, by user id.
    public static func sharingWindows(groupID: GroupID, on db: some SQLExecutor) throws -> [UserID: HistoryWindows] {
        var periods: [UserID: [(start: Int64, end: Int64?)]] = [:]
        for (user, period) in try db.rows("""
            SELECT p.user_id, p.start_ts, p.end_ts FROM sharing_periods p
            JOIN memberships m ON m.group_id = p.group_id AND m.user_id = p.user_id
            WHERE p.group_id = ? AND m.share_location = TRUE
            """, [.id(groupID)], { (try $0.id(0) as UserID, (start: try $0.int64(1), end: try $0.optionalInt64(2))) }) {
            periods[user, default: []].append(period)
        }
        return periods.mapValues { HistoryWindows(periods: $0) }
    }

    /// The devices of the group's sharing members in join order, each with its sharing windows
    /// and the latest position the group may see (`SharedLatest`): for the geo index's queries.
    public static func sharedDevices(groupID: GroupID, on db: some SQLExecutor) throws -> [SharedDevice] {
        let windows = try sharingWindows(groupID: groupID, on: db)
        let rows = try db.rows("""
            SELECT d.key, d.id, m.user_id, d.last_lon, d.last_lat, d.last_ts, d.history_version FROM memberships m
            JOIN devices d ON d.id = m.device_id WHERE m.group_id = ? AND m.share_location = TRUE ORDER BY m.joined_at, m.user_id
            """, [.id(groupID)]) { row in
            (key: try row.int64(0), deviceID: try row.id(1) as DeviceID, userID: try row.id(2) as UserID, version: try row.int64(6),
             last: try row.isNull(5) ? nil : LastLocation(position: try row.position(3), timestamp: try row.time(5)))
        }
        return try rows.map { row in
            let deviceWindows = windows[row.userID] ?? .none
            return SharedDevice(key: DeviceKey(storeValue: row.key), deviceID: row.deviceID, userID: row.userID,
                                last: try SharedLatestTables.sharedLatest(deviceKey: row.key, last: row.last, windows: deviceWindows,
                                                                          version: row.version, on: db),
                                windows: deviceWindows)
        }
    }

    /// The key of device `id`, nil when it does not exist.
    static func deviceKey(id: DeviceID, on db: some SQLExecutor) throws -> Int64? {
        try db.firstRow("SELECT key FROM devices WHERE id = ?", [.id(id)]) { try $0.int64(0) }
    }
}

/// `GeoIndex.sharedDevices` in one snapshot.
extension SQLTransactions {
    public func sharedDevices(groupID: GroupID) throws -> [SharedDevice] {
        try readSQL { try DirectoryTables.sharedDevices(groupID: groupID, on: $0) }
    }
}

/// `PartitionFacts` and `DirectoryStore.deviceCredential`: one statement each, outside a snapshot.
extension SQLStatementReads {
    public func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)? {
        try readSQLStatement { try DirectoryTables.deviceCredential(tokenHash: tokenHash, on: $0) }
    }

    public func deviceOwner(deviceID: DeviceID) throws -> UserID? {
        try readSQLStatement { try DirectoryTables.deviceOwner(deviceID: deviceID, on: $0) }
    }

    public func isMember(userID: UserID, groupID: GroupID) throws -> Bool {
        try readSQLStatement { try DirectoryTables.isMember(userID: userID, groupID: groupID, on: $0) }
    }

    public func isSharedWith(deviceID: DeviceID, viewerID: UserID) throws -> Bool {
        try readSQLStatement { try DirectoryTables.isSharedWith(deviceID: deviceID, viewerID: viewerID, on: $0) }
    }

    public func sharedHistoryWindows(deviceID: DeviceID, viewerID: UserID) throws -> HistoryWindows {
        try readSQLStatement { try DirectoryTables.sharedHistoryWindows(deviceID: deviceID, viewerID: viewerID, on: $0) }
    }
}
