import Storage
import Tracking

/// The reads behind `SharedLatest`: a device's newest fix inside a range of times.
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
    /// device's newest fix).
    static func sharedLatest(deviceKey: Int64, last: LastLocation?, windows: HistoryWindows, in db: Database) throws -> LastLocation? {
        try SharedLatest.resolve(last, time: \.timestamp.millisecondsSince1970, windows: windows) {
            try newestFix(deviceKey: deviceKey, in: $0, in: db)?.location
        }
    }

    /// `sharedLatest` with the fix's accuracy.
    static func sharedLatest(deviceKey: Int64, last: ShownFix?, windows: HistoryWindows, in db: Database) throws -> ShownFix? {
        try SharedLatest.resolve(last, time: \.location.timestamp.millisecondsSince1970, windows: windows) {
            try newestFix(deviceKey: deviceKey, in: $0, in: db)
        }
    }
}
