/// Facts the partition rules need, answered by the store from committed state.
///
/// Each answer is synchronous and sees one committed snapshot (the same snapshot for the
/// request's other reads inside `TrackingStore.readingTogether`); storage faults throw
/// `StoreFailure`. Times are milliseconds since 1970.
///
/// Implemented by every `DirectoryStore` (`SQLiteBackend`, `PostgresStore`).
public protocol PartitionFacts: Sendable {
    /// The owner of device `deviceID`, or nil when it does not exist.
    func deviceOwner(deviceID: DeviceID) throws -> UserID?
    /// Whether `userID` is a member of `groupID`.
    func isMember(userID: UserID, groupID: GroupID) throws -> Bool
    /// Whether `viewerID` belongs to a group in which device `deviceID` is a member's device with
    /// sharing on (the viewer may then read the device's locations).
    func isSharedWith(deviceID: DeviceID, viewerID: UserID) throws -> Bool
    /// The union of the sharing periods of device `deviceID` in the groups where it is shared
    /// now and `viewerID` is a member (empty when there is none).
    func sharedHistoryWindows(deviceID: DeviceID, viewerID: UserID) throws -> HistoryWindows
}
