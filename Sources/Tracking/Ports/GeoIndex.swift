/// The cell-keyed index of stored fixes.
///
/// Every answer reflects the writes committed before the call (for the history path the
/// sharing devices may come from a cache, with the same promise). Storage faults throw
/// `StoreFailure`.
///
/// Implemented by `SQLiteBackend` (fixes merged into the index and those still in the
/// unmerged mirror) and `PostgresStore`.
public protocol GeoIndex: Sendable {
    /// Devices of members sharing with `groupID`, with their latest positions and sharing periods.
    func sharedDevices(groupID: GroupID) throws -> [SharedDevice]
    /// The same devices for the history path (their `last` may be stale or nil): a store may
    /// answer from a cache, as long as every change of memberships and sharing periods
    /// committed before the call is in the answer.
    func sharingDevices(groupID: GroupID) throws -> SharingDevices
    /// Runs `body` with a reader on one consistent snapshot of the index.
    func withReader<T>(_ body: (any GeoIndexReader) throws -> T) throws -> T
    /// Runs `body` with the group's sharing devices (as `sharingDevices(groupID:)` gives them)
    /// and a reader of the index. A store whose reads cost a round trip each may read both in
    /// one snapshot and fewer trips; by default the devices are read first.
    func withReader<T>(sharingDevicesOf groupID: GroupID, _ body: (SharingDevices, any GeoIndexReader) throws -> T) throws -> T
}

extension GeoIndex {
    public func sharingDevices(groupID: GroupID) throws -> SharingDevices {
        SharingDevices(try sharedDevices(groupID: groupID))
    }

    public func withReader<T>(sharingDevicesOf groupID: GroupID, _ body: (SharingDevices, any GeoIndexReader) throws -> T) throws -> T {
        let devices = try sharingDevices(groupID: groupID)
        return try withReader { reader in try body(devices, reader) }
    }
}
