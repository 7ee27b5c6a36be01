import GeoKit
import SQLCore
import Storage
import Tracking

/// The SQLite store's `PlaceArrivalLedger`: presence, baselines and the place index, read and
/// written on the connection of the append's (or the place change's) transaction: the group's
/// places and cells here, the rest with `SQLCore.PlaceArrivalTables` (`PlaceArrivalTablesLedger`).
/// The rule itself is `PlaceArrivalRun`, shared by every store.
///
/// Presence rows (`place_presence`): inside = 1, not known = 0; under a baseline
/// (`place_baselines`: the device's state in the group is known) no row means outside.
///
/// A group's places and their index cells are read once per version of them
/// (`place_versions`, schema 12), from `index` when it holds that version, and the candidate
/// lookups are answered from memory (`GroupPlaces`).
struct PlaceArrivalStore: PlaceArrivalTablesLedger {
    let db: Database
    let shapes: PlaceShapeCache
    let transactionPlaces: TransactionPlaces

    /// - Parameter index: the store's copies (an append), or an empty one (a place change,
    ///   whose own loads are never kept: they come from a transaction not yet committed).
    init(db: Database, shapes: PlaceShapeCache, index: PlaceIndexCache) {
        self.db = db
        self.shapes = shapes
        transactionPlaces = TransactionPlaces(cache: index)
    }

    /// The group's places at their current version. In a transaction of the single writer,
    /// the version and the rows read next are one state.
    func groupPlaces(_ groupID: GroupID) throws -> GroupPlaces {
        try transactionPlaces.places(groupID: groupID, version: {
            try db.firstRow("SELECT version FROM place_versions WHERE group_id = ?", [.id(groupID)]) { $0.int64(0) } ?? 0
        }) { version in
            var places: [Int64: CachedPlace] = [:]
            for row in try db.rows("SELECT key, id, name, revision, radius FROM places WHERE group_id = ?", [.id(groupID)], {
                (key: $0.int64(0), id: $0.id(1) as PlaceID, name: $0.string(2), revision: $0.int64(3), radius: $0.optionalDouble(4))
            }) {
                places[row.key] = try shapes.place(id: row.id, name: row.name, revision: row.revision,
                                                   geometry: { try geometry(key: row.key) }, radiusMeters: row.radius)
            }
            let cells = try db.rows("SELECT cell, place_key FROM place_cells WHERE group_id = ?", [.id(groupID)]) {
                (cell: $0.int64(0), placeKey: $0.int64(1))
            }
            return GroupPlaces(version: version, places: places, cells: cells)
        }
    }

    /// This transaction's connection, for the ledger's statements written once (`PlaceArrivalTables`).
    var sql: SQLiteExecutor { SQLiteExecutor(db: db) }
}
