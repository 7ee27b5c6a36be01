/// Reads what the friends reply needs in one snapshot.
///
/// `friendsSnapshot` is one read on one committed snapshot; `takePlaceEvents` is a write (it
/// moves the cursors) whose `completion` is called exactly once, after the commit or with the
/// error. Storage faults are `StoreFailure`s.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol FriendStore: Sendable {
    /// The asking device's setting and its groups' memberships; nil when the device is unknown.
    func friendsSnapshot(deviceID: DeviceID) throws -> FriendsSnapshot?
    /// The `place` events of `deviceID`'s groups since its previous call, each once (a cursor
    /// per device and group, moved in a write), no older than `since` (ms), at most `limit` a
    /// group, oldest first, only those the group may be served now; `completion` runs once
    /// durable, on the store's writer thread. The first call sets the cursors and gets none.
    func takePlaceEvents(forDevice deviceID: DeviceID, since: Int64, limit: Int,
                         completion: @escaping @Sendable (Result<[GroupEvent], Error>) -> Void)
}
