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
/// With an `index` (appends), the group's places and their index cells are read once per
/// version of them (`place_versions`, schema 12) and the candidate lookups are answered from
/// memory; without one (place changes, which change what would be cached) every read is SQL.
struct PlaceArrivalStore: PlaceArrivalLedger {
    let db: Database
    let shapes: PlaceShapeCache
    /// The groups' places this transaction uses; nil: every read is SQL.
    private let read: TransactionPlaces?

    init(db: Database, shapes: PlaceShapeCache, index: PlaceIndexCache? = nil) {
        self.db = db
        self.shapes = shapes
        read = index.map(TransactionPlaces.init)
    }

    /// The group's places at their current version (nil without an index). In a transaction
    /// of the single writer, the version and the rows read next are one state.
    private func groupPlaces(_ groupID: GroupID) throws -> GroupPlaces? {
        guard let read else { return nil }
        var version: Int64 = 0
        return try read.places(groupID: groupID, version: {
            version = try db.firstRow("SELECT version FROM place_versions WHERE group_id = ?", [.id(groupID)]) { $0.int64(0) } ?? 0
            return version
        }) {
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

    private func geometry(key: Int64) throws -> String {
        try db.firstRow("SELECT geometry FROM places WHERE key = ?", [.integer(key)]) { $0.string(0) } ?? ""
    }

    func groupHasPlaces(_ groupID: GroupID) throws -> Bool {
        if let group = try groupPlaces(groupID) { return !group.places.isEmpty }
        return try db.firstRow("SELECT 1 FROM places WHERE group_id = ? LIMIT 1", [.id(groupID)], { _ in true }) == true
    }

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

    func placeKeys(groupID: GroupID) throws -> Set<Int64> {
        if let group = try groupPlaces(groupID) { return Set(group.places.keys) }
        return Set(try db.rows("SELECT key FROM places WHERE group_id = ?", [.id(groupID)]) { $0.int64(0) })
    }

    func placeKeys(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?) throws -> Set<Int64> {
        if let group = try groupPlaces(groupID) { return group.keys(cells: cells, range: range) }
        let lookup = Self.candidateKeys(groupID, cells, range)
        guard !lookup.selects.isEmpty else { return [] }
        var keys = Set<Int64>()
        try db.forEachRow(lookup.selects.joined(separator: " UNION ALL "), lookup.arguments) { keys.insert($0.int64(0)) }
        return keys
    }

    func place(key: Int64) throws -> CachedPlace? {
        if let place = read?.place(key: key) { return place }
        let statement = try db.prepare("SELECT id, name, revision, geometry, radius FROM places WHERE key = ?")
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        guard try statement.step() else { return nil }
        return try shapes.place(id: statement.id(0), name: statement.string(1), revision: statement.int64(2),
                                geometry: { statement.string(3) }, radiusMeters: statement.optionalDouble(4))
    }

    /// One statement: the candidates' rows (their geometry read only for a shape not cached).
    func places(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) throws -> [Int64: CachedPlace] {
        if let group = try groupPlaces(groupID) { return group.places(cells: cells, range: range, including: including) }
        var lookup = Self.candidateKeys(groupID, cells, range)
        if !including.isEmpty {
            lookup.selects.append("VALUES \(Array(repeating: "(?)", count: including.count).joined(separator: ", "))")
            lookup.arguments += including.sorted().map { SQLValue.integer($0) }
        }
        guard !lookup.selects.isEmpty else { return [:] }
        var rows: [(key: Int64, id: PlaceID, name: String, revision: Int64, radius: Double?)] = []
        // `+group_id`: the rows are found by key; the group is only checked.
        try db.forEachRow("""
            SELECT key, id, name, revision, radius FROM places
            WHERE key IN (\(lookup.selects.joined(separator: " UNION ALL "))) AND +group_id = ?
            """, lookup.arguments + [.id(groupID)]) { row in
            rows.append((row.int64(0), row.id(1), row.string(2), row.int64(3), row.optionalDouble(4)))
        }
        var found: [Int64: CachedPlace] = [:]
        for row in rows {
            let place = try shapes.place(id: row.id, name: row.name, revision: row.revision,
                                         geometry: { try geometry(key: row.key) }, radiusMeters: row.radius)
            if let place { found[row.key] = place }
        }
        return found
    }

    /// The place-index lookup both candidate reads share: selects of the keys of the group's
    /// places with an index cell among `cells` or in `range` (none when both are empty).
    private static func candidateKeys(_ groupID: GroupID, _ cells: [Int64],
                                      _ range: ClosedRange<Int64>?) -> (selects: [String], arguments: [SQLValue]) {
        var lookup: (selects: [String], arguments: [SQLValue]) = ([], [])
        if !cells.isEmpty {
            let marks = Array(repeating: "?", count: cells.count).joined(separator: ", ")
            lookup.selects.append("SELECT place_key FROM place_cells WHERE group_id = ? AND cell IN (\(marks))")
            lookup.arguments += [.id(groupID)] + cells.map { SQLValue.integer($0) }
        }
        if let range {
            lookup.selects.append("SELECT place_key FROM place_cells WHERE group_id = ? AND cell BETWEEN ? AND ?")
            lookup.arguments += [.id(groupID), .integer(range.lowerBound), .integer(range.upperBound)]
        }
        return lookup
    }

    func latestPositions(groupID: GroupID, baseline: Bool) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)] {
        try db.rows("""
            SELECT d.key, d.last_lon, d.last_lat,
                   (SELECT accuracy FROM locations l WHERE l.device_key = d.key AND l.ts = d.last_ts ORDER BY seq DESC LIMIT 1)
            FROM memberships m JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = ? AND m.share_location = 1 AND d.last_ts IS NOT NULL
              AND EXISTS (SELECT 1 FROM place_baselines b WHERE b.group_id = m.group_id AND b.device_key = d.key) = ?
            """, [.id(groupID), .bool(baseline)]) { row in
            (device: DeviceKey(storeValue: row.int64(0)),
             point: LatLng(degreesLatitude: row.double(2), longitude: row.double(1)).normalized.toPoint(),
             accuracy: row.optionalDouble(3))
        }
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
