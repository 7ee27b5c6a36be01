/// The latest position a group shows of a device (API.md, "Visibility of history", v2): its
/// newest fix taken inside the device's sharing periods with that group — never a fix taken
/// while sharing was off, nor history from before the device joined, even when that fix is the
/// device's newest. Every path that shows a member's "latest" (group document, live snapshot,
/// device document, `scope: "latest"` queries, exports, places' `inside`, friends) asks this.
///
/// Cost: the device's newest fix is inside the windows almost always (a member sharing now
/// whose phone posts); only otherwise are the windows searched, newest first, one indexed read
/// each.
public enum SharedLatest {
    /// A fix shown as a device's latest, with its accuracy (meters) when it had one.
    public struct Shown: Sendable, Equatable {
        public let location: LastLocation
        public let accuracy: Double?

        public init(location: LastLocation, accuracy: Double?) {
            self.location = location
            self.accuracy = accuracy
        }
    }

    /// - Parameters:
    ///   - last: the device's newest fix, whatever its time (nil when it has none).
    ///   - time: a fix's timestamp (ms since 1970).
    ///   - windows: the device's sharing periods with the group (or the union over the groups
    ///     a reader shares with it).
    ///   - newest: reads the newest stored fix of the device timestamped inside a closed range
    ///     of ms (nil when there is none).
    /// - Returns: the fix the group may see as the device's latest, nil when there is none.
    public static func resolve<Fix>(_ last: Fix?, time: (Fix) -> Int64, windows: HistoryWindows,
                                    newest: (ClosedRange<Int64>) throws -> Fix?) rethrows -> Fix? {
        guard let last else { return nil }
        let lastTime = time(last)
        if windows.contains(lastTime) { return last }
        for window in windows.intervals.reversed() where window.lowerBound <= lastTime {
            if let fix = try newest(window.lowerBound...min(window.upperBound, lastTime)) { return fix }
        }
        return nil
    }
}
