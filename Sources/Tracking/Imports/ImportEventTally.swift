/// A device's membership in a group where its member shares, with the periods it shared there.
public struct DeviceSharing: Sendable, Equatable {
    public let groupID: GroupID
    public let userID: UserID
    public let windows: HistoryWindows

    public init(groupID: GroupID, userID: UserID, windows: HistoryWindows) {
        self.groupID = groupID
        self.userID = userID
        self.windows = windows
    }
}

/// What an import tells the live feed: one summary per group instead of an event per fix.
///
/// The batches of an import log nothing (`LocationEventRule.quiet`); this tally counts, per group
/// where the device's member shares, the stored fixes that group may see (timestamps inside its
/// sharing windows, as `LocationEventRule` filters them), and remembers the newest stored fix
/// that became the device's latest location. At the end `entries` gives, per group, one
/// `locations` summary `{count, from, to}` and — when that fix is still the device's latest and
/// the group may see it — its `location` event with `latest: true`.
/// Memory: constant (one counter per group), whatever the import's size.
public struct ImportEventTally: Sendable, Equatable {
    public struct GroupTally: Sendable, Equatable {
        public let sharing: DeviceSharing
        public var count = 0
        public var oldest = Int64.max
        public var newest = Int64.min
    }

    public let deviceID: DeviceID
    public private(set) var groups: [GroupTally]
    /// The newest stored fix that became the device's latest location (ties: the later one).
    public private(set) var latest: StoredFix?

    public init(deviceID: DeviceID, sharing: [DeviceSharing]) {
        self.deviceID = deviceID
        groups = sharing.sorted { $0.groupID < $1.groupID }.map { GroupTally(sharing: $0) }
    }

    /// Counts what one batch stored.
    public mutating func add(_ outcome: IngestOutcome) {
        for index in groups.indices {
            let windows = groups[index].sharing.windows
            for stored in outcome.stored where windows.contains(stored.fix.timestamp) {
                groups[index].count += 1
                groups[index].oldest = min(groups[index].oldest, stored.fix.timestamp)
                groups[index].newest = max(groups[index].newest, stored.fix.timestamp)
            }
        }
        if let sequence = outcome.newLatestSequence, let fix = outcome.stored.first(where: { $0.sequence == sequence }),
           latest.map({ fix.fix.timestamp >= $0.fix.timestamp }) ?? true {
            latest = fix
        }
    }

    /// The entries to log, per group, for the groups that still share (`sharingNow`).
    /// - Parameters:
    ///   - deviceKey: the store's key of the device (so deleting the fixes redacts the events).
    ///   - latestTimestamp: the device's latest location's timestamp now: the `location` event is
    ///     logged only if the import's newest fix still is it.
    public func entries(deviceKey: DeviceKey, latestTimestamp: Int64?, sharingNow: Set<GroupID>) -> [(GroupID, [EventLogEntry])] {
        var out: [(GroupID, [EventLogEntry])] = []
        for group in groups where sharingNow.contains(group.sharing.groupID) {
            let userID = group.sharing.userID
            var entries: [EventLogEntry] = []
            if group.count > 0 {
                entries.append(EventLogEntry(.locations(LocationBatchEvent(
                    deviceID: deviceID, userID: userID, count: group.count, from: group.oldest, to: group.newest)),
                    fix: (deviceKey, group.oldest)))
            }
            if let latest, latest.fix.timestamp == latestTimestamp, group.sharing.windows.contains(latest.fix.timestamp) {
                entries.append(EventLogEntry(.location(LocationEvent(
                    deviceID: deviceID, userID: userID, longitude: latest.fix.longitude, latitude: latest.fix.latitude,
                    timestamp: latest.fix.timestamp, latest: true)), fix: (deviceKey, latest.fix.timestamp)))
            }
            if !entries.isEmpty { out.append((group.sharing.groupID, entries)) }
        }
        return out
    }
}
