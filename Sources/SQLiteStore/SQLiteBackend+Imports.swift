import SQLCore
import Storage
import Tracking

extension SQLiteBackend: HistoryImportStore {
    public func awaitIngestCapacity() async {
        await merger.awaitCapacity()
    }

    public func logImportEvents(_ tally: ImportEventTally) async throws -> [GroupEvent] {
        let door = commits
        return try await write({ db -> [GroupEvent] in
            guard let device = try db.firstRow("SELECT key, last_ts FROM devices WHERE id = ?", [.id(tally.deviceID)], {
                (key: $0.int64(0), lastTimestamp: $0.optionalInt64(1))
            }) else { return [] }
            let sharingNow = Set(try DeviceSharingTables.sharing(deviceID: tally.deviceID, on: SQLiteExecutor(db: db)).map(\.groupID))
            var events: [GroupEvent] = []
            for (groupID, entries) in tally.entries(deviceKey: DeviceKey(storeValue: device.key), latestTimestamp: device.lastTimestamp, sharingNow: sharingNow) {
                events += try Self.appendEvents(groupID: groupID, entries, in: db)
            }
            return events
        }, onCommit: { door.publish($0) })
    }
}
