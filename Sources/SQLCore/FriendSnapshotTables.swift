import Tracking

/// `FriendStore.friendsSnapshot` written once for both stores: the asking device's setting and
/// every membership of its groups with the latest location each group may see.
public enum FriendSnapshotTables {
    /// Nil when the device does not exist; no candidates when it does not receive its groups'
    /// locations. Runs inside one read snapshot on `db`.
    public static func snapshot(deviceID: DeviceID, on db: some SQLExecutor) throws -> FriendsSnapshot? {
        guard let receives = try db.firstRow("SELECT receive_group_locations FROM devices WHERE id = ?", [.id(deviceID)], { try $0.bool(0) })
        else { return nil }
        guard receives else { return FriendsSnapshot(receivesGroupLocations: false, candidates: []) }
        var periods: [String: [(start: Int64, end: Int64?)]] = [:]
        for (key, period) in try db.rows("""
            SELECT p.group_id, p.user_id, p.start_ts, p.end_ts FROM memberships mine
            JOIN sharing_periods p ON p.group_id = mine.group_id WHERE mine.device_id = ?
            """, [.id(deviceID)], { row in (try row.text(0) + " " + row.text(1), (start: try row.int64(2), end: try row.optionalInt64(3))) }) {
            periods[key, default: []].append(period)
        }
        let candidates = try db.rows("""
            SELECT m.group_id, m.user_id, u.display_name, m.device_id, d.name, m.share_location, d.last_lon, d.last_lat, d.last_ts,
                   (SELECT f.accuracy FROM \(db.dialect.fixesTable) f WHERE f.device_key = d.key AND f.ts = d.last_ts ORDER BY f.seq DESC LIMIT 1),
                   d.battery, d.key, d.history_version
            FROM memberships mine JOIN memberships m ON m.group_id = mine.group_id
            JOIN users u ON u.id = m.user_id JOIN devices d ON d.id = m.device_id
            WHERE mine.device_id = ?
            """, [.id(deviceID)]) { row -> FriendCandidate in
            let windows = HistoryWindows(periods: periods[try row.text(0) + " " + row.text(1)] ?? [])
            let last = try row.isNull(8) ? nil : SharedLatest.Shown(location: LastLocation(position: try row.position(6), timestamp: try row.time(8)),
                                                                    accuracy: try row.optionalDouble(9))
            let shown = try row.bool(5)
                ? try SharedLatestTables.sharedLatest(deviceKey: try row.int64(11), last: last, windows: windows, version: try row.int64(12), on: db)
                : last
            return FriendCandidate(groupID: try row.id(0), userID: try row.id(1), displayName: try row.text(2), deviceID: try row.id(3),
                                   deviceName: try row.text(4), sharing: try row.bool(5), latest: shown?.location, accuracy: shown?.accuracy,
                                   windows: windows, battery: try row.optionalDouble(10))
        }
        return FriendsSnapshot(receivesGroupLocations: true, candidates: candidates)
    }
}

/// `FriendStore` in one snapshot.
extension SQLTransactions {
    public func friendsSnapshot(deviceID: DeviceID) throws -> FriendsSnapshot? {
        try readSQL { try FriendSnapshotTables.snapshot(deviceID: deviceID, on: $0) }
    }
}
