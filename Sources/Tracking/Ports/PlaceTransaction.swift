/// Primitive reads and writes of places inside one directory transaction (so membership and
/// ownership checks and the change they allow commit together).
///
/// Presence (which device the server remembers inside which place) is the store's: it follows
/// `PlaceArrivals` on ingest, and is set *silently* (no event) when a place is created or its
/// geometry changes, for every device whose state in the group is known; it is forgotten when
/// the device's member stops sharing or leaves, and with the place.
///
/// Implemented by `SQLiteDirectory` (SQLiteStore) and `PostgresDirectory` (PostgresStore), their rows
/// written once in SQLCore (`PlaceTablesTransaction`).
public protocol PlaceTransaction: DirectoryTransaction {
    /// The group's places, oldest first.
    func places(groupID: GroupID) throws -> [Place]
    func place(id: PlaceID, groupID: GroupID) throws -> Place?
    func placeCount(groupID: GroupID) throws -> Int
    /// Inserts the place and its covering; sets presence silently.
    func insertPlace(_ place: Place, shape: PlaceShape) throws
    /// Stores the new name and geometry; with a `shape` (the geometry changed) replaces the
    /// covering and sets presence again, silently.
    func updatePlace(_ place: Place, shape: PlaceShape?) throws
    /// Deletes the place, its covering and every presence in it (no events).
    func deletePlace(id: PlaceID) throws
    /// For each place of the group with devices inside: the devices of members sharing now
    /// that the server remembers inside it, in id order.
    func devicesInside(groupID: GroupID) throws -> [PlaceID: [DeviceID]]
}
