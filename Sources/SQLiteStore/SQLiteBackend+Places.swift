import Tracking
import GeoKit
import JSONCore
import Storage

extension SQLiteBackend: PlaceStore {
    public func readPlaces<T>(_ body: (any PlaceTransaction) throws -> T) throws -> T {
        try read { try body(SQLiteDirectory(db: $0, unmerged: self.unmerged)) }
    }

    public func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T) async throws -> T {
        try await write { try body(SQLiteDirectory(db: $0, unmerged: self.unmerged)) }
    }
}

extension SQLiteDirectory: PlaceTransaction {
    static let placeColumns = "id, group_id, name, geometry, radius, created_by, created_at, updated_at"

    /// A stored place; its geometry was validated before it was stored.
    static func place(_ row: Statement) throws -> Place {
        Place(id: row.id(0), groupID: row.id(1), name: row.string(2), geometry: try JSONParser.parse(Array(row.string(3).utf8)),
              radiusMeters: row.optionalDouble(4), createdBy: row.id(5), createdAt: row.time(6), updatedAt: row.time(7))
    }

    func places(groupID: GroupID) throws -> [Place] {
        try db.rows("SELECT \(Self.placeColumns) FROM places WHERE group_id = ? ORDER BY created_at, key", [.id(groupID)], Self.place)
    }

    func place(id: PlaceID, groupID: GroupID) throws -> Place? {
        try db.firstRow("SELECT \(Self.placeColumns) FROM places WHERE id = ? AND group_id = ?", [.id(id), .id(groupID)], Self.place)
    }

    func placeCount(groupID: GroupID) throws -> Int {
        try db.firstRow("SELECT count(*) FROM places WHERE group_id = ?", [.id(groupID)]) { $0.int(0) } ?? 0
    }

    func insertPlace(_ place: Place, shape: PlaceShape) throws {
        try db.run("""
            INSERT INTO places (id, group_id, name, geometry, radius, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.id(place.id), .id(place.groupID), .text(place.name), .text(place.geometry.serializedString()),
                  .optional(place.radiusMeters), .id(place.createdBy), .time(place.createdAt), .time(place.updatedAt)])
        let key = db.lastInsertRowID
        try Self.index(placeKey: key, groupID: place.groupID, shape: shape, in: db)
        try PlaceArrivalRun.setSilently(placeKey: key, groupID: place.groupID, shape: shape,
                                        ledger: PlaceArrivalStore(db: db, shapes: PlaceShapeCache(), index: PlaceIndexCache()))
    }

    func updatePlace(_ place: Place, shape: PlaceShape?) throws {
        try db.run("""
            UPDATE places SET name = ?, geometry = ?, radius = ?, updated_at = ?, revision = revision + ? WHERE id = ?
            """, [.text(place.name), .text(place.geometry.serializedString()), .optional(place.radiusMeters),
                  .time(place.updatedAt), .int(shape == nil ? 0 : 1), .id(place.id)])
        guard let shape, let key = try db.firstRow("SELECT key FROM places WHERE id = ?", [.id(place.id)], { $0.int64(0) }) else { return }
        try db.run("DELETE FROM place_cells WHERE place_key = ?", [.integer(key)])
        try db.run("DELETE FROM place_presence WHERE place_key = ?", [.integer(key)])
        try Self.index(placeKey: key, groupID: place.groupID, shape: shape, in: db)
        try PlaceArrivalRun.setSilently(placeKey: key, groupID: place.groupID, shape: shape,
                                        ledger: PlaceArrivalStore(db: db, shapes: PlaceShapeCache(), index: PlaceIndexCache()))
    }

    func deletePlace(id: PlaceID) throws {
        // Cells and presence go with it (foreign keys); no event: the place's state just ends.
        try db.run("DELETE FROM places WHERE id = ?", [.id(id)])
    }

    func devicesInside(groupID: GroupID) throws -> [PlaceID: [DeviceID]] {
        var inside: [PlaceID: [DeviceID]] = [:]
        try db.forEachRow("""
            SELECT p.id, d.id FROM place_presence pr
            JOIN places p ON p.key = pr.place_key JOIN devices d ON d.key = pr.device_key
            JOIN memberships m ON m.group_id = pr.group_id AND m.device_id = d.id AND m.share_location = 1
            WHERE pr.group_id = ? AND pr.inside = 1 ORDER BY p.key, d.id
            """, [.id(groupID)]) { row in
            inside[row.id(0), default: []].append(row.id(1))
        }
        return inside
    }

    /// Stores the place's covering cells in the place index.
    static func index(placeKey: Int64, groupID: GroupID, shape: PlaceShape, in db: Database) throws {
        let insert = try db.prepare("INSERT OR IGNORE INTO place_cells (group_id, cell, place_key) VALUES (?, ?, ?)")
        for cell in shape.covering {
            try insert.bind([.id(groupID), .integer(cell.int64Key), .integer(placeKey)])
            try insert.run()
        }
    }
}

extension SQLiteBackend {
    /// For benchmarks and diagnostics: the ids of the group's places the place index offers as
    /// candidates for one append of fixes at `points` (`[lon, lat]` degrees), looked up as
    /// ingest does (the points' smallest common cell: its ancestors, and the index cells inside it).
    public func placeCandidates(groupID: GroupID, points: [(longitude: Double, latitude: Double)]) throws -> [PlaceID] {
        try read { db in
            let lookup = try db.prepare("SELECT id FROM places WHERE key = ?")
            let leaves = points.map { CellID(LatLng(degreesLatitude: $0.latitude, longitude: $0.longitude)) }
            let ledger = PlaceArrivalStore(db: db, shapes: placeShapes, index: placeIndex)
            let candidates = try PlaceArrivalRun.candidateKeys(groupID: groupID, leaves: leaves, ledger: ledger).sorted().compactMap { key in
                try lookup.bind(key, at: 1)
                defer { lookup.reset() }
                return try lookup.step() ? lookup.id(0) as PlaceID : nil
            }
            placeIndex.keep(ledger.loadedPlaces)   // a read-only snapshot of committed state
            return candidates
        }
    }
}
