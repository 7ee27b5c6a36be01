import GeoKit
import SQLCore
import Storage
import Tracking

/// Places: their rows with `SQLCore.PlaceTables` (`PlaceTablesTransaction`), written once for
/// both stores; their index cells and their members' silent presence here.
extension SQLiteDirectory: PlaceTablesTransaction {
    func indexPlace(key: Int64, groupID: GroupID, shape: PlaceShape) throws {
        try Self.index(placeKey: key, groupID: groupID, shape: shape, in: db)
        try PlaceArrivalRun.setSilently(placeKey: key, groupID: groupID, shape: shape,
                                        ledger: PlaceArrivalStore(db: db, shapes: PlaceShapeCache(), index: PlaceIndexCache()))
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
