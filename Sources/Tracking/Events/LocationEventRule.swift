/// Which location events an append logs in a group where the device's member shares.
///
/// - Only fixes the group may see: timestamps inside the membership's sharing periods
///   (a backfill of fixes from before joining, or from while sharing was off, logs nothing).
/// - One `location` event per visible fix, in arrival order, `latest` marking the fix that
///   became the device's latest — up to `maxEventsPerAppend`. Past that (a large backfill or an
///   import), one `locations` summary plus the `location` event of the new latest fix, if the
///   append produced one: a 10,000-fix batch in 100 groups writes at most 200 events, not a
///   million.
public struct LocationEventRule: Sendable {
    /// Most `location` events one append logs per group before it logs a summary instead.
    public var maxEventsPerAppend: Int
    /// Logs nothing at all: for the batches of an import, which logs one summary at its end
    /// (`ImportEventTally`).
    public var silent = false

    public static let standard = LocationEventRule(maxEventsPerAppend: 100)
    public static let quiet: LocationEventRule = {
        var rule = LocationEventRule.standard
        rule.silent = true
        return rule
    }()

    public init(maxEventsPerAppend: Int) { self.maxEventsPerAppend = max(1, maxEventsPerAppend) }

    /// The entries for one group.
    /// - Parameters:
    ///   - stored: the fixes the append stored, in arrival order.
    ///   - newLatestSequence: the sequence of the fix that became the device's latest, if any.
    ///   - windows: the sharing periods of the device's membership in this group.
    public func entries(deviceID: DeviceID, deviceKey: DeviceKey, userID: UserID, stored: [StoredFix],
                        newLatestSequence: Int64?, windows: HistoryWindows) -> [EventLogEntry] {
        guard !silent else { return [] }
        let visible = stored.filter { windows.contains($0.fix.timestamp) }
        guard !visible.isEmpty else { return [] }
        func event(_ fix: StoredFix) -> EventLogEntry {
            EventLogEntry(.location(LocationEvent(
                deviceID: deviceID, userID: userID, longitude: fix.fix.longitude, latitude: fix.fix.latitude,
                timestamp: fix.fix.timestamp, latest: fix.sequence == newLatestSequence)), fix: (deviceKey, fix.fix.timestamp))
        }
        if visible.count <= maxEventsPerAppend { return visible.map(event) }
        var oldest = visible[0].fix.timestamp, newest = oldest
        for fix in visible {
            oldest = min(oldest, fix.fix.timestamp)
            newest = max(newest, fix.fix.timestamp)
        }
        var entries = [EventLogEntry(.locations(LocationBatchEvent(
            deviceID: deviceID, userID: userID, count: visible.count, from: oldest, to: newest)), fix: (deviceKey, oldest))]
        if let latest = visible.first(where: { $0.sequence == newLatestSequence }) { entries.append(event(latest)) }
        return entries
    }
}
