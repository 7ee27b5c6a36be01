import GeoKit
import PostgresClient
import SQLCore
import Tracking

/// The PostgreSQL store's `PlaceArrivalLedger`: presence, baselines and the place index, read and
/// written on the connection of the append's (or the place change's) transaction: the group's
/// places and cells here, the rest with `SQLCore.PlaceArrivalTables` (`PlaceArrivalTablesLedger`).
/// The rule itself is `PlaceArrivalRun`, shared by every store.
///
/// Presence rows (`place_presence`): inside = true, not known = false; under a baseline
/// (`place_baselines`: the device's state in the group is known) no row means outside.
///
/// A group's places and index cells are read in one statement per version of them
/// (`place_versions`, schema 8, read with the append's sharing periods), from `index` when it
/// holds that version, and the candidate lookups are answered from memory (`GroupPlaces`).
struct PostgresPlaceArrivals: PlaceArrivalTablesLedger {
    let c: Connection
    let shapes: PlaceShapeCache
    /// The version of each group's places as this transaction read them (0: never had one).
    let placeVersions: [GroupID: Int64]
    let transactionPlaces: TransactionPlaces

    /// - Parameters:
    ///   - index: the node's copies (an append), or an empty one (a place change, whose own
    ///     loads are never kept: they come from a transaction not yet committed).
    ///   - placeVersions: as the append read them; a group not named is read from the database.
    init(c: Connection, shapes: PlaceShapeCache, index: PlaceIndexCache, placeVersions: [GroupID: Int64] = [:]) {
        self.c = c
        self.shapes = shapes
        self.placeVersions = placeVersions
        transactionPlaces = TransactionPlaces(cache: index)
    }

    /// The group's places: at the version read with the sharing periods, from the cache, or
    /// from the database in one statement, so one snapshot of the version and the rows it counts.
    func groupPlaces(_ groupID: GroupID) throws -> GroupPlaces {
        // A group without a known version (-1: none is) is read.
        try transactionPlaces.places(groupID: groupID, version: { placeVersions[groupID] ?? -1 }) { _ in
            // Row kinds: 0 the version, 1 a place (key, id, name, revision, radius), 2 an index cell (cell, place key).
            let rows = try c.queryPrepared("""
                SELECT 0, coalesce((SELECT version FROM place_versions WHERE group_id = $1), 0), NULL::bigint, NULL::text, NULL::text, NULL::bigint, NULL::double precision
                UNION ALL SELECT 1, key, NULL, id, name, revision, radius FROM places WHERE group_id = $1
                UNION ALL SELECT 2, cell, place_key, NULL, NULL, NULL, NULL FROM place_cells WHERE group_id = $1
                """, [.id(groupID)]).rows
            var version: Int64 = 0
            var places: [Int64: CachedPlace] = [:]
            var cells: [(cell: Int64, placeKey: Int64)] = []
            for row in rows {
                switch try row.int64(0) {
                case 0: version = try row.int64(1)
                case 1:
                    let key = try row.int64(1)
                    places[key] = try shapes.place(id: try row.id(3), name: try row.text(4), revision: try row.int64(5),
                                                   geometry: { try geometry(key: key) }, radiusMeters: try row.optionalDouble(6))
                default: cells.append((cell: try row.int64(1), placeKey: try row.int64(2)))
                }
            }
            return GroupPlaces(version: version, places: places, cells: cells)
        }
    }

    /// This transaction's connection, for the ledger's statements written once (`PlaceArrivalTables`).
    var sql: PostgresExecutor { PostgresExecutor(c: c) }
}
