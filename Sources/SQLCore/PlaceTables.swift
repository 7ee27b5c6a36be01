import JSONCore
import Tracking

/// A group's places (`places`, `place_cells`, `place_presence`), written once for both stores:
/// the rows of `PlaceTransaction`, inside the caller's transaction on `db`. Indexing a place's
/// cells and setting its members' presence silently stay with each store (a prepared insert per
/// cell on SQLite, one `unnest` insert on PostgreSQL; each store's `PlaceArrivalLedger`).
public enum PlaceTables {
    /// The columns `place(_:)` decodes, in its order.
    static let columns = "id, group_id, name, geometry, radius, created_by, created_at, updated_at"

    /// A stored place; its geometry was validated before it was stored.
    static func place(_ row: any SQLRow) throws -> Place {
        Place(id: try row.id(0), groupID: try row.id(1), name: try row.text(2), geometry: try JSONParser.parse(Array(try row.text(3).utf8)),
              radiusMeters: try row.optionalDouble(4), createdBy: try row.id(5), createdAt: try row.time(6), updatedAt: try row.time(7))
    }

    /// The group's places, oldest first.
    public static func places(groupID: GroupID, on db: some SQLExecutor) throws -> [Place] {
        try db.rows("SELECT \(columns) FROM places WHERE group_id = ? ORDER BY created_at, key", [.id(groupID)], place)
    }

    public static func place(id: PlaceID, groupID: GroupID, on db: some SQLExecutor) throws -> Place? {
        try db.firstRow("SELECT \(columns) FROM places WHERE id = ? AND group_id = ?", [.id(id), .id(groupID)], place)
    }

    public static func placeCount(groupID: GroupID, on db: some SQLExecutor) throws -> Int {
        try db.firstRow("SELECT count(*) FROM places WHERE group_id = ?", [.id(groupID)]) { try $0.int(0) } ?? 0
    }

    /// Inserts the place's row; returns its key (the store then indexes its cells).
    public static func insertPlace(_ place: Place, on db: some SQLExecutor) throws -> Int64 {
        guard let key = try db.firstRow("""
            INSERT INTO places (id, group_id, name, geometry, radius, created_by, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING key
            """, [.id(place.id), .id(place.groupID), .text(place.name), .text(place.geometry.serializedString()),
                  .optional(place.radiusMeters), .id(place.createdBy), .time(place.createdAt), .time(place.updatedAt)],
            { try $0.int64(0) }) else { throw MissingRow("the place's key was not returned") }
        return key
    }

    /// Updates the place's row. When it is `reshaped`, its revision moves on, its index cells
    /// and its members' presence go, and its key is returned (the store then indexes it again);
    /// otherwise, or when no such place exists, nil.
    public static func updatePlace(_ place: Place, reshaped: Bool, on db: some SQLExecutor) throws -> Int64? {
        try db.run("""
            UPDATE places SET name = ?, geometry = ?, radius = ?, updated_at = ?, revision = revision + ? WHERE id = ?
            """, [.text(place.name), .text(place.geometry.serializedString()), .optional(place.radiusMeters),
                  .time(place.updatedAt), .int(reshaped ? 1 : 0), .id(place.id)])
        guard reshaped, let key = try db.firstRow("SELECT key FROM places WHERE id = ?", [.id(place.id)], { try $0.int64(0) }) else { return nil }
        try db.run("DELETE FROM place_cells WHERE place_key = ?", [.integer(key)])
        try db.run("DELETE FROM place_presence WHERE place_key = ?", [.integer(key)])
        return key
    }

    public static func deletePlace(id: PlaceID, on db: some SQLExecutor) throws {
        // Cells and presence go with it (foreign keys); no event: the place's state just ends.
        try db.run("DELETE FROM places WHERE id = ?", [.id(id)])
    }

    /// The sharing members' devices inside each of the group's places, in the places' key order
    /// and the devices' id order (bytewise on both stores).
    public static func devicesInside(groupID: GroupID, on db: some SQLExecutor) throws -> [PlaceID: [DeviceID]] {
        var inside: [PlaceID: [DeviceID]] = [:]
        for (place, device) in try db.rows("""
            SELECT p.id, d.id FROM place_presence pr
            JOIN places p ON p.key = pr.place_key JOIN devices d ON d.key = pr.device_key
            JOIN memberships m ON m.group_id = pr.group_id AND m.device_id = d.id AND m.share_location = TRUE
            WHERE pr.group_id = ? AND pr.inside = TRUE ORDER BY p.key, d.id\(db.dialect.bytewise)
            """, [.id(groupID)], { (try $0.id(0) as PlaceID, try $0.id(1) as DeviceID) }) {
            inside[place, default: []].append(device)
        }
        return inside
    }
}

/// A store's `PlaceTransaction` over `PlaceTables`: it gets every place read and write from here
/// by giving its transaction's connection and how it indexes a new or reshaped place.
public protocol PlaceTablesTransaction: PlaceTransaction {
    associatedtype Executor: SQLExecutor
    /// The transaction's connection.
    var sql: Executor { get }
    /// Indexes the cells of the place with key `key` (just inserted, or reshaped: its old cells
    /// and presence are gone) and sets its sharing members' presence silently.
    func indexPlace(key: Int64, groupID: GroupID, shape: PlaceShape) throws
}

extension PlaceTablesTransaction {
    public func places(groupID: GroupID) throws -> [Place] { try PlaceTables.places(groupID: groupID, on: sql) }

    public func place(id: PlaceID, groupID: GroupID) throws -> Place? { try PlaceTables.place(id: id, groupID: groupID, on: sql) }

    public func placeCount(groupID: GroupID) throws -> Int { try PlaceTables.placeCount(groupID: groupID, on: sql) }

    public func insertPlace(_ place: Place, shape: PlaceShape) throws {
        try indexPlace(key: try PlaceTables.insertPlace(place, on: sql), groupID: place.groupID, shape: shape)
    }

    public func updatePlace(_ place: Place, shape: PlaceShape?) throws {
        guard let key = try PlaceTables.updatePlace(place, reshaped: shape != nil, on: sql), let shape else { return }
        try indexPlace(key: key, groupID: place.groupID, shape: shape)
    }

    public func deletePlace(id: PlaceID) throws { try PlaceTables.deletePlace(id: id, on: sql) }

    public func devicesInside(groupID: GroupID) throws -> [PlaceID: [DeviceID]] { try PlaceTables.devicesInside(groupID: groupID, on: sql) }
}
