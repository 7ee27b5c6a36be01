import PostgresClient
import Tracking

/// The reads behind `SharedLatest`: a device's newest fix inside a range of times, through
/// `SharedLatestCache` (keyed by the device's `history_version`, read in the same snapshot).
extension PostgresStore {
    typealias ShownFix = SharedLatest.Shown

    /// The newest fix of device `deviceKey` timestamped in `range` (ms): one backward probe of
    /// the history's (device, time) key.
    static func newestFix(deviceKey: Int64, in range: ClosedRange<Int64>, on c: Connection) throws -> ShownFix? {
        try c.firstRow("""
            SELECT lon, lat, ts, accuracy FROM fixes WHERE device_key = $1 AND ts BETWEEN $2 AND $3
            ORDER BY ts DESC, seq DESC LIMIT 1
            """, [.int64(deviceKey), .int64(range.lowerBound), .int64(range.upperBound)]) {
            ShownFix(location: LastLocation(position: try $0.position(0), timestamp: try $0.time(2)), accuracy: try $0.optionalDouble(3))
        }
    }

    /// The latest position of device `deviceKey` a group with `windows` may see (`last`: the
    /// device's newest fix; `version`: its `history_version` in this snapshot).
    static func sharedLatest(deviceKey: Int64, last: ShownFix?, windows: HistoryWindows, version: Int64, on c: Connection) throws -> ShownFix? {
        guard let last else { return nil }
        let time = last.location.timestamp.millisecondsSince1970
        if windows.contains(time) { return last }
        let key = SharedLatestCache.Key(store: c.databaseIdentity, device: deviceKey, historyVersion: version, lastTimestamp: time,
                                        windows: windows)
        return try SharedLatestCache.shared.shown(for: key) {
            try SharedLatest.resolve(last, time: \.location.timestamp.millisecondsSince1970, windows: windows) {
                try newestFix(deviceKey: deviceKey, in: $0, on: c)
            }
        }
    }

    /// `sharedLatest` of a position without its accuracy.
    static func sharedLatest(deviceKey: Int64, last: LastLocation?, windows: HistoryWindows, version: Int64, on c: Connection) throws -> LastLocation? {
        try sharedLatest(deviceKey: deviceKey, last: last.map { ShownFix(location: $0, accuracy: nil) }, windows: windows,
                         version: version, on: c)?.location
    }
}
