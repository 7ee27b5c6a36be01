import Synchronization

/// The sharing devices of recently queried groups, each kept with the visibility version of
/// its group it was read at (a store's counter that every change of memberships or sharing
/// periods moves forward, in the transaction of the change, whichever node commits it).
///
/// Correctness: a caller first reads the current version, then gets the cached devices only if
/// they were read at that same version; otherwise `load` reads them again and they are kept
/// under the version read *before* (or in the same snapshot as) the rows. A change committed
/// between the two reads makes the entry look older than its rows, so it is read again next
/// time — never the other way round: an answer never misses a change committed before the
/// lookup began (a sharing switch-off or a removal hides positions at once).
public final class SharingDevicesCache: Sendable {
    private struct Entry: Sendable {
        let version: Int64
        let devices: SharingDevices
    }

    /// Groups kept at most; past it the cache starts over (a bound on memory, not an LRU).
    public static let capacity = 4_096
    private let entries = Mutex<[GroupID: Entry]>([:])

    public init() {}

    /// The devices of `groupID` at `version`: the cached ones if they were read at it, else
    /// `load`'s, kept for next time.
    public func devices(groupID: GroupID, version: Int64, load: () throws -> SharingDevices) rethrows -> SharingDevices {
        if let entry = entries.withLock({ $0[groupID] }), entry.version == version { return entry.devices }
        let devices = try load()
        remember(devices, groupID: groupID, version: version)
        return devices
    }

    /// Keeps `devices` of `groupID` as read at `version`.
    public func remember(_ devices: SharingDevices, groupID: GroupID, version: Int64) {
        entries.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[groupID] = Entry(version: version, devices: devices)
        }
    }

    /// The cached devices of `groupID` if they were read at `version`.
    public func cached(groupID: GroupID, version: Int64) -> SharingDevices? {
        entries.withLock { table in table[groupID].flatMap { $0.version == version ? $0.devices : nil } }
    }
}
