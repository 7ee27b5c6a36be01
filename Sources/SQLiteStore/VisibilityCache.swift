import Storage
import Tracking

/// The sharing devices of recently queried groups (`SharingDevicesCache`), versioned by
/// `visibility_version` (schema 11: triggers bump it inside every transaction that changes
/// memberships or sharing periods, whichever connection or process commits it).
final class VisibilityCache: Sendable {
    private let cache = SharingDevicesCache()

    /// The sharing devices of `groupID` as of now, on reader `db`.
    func devices(groupID: GroupID, in db: Database, load: (Database) throws -> [SharedDevice]) throws -> SharingDevices {
        try cache.devices(groupID: groupID, version: try Self.version(in: db)) { SharingDevices(try load(db)) }
    }

    static func version(in db: Database) throws -> Int64 {
        try db.firstRow("SELECT version FROM visibility_version WHERE only = 1", []) { $0.int64(0) } ?? -1
    }
}
