import GeoKit

/// What a store keeps for arrivals, read and written inside the append's (or the place
/// change's) transaction. Place keys are the store's own compact handles of places.
///
/// Presence: `true` inside, `false` not known (the fixes were too inaccurate to set it); under a
/// baseline (the device's state in the group is known) a place without presence is outside.
///
/// Calls are synchronous, on the thread that runs the store's write (or, for
/// `setSilently`, its place-change write): every read sees that transaction's own writes,
/// and every write commits or rolls back with it. Not `Sendable`: a ledger lives only as
/// long as its transaction.
///
/// Implemented by `PlaceArrivalStore` (SQLiteStore) and `PostgresPlaceArrivals` (PostgresStore).
public protocol PlaceArrivalLedger {
    func groupHasPlaces(_ groupID: GroupID) throws -> Bool
    func hasBaseline(groupID: GroupID, device: DeviceKey) throws -> Bool
    /// place key → inside (`false`: not known), for the device in the group.
    func presence(groupID: GroupID, device: DeviceKey) throws -> [Int64: Bool]
    func placeKeys(groupID: GroupID) throws -> Set<Int64>
    /// Keys of the group's places with an index cell among `cells`, or (when `range` is set)
    /// an index cell whose key lies in `range`.
    func placeKeys(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?) throws -> Set<Int64>
    /// The place with key `key` (nil when it does not exist or its stored geometry does not parse).
    func place(key: Int64) throws -> CachedPlace?
    /// `placeKeys(groupID:cells:range:)` and the places `including` names, loaded as
    /// `place(key:)` loads them (a place whose geometry does not parse is left out), in one
    /// read where the store can.
    func places(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) throws -> [Int64: CachedPlace]
    /// Latest positions of the devices of members sharing in the group, with (`baseline`) or
    /// without a known state there.
    func latestPositions(groupID: GroupID, baseline: Bool) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)]

    /// Sets (inserts or replaces) the device's presence in a place.
    func setPresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, inside: Bool) throws
    /// Records "not known" unless a presence is recorded already.
    func setNotKnownIfAbsent(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws
    func removePresence(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws
    /// Marks the device's state in the group as known (idempotent).
    func setBaseline(groupID: GroupID, device: DeviceKey) throws
}
