import Tracking
import GeoKit
import Storage

/// The SQLite store's `PlaceArrivalLedger`: presence, baselines and the place index, read and
/// written on the connection of the append's (or the place change's) transaction. The rule
/// itself is `PlaceArrivalRun`, shared by every store.
///
/// Presence rows (`place_presence`): inside = 1, not known = 0; under a baseline
/// (`place_baselines`: the device's state in the group is known) no row means outside.
///
/// A group's places and their index cells are read once per version of them
/// (`place_versions`, schema 12), from `index` when it holds that version, and the candidate
/// lookups are answered from memory (`GroupPlaces`).
struct PlaceArrivalStore: PlaceArrivalLedger {
    let db: Database
    let shapes: PlaceShapeCache
    /// The groups' places this transaction uses.
    private let read: TransactionPlaces

    /// - Parameter index: the store's copies (an append), or an empty one (a place change,
    ///   whose own loads are never kept: they come from a transaction not yet committed).
    init(db: Database, shapes: PlaceShapeCache, index: PlaceIndexCache) {
        self.db = db
        self.shapes = shapes
        read = TransactionPlaces(cache: index)
    }

    /// The group's places at their current version. In a transaction of the single writer,
    /// the version and the rows read next are one state.
    private func groupPlaces(_ groupID: GroupID) throws -> GroupPlaces {
        try read.places(groupID: groupID, version: {
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

    /// The copies of groups' places this transaction read from the database: for
    /// `PlaceIndexCache.keep(_:)` once it has committed.
    var loadedPlaces: LoadedPlaces { read.loaded }

    private func geometry(key: Int64) throws -> String {
        try db.firstRow("SELECT geometry FROM places WHERE key = ?", [.integer(key)]) { $0.string(0) } ?? ""
    }

    func groupHasPlaces(_ groupID: GroupID) throws -> Bool { !(try groupPlaces(groupID).places.isEmpty) }

    func hasBaseline(groupID: GroupID, device: DeviceKey) throws -> Bool {
        try db.firstRow("SELECT 1 FROM place_baselines WHERE group_id = ? AND device_key = ?",
                        [.id(groupID), .integer(device.storeValue)], { _ in true }) == true
    }

    func presence(groupID: GroupID, device: DeviceKey) throws -> [Int64: Bool] {
        var remembered: [Int64: Bool] = [:]
        try db.forEachRow("SELECT place_key, inside FROM place_presence WHERE device_key = ? AND group_id = ?",
                          [.integer(device.storeValue), .id(groupID)]) { remembered[$0.int64(0)] = $0.bool(1) }
        return remembered
    }

    func placeKeys(groupID: GroupID) throws -> Set<Int64> { Set(try groupPlaces(groupID).places.keys) }

    func placeKeys(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?) throws -> Set<Int64> {
        try groupPlaces(groupID).keys(cells: cells, range: range)
    }

    func place(key: Int64) throws -> CachedPlace? {
        if let place = read.place(key: key) { return place }
        let statement = try db.prepare("SELECT id, name, revision, geometry, radius FROM places WHERE key = ?")
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        guard try statement.step() else { return nil }
        return try shapes.place(id: statement.id(0), name: statement.string(1), revision: statement.int64(2),
                                geometry: { statement.string(3) }, radiusMeters: statement.optionalDouble(4))
    }

    func places(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) throws -> [Int64: CachedPlace] {
        try groupPlaces(groupID).places(cells: cells, range: range, including: including)
    }

    /// The latest position the group may see of each sharing member's device (`SharedLatest`).
    func latestPositions(groupID: GroupID, baseline: Bool) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)] {
        let windows = try SQLiteBackend.sharingWindows(groupID: groupID, in: db)
        return try db.rows("""
            SELECT d.key, d.last_lon, d.last_lat, d.last_ts,
                   (SELECT accuracy FROM locations l WHERE l.device_key = d.key AND l.ts = d.last_ts ORDER BY seq DESC LIMIT 1),
                   m.user_id, d.history_version
            FROM memberships m JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = ? AND m.share_location = 1 AND d.last_ts IS NOT NULL
              AND EXISTS (SELECT 1 FROM place_baselines b WHERE b.group_id = m.group_id AND b.device_key = d.key) = ?
            """, [.id(groupID), .bool(baseline)]) { row in
            let last = SQLiteBackend.ShownFix(location: LastLocation(position: row.position(1), timestamp: row.time(3)),
                                              accuracy: row.optionalDouble(4))
            let shown = try SQLiteBackend.sharedLatest(deviceKey: row.int64(0), last: last, windows: windows[row.id(5)] ?? .none,
                                                       version: row.int64(6), in: db)
            return shown.map { fix in
                (device: DeviceKey(storeValue: row.int64(0)),
                 point: LatLng(degreesLatitude: fix.location.position.latitude, longitude: fix.location.position.longitude).normalized.toPoint(),
                 accuracy: fix.accuracy)
            }
        }.compactMap { $0 }
    }

    func setPresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, inside: Bool) throws {
        try db.run("INSERT OR REPLACE INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, ?)",
                   [.integer(device.storeValue), .id(groupID), .integer(placeKey), .bool(inside)])
    }

    func setNotKnownIfAbsent(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
        try db.run("INSERT OR IGNORE INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, 0)",
                   [.integer(device.storeValue), .id(groupID), .integer(placeKey)])
    }

    func removePresence(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
        try db.run("DELETE FROM place_presence WHERE device_key = ? AND group_id = ? AND place_key = ?",
                   [.integer(device.storeValue), .id(groupID), .integer(placeKey)])
    }

    func setBaseline(groupID: GroupID, device: DeviceKey) throws {
        try db.run("INSERT OR IGNORE INTO place_baselines (group_id, device_key) VALUES (?, ?)",
                   [.id(groupID), .integer(device.storeValue)])
    }
}
