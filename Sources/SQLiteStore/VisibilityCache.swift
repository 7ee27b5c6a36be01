import Storage
import Synchronization
import Tracking

/// The sharing devices of recently queried groups, each kept with the `visibility_version` it
/// was read at (schema 11: triggers bump that version inside every transaction that changes
/// memberships or sharing periods, whichever connection or process commits it).
///
/// Correctness: a lookup first reads the current version, then uses an entry only if it was
/// read at that same version; otherwise it reads the group again and stores it under the
/// version read *before* the rows. A change committed between the two reads makes the entry
/// look older than its rows, so it is read again next time — never the other way round: an
/// answer never misses a change committed before the lookup began (a sharing switch-off or a
/// removal hides positions at once).
final class VisibilityCache: Sendable {
    private struct Entry: Sendable {
        let version: Int64
        let devices: SharingDevices
    }

    /// Groups kept at most; past it the cache starts over (a bound on memory, not an LRU).
    static let capacity = 4_096
    private let entries = Mutex<[GroupID: Entry]>([:])

    /// The sharing devices of `groupID` as of now, on reader `db`.
    func devices(groupID: GroupID, in db: Database, load: (Database) throws -> [SharedDevice]) throws -> SharingDevices {
        let version = try Self.version(in: db)
        if let entry = entries.withLock({ $0[groupID] }), entry.version == version { return entry.devices }
        let devices = SharingDevices(try load(db))
        entries.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[groupID] = Entry(version: version, devices: devices)
        }
        return devices
    }

    static func version(in db: Database) throws -> Int64 {
        try db.firstRow("SELECT version FROM visibility_version WHERE only = 1", []) { $0.int64(0) } ?? -1
    }
}
