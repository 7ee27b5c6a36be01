import Storage
import Tracking

/// The reads behind `SharedLatest`: a device's newest fix inside a range of times, through
/// `SharedLatestCache` (keyed by the device's `history_version`, read in the same snapshot).
extension SQLiteBackend {
    typealias ShownFix = SharedLatest.Shown

    /// The newest fix of device `deviceKey` timestamped in `range` (ms): one backward probe of
    /// the history's (device, time) key.
    static func newestFix(deviceKey: Int64, in range: ClosedRange<Int64>, in db: Database) throws -> ShownFix? {
        try db.firstRow("""
            SELECT lon, lat, ts, accuracy FROM locations WHERE device_key = ? AND ts BETWEEN ? AND ?
            ORDER BY ts DESC, seq DESC LIMIT 1
            """, [.integer(deviceKey), .integer(range.lowerBound), .integer(range.upperBound)]) {
            ShownFix(location: LastLocation(position: $0.position(0), timestamp: $0.time(2)), accuracy: $0.optionalDouble(3))
        }
    }

    /// The latest position of device `deviceKey` a group with `windows` may see (`last`: the
    /// device's newest fix; `version`: its `history_version` in this snapshot).
    static func sharedLatest(deviceKey: Int64, last: ShownFix?, windows: HistoryWindows, version: Int64, in db: Database) throws -> ShownFix? {
        guard let last else { return nil }
        let time = last.location.timestamp.millisecondsSince1970
        if windows.contains(time) { return last }
        let key = SharedLatestCache.Key(store: db.path, device: deviceKey, historyVersion: version, lastTimestamp: time, windows: windows)
        return try SharedLatestCache.shared.shown(for: key) {
            try SharedLatest.resolve(last, time: \.location.timestamp.millisecondsSince1970, windows: windows) {
                try newestFix(deviceKey: deviceKey, in: $0, in: db)
            }
        }
    }

    /// `sharedLatest` of a position without its accuracy.
    static func sharedLatest(deviceKey: Int64, last: LastLocation?, windows: HistoryWindows, version: Int64, in db: Database) throws -> LastLocation? {
        try sharedLatest(deviceKey: deviceKey, last: last.map { ShownFix(location: $0, accuracy: nil) }, windows: windows,
                         version: version, in: db)?.location
    }
}
