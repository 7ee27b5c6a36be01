import PostgresClient
import SQLCore
import Tracking

/// The reads behind `SharedLatest`: `SQLCore.SharedLatestTables`, inside the transaction on `c`.
extension PostgresStore {
    static func sharedLatest(deviceKey: Int64, last: SharedLatest.Shown?, windows: HistoryWindows, version: Int64, on c: Connection) throws -> SharedLatest.Shown? {
        try SharedLatestTables.sharedLatest(deviceKey: deviceKey, last: last, windows: windows, version: version, on: PostgresExecutor(c: c))
    }

    static func sharedLatest(deviceKey: Int64, last: LastLocation?, windows: HistoryWindows, version: Int64, on c: Connection) throws -> LastLocation? {
        try SharedLatestTables.sharedLatest(deviceKey: deviceKey, last: last, windows: windows, version: version, on: PostgresExecutor(c: c))
    }
}
