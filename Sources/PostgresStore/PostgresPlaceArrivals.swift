import GeoKit
import PostgresClient
import Tracking

/// The PostgreSQL store's `PlaceArrivalLedger`: presence, baselines and the place index, read and
/// written on the connection of the append's (or the place change's) transaction. The rule
/// itself is `PlaceArrivalRun`, shared by every store.
///
/// Presence rows (`place_presence`): inside = true, not known = false; under a baseline
/// (`place_baselines`: the device's state in the group is known) no row means outside.
///
/// A group's places and index cells are read in one statement per version of them
/// (`place_versions`, schema 8, read with the append's sharing periods), from `index` when it
/// holds that version, and the candidate lookups are answered from memory (`GroupPlaces`).
struct PostgresPlaceArrivals: PlaceArrivalLedger {
    let c: Connection
    let shapes: PlaceShapeCache
    /// The version of each group's places as this transaction read them (0: never had one).
    let placeVersions: [GroupID: Int64]
    /// The groups' places this transaction uses.
    private let read: TransactionPlaces

    /// - Parameters:
    ///   - index: the node's copies (an append), or an empty one (a place change, whose own
    ///     loads are never kept: they come from a transaction not yet committed).
    ///   - placeVersions: as the append read them; a group not named is read from the database.
    init(c: Connection, shapes: PlaceShapeCache, index: PlaceIndexCache, placeVersions: [GroupID: Int64] = [:]) {
        self.c = c
        self.shapes = shapes
        self.placeVersions = placeVersions
        read = TransactionPlaces(cache: index)
    }

    /// The group's places: at the version read with the sharing periods, from the cache, or
    /// from the database in one statement, so one snapshot of the version and the rows it counts.
    private func groupPlaces(_ groupID: GroupID) throws -> GroupPlaces {
        // A group without a known version (-1: none is) is read.
        try read.places(groupID: groupID, version: { placeVersions[groupID] ?? -1 }) { _ in
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

    /// The copies of groups' places this transaction read from the database: for
    /// `PlaceIndexCache.keep(_:)` once it has committed.
    var loadedPlaces: LoadedPlaces { read.loaded }

    private func geometry(key: Int64) throws -> String {
        try c.firstRow("SELECT geometry FROM places WHERE key = $1", [.int64(key)]) { try $0.text(0) } ?? ""
    }

    func groupHasPlaces(_ groupID: GroupID) throws -> Bool { !(try groupPlaces(groupID).places.isEmpty) }

    func hasBaseline(groupID: GroupID, device: DeviceKey) throws -> Bool {
        try c.firstRow("SELECT 1 FROM place_baselines WHERE group_id = $1 AND device_key = $2",
                       [.id(groupID), .int64(device.storeValue)], { _ in true }) == true
    }

    func presence(groupID: GroupID, device: DeviceKey) throws -> [Int64: Bool] {
        var remembered: [Int64: Bool] = [:]
        for row in try c.queryPrepared("SELECT place_key, inside FROM place_presence WHERE device_key = $1 AND group_id = $2",
                                       [.int64(device.storeValue), .id(groupID)]).rows {
            remembered[try row.int64(0)] = try row.bool(1)
        }
        return remembered
    }

    func placeKeys(groupID: GroupID) throws -> Set<Int64> { Set(try groupPlaces(groupID).places.keys) }

    func placeKeys(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?) throws -> Set<Int64> {
        try groupPlaces(groupID).keys(cells: cells, range: range)
    }

    func places(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) throws -> [Int64: CachedPlace] {
        try groupPlaces(groupID).places(cells: cells, range: range, including: including)
    }

    func place(key: Int64) throws -> CachedPlace? {
        if let place = read.place(key: key) { return place }
        guard let row = try c.queryPrepared("SELECT id, name, revision, geometry, radius FROM places WHERE key = $1", [.int64(key)]).first
        else { return nil }
        return try shapes.place(id: try row.id(0), name: try row.text(1), revision: try row.int64(2),
                                geometry: { try row.text(3) }, radiusMeters: try row.optionalDouble(4))
    }

    /// The latest position the group may see of each sharing member's device (`SharedLatest`).
    func latestPositions(groupID: GroupID, baseline: Bool) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)] {
        let windows = try PostgresStore.sharingWindows(groupID: groupID, on: c)
        let rows = try c.rows("""
            SELECT d.key, d.last_lon, d.last_lat, d.last_ts,
                   (SELECT accuracy FROM fixes f WHERE f.device_key = d.key AND f.ts = d.last_ts ORDER BY seq DESC LIMIT 1),
                   m.user_id, d.history_version
            FROM memberships m JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = $1 AND m.share_location AND d.last_ts IS NOT NULL
              AND EXISTS (SELECT 1 FROM place_baselines b WHERE b.group_id = m.group_id AND b.device_key = d.key) = $2
            """, [.id(groupID), .bool(baseline)]) { row in
            (key: try row.int64(0), user: try row.id(5, as: UserID.self), version: try row.int64(6),
             last: PostgresStore.ShownFix(location: LastLocation(position: try row.position(1), timestamp: try row.time(3)),
                                          accuracy: try row.optionalDouble(4)))
        }
        return try rows.compactMap { row in
            guard let fix = try PostgresStore.sharedLatest(deviceKey: row.key, last: row.last, windows: windows[row.user] ?? .none,
                                                                version: row.version, on: c)
            else { return nil }
            return (device: DeviceKey(storeValue: row.key),
                    point: LatLng(degreesLatitude: fix.location.position.latitude, longitude: fix.location.position.longitude).normalized.toPoint(),
                    accuracy: fix.accuracy)
        }
    }

    func setPresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, inside: Bool) throws {
        try c.run("""
            INSERT INTO place_presence (device_key, group_id, place_key, inside) VALUES ($1, $2, $3, $4)
            ON CONFLICT (device_key, group_id, place_key) DO UPDATE SET inside = excluded.inside
            """, [.int64(device.storeValue), .id(groupID), .int64(placeKey), .bool(inside)])
    }

    func setNotKnownIfAbsent(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
        try c.run("""
            INSERT INTO place_presence (device_key, group_id, place_key, inside) VALUES ($1, $2, $3, false) ON CONFLICT DO NOTHING
            """, [.int64(device.storeValue), .id(groupID), .int64(placeKey)])
    }

    func removePresence(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
        try c.run("DELETE FROM place_presence WHERE device_key = $1 AND group_id = $2 AND place_key = $3",
                  [.int64(device.storeValue), .id(groupID), .int64(placeKey)])
    }

    func setBaseline(groupID: GroupID, device: DeviceKey) throws {
        try c.run("INSERT INTO place_baselines (group_id, device_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                  [.id(groupID), .int64(device.storeValue)])
    }
}
