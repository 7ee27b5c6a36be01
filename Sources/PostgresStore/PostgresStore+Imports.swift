import PostgresClient
import Tracking

extension PostgresStore: HistoryImportStore {
    public func sharingWindows(deviceID: DeviceID) throws -> [DeviceSharing] {
        try readSnapshot { c in try Self.sharingPeriods(deviceID: deviceID, on: c) }
    }

    /// Nothing to wait for: every batch is in its indexes when its commit returns (no merge
    /// backlog held in memory, unlike the SQLite store).
    public func awaitIngestCapacity() async {}

    public func logImportEvents(_ tally: ImportEventTally) async throws -> [GroupEvent] {
        try await write({ c -> [GroupEvent] in
            guard let device = try c.firstRow("SELECT key, last_ts FROM devices WHERE id = $1", [.id(tally.deviceID)], {
                (key: try $0.int64(0), lastTimestamp: try $0.optionalInt64(1))
            }) else { return [] }
            let sharingNow = Set(try Self.sharingPeriods(deviceID: tally.deviceID, on: c).map(\.groupID))
            var events: [GroupEvent] = []
            for (groupID, entries) in tally.entries(deviceKey: DeviceKey(storeValue: device.key), latestTimestamp: device.lastTimestamp,
                                                    sharingNow: sharingNow) {
                events += try Self.appendEvents(groupID: groupID, entries, on: c)
            }
            return events
        }, lockOrder: tally.deviceID.rawValue)
    }

    /// The device's memberships whose member shares, with their sharing periods, in group order
    /// (every writer takes event heads in that order).
    static func sharingPeriods(deviceID: DeviceID, on c: Connection) throws -> [DeviceSharing] {
        try sharing(from: c.queryPrepared(sharingPeriodsSQL, [.id(deviceID)])).sharing
    }

    /// The rows `sharing(from:)` reads, for device `$1`: a row per sharing period of each
    /// membership whose member shares, with the version of the group's places (0: it never had one).
    static let sharingPeriodsSQL = """
        SELECT m.group_id, m.user_id, p.start_ts, p.end_ts,
               coalesce((SELECT version FROM place_versions pv WHERE pv.group_id = m.group_id), 0)
        FROM memberships m JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id
        WHERE m.device_id = $1 AND m.share_location
        """

    /// The memberships of `sharingPeriodsSQL`'s rows in group order, and the version of each
    /// group's places.
    static func sharing(from result: QueryResult) throws -> (sharing: [DeviceSharing], placeVersions: [GroupID: Int64]) {
        var periods: [GroupID: (userID: UserID, periods: [(start: Int64, end: Int64?)])] = [:]
        var versions: [GroupID: Int64] = [:]
        for row in result.rows {
            let groupID: GroupID = try row.id(0), userID: UserID = try row.id(1)
            periods[groupID, default: (userID, [])].periods.append((try row.int64(2), try row.optionalInt64(3)))
            versions[groupID] = try row.int64(4)
        }
        let sharing = periods.sorted { $0.key < $1.key }.map {
            DeviceSharing(groupID: $0.key, userID: $0.value.userID, windows: HistoryWindows(periods: $0.value.periods))
        }
        return (sharing, versions)
    }
}
