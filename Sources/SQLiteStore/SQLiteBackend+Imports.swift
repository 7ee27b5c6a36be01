import SQLCore
import Storage
import Tracking

extension SQLiteBackend: HistoryImportStore {
    public func awaitIngestCapacity() async {
        await merger.awaitCapacity()
    }

    public func logImportEvents(_ tally: ImportEventTally) async throws -> [GroupEvent] {
        let door = commits
        return try await write({ db in
            try DeviceSharingTables.importEvents(tally, on: SQLiteExecutor(db: db)) { try Self.appendEvents(groupID: $0, $1, in: db) }
        }, onCommit: { door.publish($0) })
    }
}
