import Storage
import Tracking

extension SQLiteBackend: HistoryImportStore {
    public func sharingWindows(deviceID: DeviceID) throws -> [DeviceSharing] {
        try read { db in try Self.sharingPeriods(deviceID: deviceID, in: db) }
    }

    public func awaitIngestCapacity() async {
        await merger.awaitCapacity()
    }

    public func logImportEvents(_ tally: ImportEventTally) async throws -> [GroupEvent] {
        let door = commits
        return try await write({ db -> [GroupEvent] in
            guard let device = try db.firstRow("SELECT key, last_ts FROM devices WHERE id = ?", [.id(tally.deviceID)], {
                (key: $0.int64(0), lastTimestamp: $0.optionalInt64(1))
            }) else { return [] }
            let sharingNow = Set(try Self.sharingPeriods(deviceID: tally.deviceID, in: db).map(\.groupID))
            var events: [GroupEvent] = []
            for (groupID, entries) in tally.entries(deviceKey: DeviceKey(storeValue: device.key), latestTimestamp: device.lastTimestamp, sharingNow: sharingNow) {
                events += try Self.appendEvents(groupID: groupID, entries, in: db)
            }
            return events
        }, onCommit: { door.publish($0) })
    }

    /// The device's memberships whose member shares, with their sharing periods, by group id.
    static func sharingPeriods(deviceID: DeviceID, in db: Database) throws -> [DeviceSharing] {
        var periods: [GroupID: (userID: UserID, periods: [(start: Int64, end: Int64?)])] = [:]
        try db.forEachRow("""
            SELECT m.group_id, m.user_id, p.start_ts, p.end_ts FROM memberships m
            JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id
            WHERE m.device_id = ? AND m.share_location = 1
            """, [.id(deviceID)]) { row in
            periods[row.id(0), default: (row.id(1), [])].periods.append((row.int64(2), row.optionalInt64(3)))
        }
        return periods.sorted { $0.key < $1.key }.map { DeviceSharing(groupID: $0.key, userID: $0.value.userID, windows: HistoryWindows(periods: $0.value.periods)) }
    }
}
