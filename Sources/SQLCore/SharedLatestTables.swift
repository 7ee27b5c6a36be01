import Tracking

/// The reads behind `SharedLatest`, written once for both stores: a device's newest fix inside
/// a range of times, through `SharedLatestCache` (keyed by the store, the device's
/// `history_version` read in the same snapshot, and the windows). Each runs inside the caller's
/// transaction on `db`.
public enum SharedLatestTables {
    /// The newest fix of device `deviceKey` timestamped in `range` (ms): one backward probe of
    /// the history's (device, time) key.
    public static func newestFix(deviceKey: Int64, in range: ClosedRange<Int64>, on db: some SQLExecutor) throws -> SharedLatest.Shown? {
        try db.firstRow("""
            SELECT lon, lat, ts, accuracy FROM \(db.dialect.fixesTable) WHERE device_key = ? AND ts BETWEEN ? AND ?
            ORDER BY ts DESC, seq DESC LIMIT 1
            """, [.integer(deviceKey), .integer(range.lowerBound), .integer(range.upperBound)]) {
            SharedLatest.Shown(location: LastLocation(position: try $0.position(0), timestamp: try $0.time(2)), accuracy: try $0.optionalDouble(3))
        }
    }

    /// The latest position of device `deviceKey` a group with `windows` may see (`last`: the
    /// device's newest fix; `version`: its `history_version` in this snapshot). No read when
    /// `last` is inside the windows.
    public static func sharedLatest(deviceKey: Int64, last: SharedLatest.Shown?, windows: HistoryWindows, version: Int64,
                                    on db: some SQLExecutor) throws -> SharedLatest.Shown? {
        guard let last else { return nil }
        let time = last.location.timestamp.millisecondsSince1970
        if windows.contains(time) { return last }
        let key = SharedLatestCache.Key(store: db.storeIdentity, device: deviceKey, historyVersion: version, lastTimestamp: time, windows: windows)
        return try SharedLatestCache.shared.shown(for: key) {
            try SharedLatest.resolve(last, time: \.location.timestamp.millisecondsSince1970, windows: windows) {
                try newestFix(deviceKey: deviceKey, in: $0, on: db)
            }
        }
    }

    /// `sharedLatest` of a position without its accuracy.
    public static func sharedLatest(deviceKey: Int64, last: LastLocation?, windows: HistoryWindows, version: Int64,
                                    on db: some SQLExecutor) throws -> LastLocation? {
        try sharedLatest(deviceKey: deviceKey, last: last.map { SharedLatest.Shown(location: $0, accuracy: nil) }, windows: windows,
                         version: version, on: db)?.location
    }
}
