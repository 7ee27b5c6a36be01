import GeoKit
import Tracking

/// The rows of a `PlaceArrivalLedger` (`place_presence`, `place_baselines`, one place by key,
/// the sharing devices' latest positions), written once for both stores; each runs inside the
/// append's or the place change's transaction on `db`. Loading a group's places and index cells
/// stays with each store (its own reads and caches on the append's hot path).
///
/// Presence: inside = true, not known = false; under a baseline no row means outside.
public enum PlaceArrivalTables {
    public static func hasBaseline(groupID: GroupID, device: DeviceKey, on db: some SQLExecutor) throws -> Bool {
        try db.firstRow("SELECT 1 FROM place_baselines WHERE group_id = ? AND device_key = ?",
                        [.id(groupID), .integer(device.storeValue)], { _ in true }) == true
    }

    /// Place key → inside (false: not known), for the device in the group.
    public static func presence(groupID: GroupID, device: DeviceKey, on db: some SQLExecutor) throws -> [Int64: Bool] {
        var remembered: [Int64: Bool] = [:]
        for (key, inside) in try db.rows("SELECT place_key, inside FROM place_presence WHERE device_key = ? AND group_id = ?",
                                         [.integer(device.storeValue), .id(groupID)], { (try $0.int64(0), try $0.bool(1)) }) {
            remembered[key] = inside
        }
        return remembered
    }

    /// The place with key `key` through `shapes` (nil when it does not exist or its geometry does not parse).
    public static func place(key: Int64, shapes: PlaceShapeCache, on db: some SQLExecutor) throws -> CachedPlace? {
        guard let row = try db.firstRow("SELECT id, name, revision, geometry, radius FROM places WHERE key = ?", [.integer(key)], {
            (id: try $0.id(0) as PlaceID, name: try $0.text(1), revision: try $0.int64(2), geometry: try $0.text(3), radius: try $0.optionalDouble(4))
        }) else { return nil }
        return try shapes.place(id: row.id, name: row.name, revision: row.revision, geometry: { row.geometry }, radiusMeters: row.radius)
    }

    /// The stored GeoJSON of the place with key `key` ("" when there is none).
    public static func geometry(key: Int64, on db: some SQLExecutor) throws -> String {
        try db.firstRow("SELECT geometry FROM places WHERE key = ?", [.integer(key)]) { try $0.text(0) } ?? ""
    }

    /// The latest position the group may see of each sharing member's device, with
    /// (`baseline`) or without a known state there (`SharedLatest`).
    public static func latestPositions(groupID: GroupID, baseline: Bool,
                                       on db: some SQLExecutor) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)] {
        let windows = try DirectoryTables.sharingWindows(groupID: groupID, on: db)
        let rows = try db.rows("""
            SELECT d.key, d.last_lon, d.last_lat, d.last_ts,
                   (SELECT f.accuracy FROM \(db.dialect.fixesTable) f WHERE f.device_key = d.key AND f.ts = d.last_ts ORDER BY f.seq DESC LIMIT 1),
                   m.user_id, d.history_version
            FROM memberships m JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = ? AND m.share_location = TRUE AND d.last_ts IS NOT NULL
              AND EXISTS (SELECT 1 FROM place_baselines b WHERE b.group_id = m.group_id AND b.device_key = d.key) = ?
            """, [.id(groupID), .bool(baseline)]) { row in
            (key: try row.int64(0), user: try row.id(5, as: UserID.self), version: try row.int64(6),
             last: SharedLatest.Shown(location: LastLocation(position: try row.position(1), timestamp: try row.time(3)),
                                      accuracy: try row.optionalDouble(4)))
        }
        return try rows.compactMap { row in
            guard let fix = try SharedLatestTables.sharedLatest(deviceKey: row.key, last: row.last, windows: windows[row.user] ?? .none,
                                                                version: row.version, on: db) else { return nil }
            return (device: DeviceKey(storeValue: row.key),
                    point: LatLng(degreesLatitude: fix.location.position.latitude, longitude: fix.location.position.longitude).normalized.toPoint(),
                    accuracy: fix.accuracy)
        }
    }

    /// Sets (inserts or replaces) the device's presence in a place.
    public static func setPresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, inside: Bool, on db: some SQLExecutor) throws {
        try db.run("""
            INSERT INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, ?)
            ON CONFLICT (device_key, group_id, place_key) DO UPDATE SET inside = excluded.inside
            """, [.integer(device.storeValue), .id(groupID), .integer(placeKey), .bool(inside)])
    }

    /// Records "not known" unless a presence is recorded already.
    public static func setNotKnownIfAbsent(groupID: GroupID, device: DeviceKey, placeKey: Int64, on db: some SQLExecutor) throws {
        try db.run("""
            INSERT INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, FALSE) ON CONFLICT DO NOTHING
            """, [.integer(device.storeValue), .id(groupID), .integer(placeKey)])
    }

    public static func removePresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, on db: some SQLExecutor) throws {
        try db.run("DELETE FROM place_presence WHERE device_key = ? AND group_id = ? AND place_key = ?",
                   [.integer(device.storeValue), .id(groupID), .integer(placeKey)])
    }

    /// Marks the device's state in the group as known (idempotent).
    public static func setBaseline(groupID: GroupID, device: DeviceKey, on db: some SQLExecutor) throws {
        try db.run("INSERT INTO place_baselines (group_id, device_key) VALUES (?, ?) ON CONFLICT DO NOTHING",
                   [.id(groupID), .integer(device.storeValue)])
    }
}

