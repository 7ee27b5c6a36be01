import SQLCore
import Storage
import Tracking

/// The reads behind `SharedLatest`: `SQLCore.SharedLatestTables`, inside the transaction on `db`.
extension SQLiteBackend {
    static func sharedLatest(deviceKey: Int64, last: SharedLatest.Shown?, windows: HistoryWindows, version: Int64, in db: Database) throws -> SharedLatest.Shown? {
        try SharedLatestTables.sharedLatest(deviceKey: deviceKey, last: last, windows: windows, version: version, on: SQLiteExecutor(db: db))
    }

    static func sharedLatest(deviceKey: Int64, last: LastLocation?, windows: HistoryWindows, version: Int64, in db: Database) throws -> LastLocation? {
        try SharedLatestTables.sharedLatest(deviceKey: deviceKey, last: last, windows: windows, version: version, on: SQLiteExecutor(db: db))
    }
}
