import Synchronization

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

/// The latest positions groups see of devices whose newest fix they may not see (found by
/// probing the history, `SharedLatest.resolve`), kept so that reading a group does not probe
/// again while nothing changed. An entry is valid exactly for its key: the store, the device,
/// the device's history version (which every append and deletion of its fixes moves, in their
/// transaction; read in the same snapshot as the rest), its newest fix's time and the windows
/// asked about — so a hit is what the probe would find.
///
/// Bounded: it starts over past `capacity` entries (a bound on memory, not an LRU).
public final class SharedLatestCache: Sendable {
    public struct Key: Hashable, Sendable {
        /// Which database (several stores can live in one process: tests, tools).
        public let store: String
        public let device: Int64
        public let historyVersion: Int64
        public let lastTimestamp: Int64
        public let windows: [ClosedRange<Int64>]

        public init(store: String, device: Int64, historyVersion: Int64, lastTimestamp: Int64, windows: HistoryWindows) {
            self.store = store
            self.device = device
            self.historyVersion = historyVersion
            self.lastTimestamp = lastTimestamp
            self.windows = windows.intervals
        }
    }

    private struct Entry: Sendable { let shown: SharedLatest.Shown? }

    /// The process's cache.
    public static let shared = SharedLatestCache()
    public static let capacity = 65_536
    private let entries = Mutex<[Key: Entry]>([:])

    public init() {}

    /// The cached answer for `key`, else `compute`'s, kept.
    public func shown(for key: Key, compute: () throws -> SharedLatest.Shown?) rethrows -> SharedLatest.Shown? {
        if let entry = entries.withLock({ $0[key] }) { return entry.shown }
        let shown = try compute()
        entries.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[key] = Entry(shown: shown)
        }
        return shown
    }
}