/// A store's `PlaceArrivalLedger` over `PlaceArrivalTables`: it gets every presence, baseline and
/// position read and write from here by giving its transaction's connection and how it loads a
/// group's places and index cells (its own reads and caches on the append's hot path).
public protocol PlaceArrivalTablesLedger: PlaceArrivalLedger {
    associatedtype Executor: SQLExecutor
    /// The transaction's connection.
    var sql: Executor { get }
    /// Parses the places' shapes (shared by the store).
    var shapes: PlaceShapeCache { get }
    /// The group's places and index cells as this transaction sees them.
    func groupPlaces(_ groupID: GroupID) throws -> GroupPlaces
    /// The groups' places this transaction uses (loaded once each, from the store's copies
    /// when they hold the version it sees).
    var transactionPlaces: TransactionPlaces { get }
}

extension PlaceArrivalTablesLedger {
    /// The copies of groups' places this transaction read from the database: for
    /// `PlaceIndexCache.keep(_:)` once it has committed.
    public var loadedPlaces: LoadedPlaces { transactionPlaces.loaded }

    /// The place with key `key` if this transaction has loaded it already.
    func loadedPlace(key: Int64) -> CachedPlace? { transactionPlaces.place(key: key) }

    /// The stored geometry (GeoJSON text) of the place with key `key`.
    public func geometry(key: Int64) throws -> String { try PlaceArrivalTables.geometry(key: key, on: sql) }

    public func groupHasPlaces(_ groupID: GroupID) throws -> Bool { !(try groupPlaces(groupID).places.isEmpty) }

    public func placeKeys(groupID: GroupID) throws -> Set<Int64> { Set(try groupPlaces(groupID).places.keys) }

    public func placeKeys(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?) throws -> Set<Int64> {
        try groupPlaces(groupID).keys(cells: cells, range: range)
    }

    public func places(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) throws -> [Int64: CachedPlace] {
        try groupPlaces(groupID).places(cells: cells, range: range, including: including)
    }

    public func place(key: Int64) throws -> CachedPlace? {
        if let place = loadedPlace(key: key) { return place }
        return try PlaceArrivalTables.place(key: key, shapes: shapes, on: sql)
    }

    public func hasBaseline(groupID: GroupID, device: DeviceKey) throws -> Bool {
        try PlaceArrivalTables.hasBaseline(groupID: groupID, device: device, on: sql)
    }

    public func presence(groupID: GroupID, device: DeviceKey) throws -> [Int64: Bool] {
        try PlaceArrivalTables.presence(groupID: groupID, device: device, on: sql)
    }

    public func latestPositions(groupID: GroupID, baseline: Bool) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)] {
        try PlaceArrivalTables.latestPositions(groupID: groupID, baseline: baseline, on: sql)
    }

    public func setPresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, inside: Bool) throws {
        try PlaceArrivalTables.setPresence(groupID: groupID, device: device, placeKey: placeKey, inside: inside, on: sql)
    }

    public func setNotKnownIfAbsent(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
        try PlaceArrivalTables.setNotKnownIfAbsent(groupID: groupID, device: device, placeKey: placeKey, on: sql)
    }

    public func removePresence(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
        try PlaceArrivalTables.removePresence(groupID: groupID, device: device, placeKey: placeKey, on: sql)
    }

    public func setBaseline(groupID: GroupID, device: DeviceKey) throws {
        try PlaceArrivalTables.setBaseline(groupID: groupID, device: device, on: sql)
    }
}
