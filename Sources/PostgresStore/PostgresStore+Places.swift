import GeoKit
import JSONCore
import PostgresClient
import Tracking

extension PostgresStore: PlaceStore {
    public func readPlaces<T>(_ body: (any PlaceTransaction) throws -> T) throws -> T {
        try readSnapshot { try body(PostgresDirectory(c: $0, shapes: placeShapes)) }
    }

    public func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T) async throws -> T {
        let shapes = placeShapes
        return try await write { try body(PostgresDirectory(c: $0, shapes: shapes)) }
    }
}

extension PostgresDirectory: PlaceTransaction {
    static let placeColumns = "id, group_id, name, geometry, radius, created_by, created_at, updated_at"

    /// A stored place; its geometry was validated before it was stored.
    static func place(_ row: Row) throws -> Place {
        Place(id: try row.id(0), groupID: try row.id(1), name: try row.text(2), geometry: try JSONParser.parse(Array(try row.text(3).utf8)),
              radiusMeters: try row.optionalDouble(4), createdBy: try row.id(5), createdAt: try row.time(6), updatedAt: try row.time(7))
    }

    func places(groupID: GroupID) throws -> [Place] {
        try c.rows("SELECT \(Self.placeColumns) FROM places WHERE group_id = $1 ORDER BY created_at, key", [.id(groupID)], Self.place)
    }

    func place(id: PlaceID, groupID: GroupID) throws -> Place? {
        try c.firstRow("SELECT \(Self.placeColumns) FROM places WHERE id = $1 AND group_id = $2", [.id(id), .id(groupID)], Self.place)
    }

    func placeCount(groupID: GroupID) throws -> Int {
        Int(try c.queryPrepared("SELECT count(*) FROM places WHERE group_id = $1", [.id(groupID)]).row(0).int64(0))
    }

    func insertPlace(_ place: Place, shape: PlaceShape) throws {
        guard let key = try c.firstRow("""
            INSERT INTO places (id, group_id, name, geometry, radius, created_by, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING key
            """, [.id(place.id), .id(place.groupID), .text(place.name), .text(place.geometry.serializedString()),
                  .optional(place.radiusMeters), .id(place.createdBy), .time(place.createdAt), .time(place.updatedAt)],
            { try $0.int64(0) }) else {
            throw PostgresError(sqlState: .internalError, origin: .client, message: "the place's key was not returned")
        }
        try Self.index(placeKey: key, groupID: place.groupID, shape: shape, on: c)
        try PlaceArrivalRun.setSilently(placeKey: key, groupID: place.groupID, shape: shape, ledger: PostgresPlaceArrivals(c: c, shapes: shapes, index: PlaceIndexCache()))
    }

    func updatePlace(_ place: Place, shape: PlaceShape?) throws {
        try c.run("""
            UPDATE places SET name = $1, geometry = $2, radius = $3, updated_at = $4, revision = revision + $5 WHERE id = $6
            """, [.text(place.name), .text(place.geometry.serializedString()), .optional(place.radiusMeters),
                  .time(place.updatedAt), .int(shape == nil ? 0 : 1), .id(place.id)])
        guard let shape, let key = try c.firstRow("SELECT key FROM places WHERE id = $1", [.id(place.id)], { try $0.int64(0) }) else { return }
        try c.run("DELETE FROM place_cells WHERE place_key = $1", [.int64(key)])
        try c.run("DELETE FROM place_presence WHERE place_key = $1", [.int64(key)])
        try Self.index(placeKey: key, groupID: place.groupID, shape: shape, on: c)
        try PlaceArrivalRun.setSilently(placeKey: key, groupID: place.groupID, shape: shape, ledger: PostgresPlaceArrivals(c: c, shapes: shapes, index: PlaceIndexCache()))
    }

    func deletePlace(id: PlaceID) throws {
        // Cells and presence go with it (foreign keys); no event: the place's state just ends.
        try c.run("DELETE FROM places WHERE id = $1", [.id(id)])
    }

    func devicesInside(groupID: GroupID) throws -> [PlaceID: [DeviceID]] {
        var inside: [PlaceID: [DeviceID]] = [:]
        for row in try c.queryPrepared("""
            SELECT p.id, d.id FROM place_presence pr
            JOIN places p ON p.key = pr.place_key JOIN devices d ON d.key = pr.device_key
            JOIN memberships m ON m.group_id = pr.group_id AND m.device_id = d.id AND m.share_location
            WHERE pr.group_id = $1 AND pr.inside ORDER BY p.key, d.id COLLATE "C"
            """, [.id(groupID)]).rows {
            inside[try row.id(0), default: []].append(try row.id(1))
        }
        return inside
    }

    /// Stores the place's covering cells in the place index (one statement).
    static func index(placeKey: Int64, groupID: GroupID, shape: PlaceShape, on c: Connection) throws {
        try c.run("""
            INSERT INTO place_cells (group_id, cell, place_key) SELECT $1, cell, $2 FROM unnest($3::bigint[]) AS t(cell)
            ON CONFLICT DO NOTHING
            """, [.id(groupID), .int64(placeKey), .int64Array(shape.covering.map(\.int64Key))])
    }
}
