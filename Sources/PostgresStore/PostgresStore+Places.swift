import PostgresClient
import SQLCore
import Tracking

/// Places: their rows with `SQLCore.PlaceTables` (`PlaceTablesTransaction`), written once for
/// both stores; their index cells and their members' silent presence here.
extension PostgresDirectory: PlaceTablesTransaction {
    func indexPlace(key: Int64, groupID: GroupID, shape: PlaceShape) throws {
        try Self.index(placeKey: key, groupID: groupID, shape: shape, on: c)
        try PlaceArrivalRun.setSilently(placeKey: key, groupID: groupID, shape: shape,
                                        ledger: PostgresPlaceArrivals(c: c, shapes: shapes, index: PlaceIndexCache()))
    }

    /// Stores the place's covering cells in the place index (one statement).
    static func index(placeKey: Int64, groupID: GroupID, shape: PlaceShape, on c: Connection) throws {
        try c.run("""
            INSERT INTO place_cells (group_id, cell, place_key) SELECT $1, cell, $2 FROM unnest($3::bigint[]) AS t(cell)
            ON CONFLICT DO NOTHING
            """, [.id(groupID), .int64(placeKey), .int64Array(shape.covering.map(\.int64Key))])
    }
}
