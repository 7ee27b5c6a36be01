import Tracking
import GeoKit
import LocationFormats
import JSONCore
import Storage
import Synchronization
import Timestamps

/// The store's side of arrivals: finds the places a device's new positions may concern
/// through the place index, runs `PlaceArrivals`, remembers presence and logs `place` events,
/// all inside the append's transaction.
///
/// Presence rows (`place_presence`): inside = 1, not known = 0; under a baseline
/// (`place_baselines`: the device's state in the group is known) no row means outside.
enum PlaceArrivalStore {
    /// Sets every known device's presence in a new (or reshaped) place from its latest
    /// location, without events: no `enter` for a car that was already parked there. Devices of
    /// sharing members whose state in the group is not known yet get it for every place of
    /// the group at once (a baseline), also silently.
    static func setSilently(placeKey: Int64, groupID: GroupID, shape: PlaceShape, in db: Database) throws {
        for device in try latestPositions(groupID: groupID, baseline: true, in: db) {
            let step = PlaceTransition.evaluate(region: shape.region, remembered: nil, point: device.point, accuracyMeters: device.accuracy)
            try remember(step.presence, deviceKey: device.key, groupID: groupID, placeKey: placeKey, in: db)
        }
        let unknown = try latestPositions(groupID: groupID, baseline: false, in: db)
        guard !unknown.isEmpty else { return }
        let places = try db.rows("SELECT key, geometry, radius FROM places WHERE group_id = ?", [.id(groupID)]) { row in
            (key: row.int64(0), geometry: row.string(1), radius: row.optionalDouble(2))
        }.compactMap { row -> (key: Int64, shape: PlaceShape)? in
            guard let geometry = try? JSONParser.parse(Array(row.geometry.utf8)),
                  let region = try? PlaceRegion.parse(geometry: geometry, radius: row.radius.map { .number(JSONNumber($0)) })
            else { return nil }
            return (row.key, PlaceShape(region: region))
        }
        for device in unknown {
            try db.run("INSERT OR IGNORE INTO place_baselines (group_id, device_key) VALUES (?, ?)", [.id(groupID), .integer(device.key)])
            for place in places {
                let step = PlaceTransition.evaluate(region: place.shape.region, remembered: nil, point: device.point, accuracyMeters: device.accuracy)
                try remember(step.presence, deviceKey: device.key, groupID: groupID, placeKey: place.key, in: db)
            }
        }
    }

    /// Stores a silently set presence: inside → 1, not settable (inaccurate) → 0, outside → no row.
    private static func remember(_ presence: PlacePresence?, deviceKey: Int64, groupID: GroupID, placeKey: Int64, in db: Database) throws {
        guard presence != .outside else { return }
        try db.run("INSERT OR REPLACE INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, ?)",
                   [.integer(deviceKey), .id(groupID), .integer(placeKey), .bool(presence == .inside)])
    }

    /// The latest positions of the devices of members sharing in the group, with (`baseline`)
    /// or without a known state there.
    private static func latestPositions(groupID: GroupID, baseline: Bool, in db: Database) throws
        -> [(key: Int64, point: S2Point, accuracy: Double?)] {
        try db.rows("""
            SELECT d.key, d.last_lon, d.last_lat,
                   (SELECT accuracy FROM locations l WHERE l.device_key = d.key AND l.ts = d.last_ts ORDER BY seq DESC LIMIT 1)
            FROM memberships m JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = ? AND m.share_location = 1 AND d.last_ts IS NOT NULL
              AND EXISTS (SELECT 1 FROM place_baselines b WHERE b.group_id = m.group_id AND b.device_key = d.key) = ?
            """, [.id(groupID), .bool(baseline)]) { row in
            (key: row.int64(0), point: LatLng(degreesLatitude: row.double(2), longitude: row.double(1)).normalized.toPoint(),
             accuracy: row.optionalDouble(3))
        }
    }

    /// The `place` events of an append (and the presence they leave), for every group where the
    /// device's member shares. `fresh` are the stored fixes that became the device's latest in
    /// turn (timestamp order); only those inside a group's sharing periods count there.
    static func events(deviceID: DeviceID, deviceKey: Int64, fresh: [StoredFix], sharing memberships: [DeviceSharing],
                       shapes: PlaceShapeCache, in db: Database) throws -> [GroupEvent] {
        var events: [GroupEvent] = []
        for membership in memberships {
            let visible = fresh.filter { membership.windows.contains($0.fix.timestamp) }
            guard !visible.isEmpty,
                  try db.firstRow("SELECT 1 FROM places WHERE group_id = ? LIMIT 1", [.id(membership.groupID)], { _ in true }) == true
            else { continue }
            let positions = visible.map {
                PlaceArrivals.Position(longitude: $0.fix.longitude, latitude: $0.fix.latitude, accuracyMeters: $0.fix.accuracy,
                                       timestamp: $0.fix.timestamp)
            }
            let entries = try evaluate(positions, deviceID: deviceID, deviceKey: deviceKey, membership: membership, shapes: shapes, in: db)
            events += try SQLiteBackend.appendEvents(groupID: membership.groupID, entries, in: db)
        }
        return events
    }

    /// Runs the positions against the group's candidate places and applies the outcome.
    static func evaluate(_ positions: [PlaceArrivals.Position], deviceID: DeviceID, deviceKey: Int64,
                         membership: DeviceSharing, shapes: PlaceShapeCache, in db: Database) throws -> [EventLogEntry] {
        let groupID = membership.groupID
        let hasBaseline = try db.firstRow("SELECT 1 FROM place_baselines WHERE group_id = ? AND device_key = ?",
                                          [.id(groupID), .integer(deviceKey)], { _ in true }) == true
        var remembered: [Int64: Bool] = [:]   // place key → inside (false: not known yet)
        try db.forEachRow("SELECT place_key, inside FROM place_presence WHERE device_key = ? AND group_id = ?",
                          [.integer(deviceKey), .id(groupID)]) { remembered[$0.int64(0)] = $0.bool(1) }
        let keys: Set<Int64>
        if hasBaseline {
            keys = try candidateKeys(groupID: groupID, leaves: positions.map(\.leaf), in: db).union(remembered.keys)
        } else {
            // The device's first position in this group: every place is set, silently.
            keys = Set(try db.rows("SELECT key FROM places WHERE group_id = ?", [.id(groupID)]) { $0.int64(0) })
        }
        var places: [Int64: CachedPlace] = [:]
        var candidates: [PlaceArrivals.Candidate<Int64>] = []
        for key in keys.sorted() {
            guard let place = try shapes.place(key: key, in: db) else { continue }
            places[key] = place
            let presence: PlacePresence?
            if !hasBaseline {
                presence = nil
            } else if let inside = remembered[key] {
                presence = inside ? .inside : nil
            } else {
                presence = .outside
            }
            candidates.append(PlaceArrivals.Candidate(key: key, shape: place.shape, remembered: presence))
        }
        let outcome = PlaceArrivals.evaluate(positions, candidates: candidates)
        for (key, presence) in outcome.presence {
            if presence == .inside {
                try db.run("INSERT OR REPLACE INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, 1)",
                           [.integer(deviceKey), .id(groupID), .integer(key)])
            } else if remembered[key] != nil {
                try db.run("DELETE FROM place_presence WHERE device_key = ? AND group_id = ? AND place_key = ?",
                           [.integer(deviceKey), .id(groupID), .integer(key)])
            }
        }
        if !hasBaseline {
            try db.run("INSERT INTO place_baselines (group_id, device_key) VALUES (?, ?)", [.id(groupID), .integer(deviceKey)])
            // Places the fixes were too inaccurate for stay "not known" (not outside).
            for candidate in candidates where outcome.presence[candidate.key] == nil {
                try db.run("INSERT OR IGNORE INTO place_presence (device_key, group_id, place_key, inside) VALUES (?, ?, ?, 0)",
                           [.integer(deviceKey), .id(groupID), .integer(candidate.key)])
            }
        }
        return outcome.crossings.compactMap { crossing -> EventLogEntry? in
            guard let place = places[crossing.key] else { return nil }
            let position = positions[crossing.position]
            return EventLogEntry(kind: .place, userID: membership.userID, data: EventPayload.place(
                crossing.crossing, placeID: place.id, placeName: place.name, deviceID: deviceID, userID: membership.userID,
                longitude: position.longitude, latitude: position.latitude,
                timestamp: Timestamp.rfc3339(millisecondsSince1970: position.timestamp)),
                fix: (DeviceKey(storeValue: deviceKey), position.timestamp))
        }
    }

    /// Keys of the group's places whose covering may contain one of `leaves`: index cells that
    /// contain the leaves' smallest common cell (its ancestors at the index levels, one probe
    /// each), plus index cells inside that cell (one range scan, only when it is coarser than
    /// the finest index level). Leaves on different faces fall back to one probe per leaf.
    static func candidateKeys(groupID: GroupID, leaves: [CellID], in db: Database) throws -> Set<Int64> {
        guard let common = PlaceShape.commonAncestor(of: leaves) else {
            return try leaves.reduce(into: Set<Int64>()) { $0.formUnion(try candidateKeys(groupID: groupID, leaves: [$1], in: db)) }
        }
        var keys = Set<Int64>()
        let probes = PlaceShape.probeCells(containing: common)
        if !probes.isEmpty {
            let marks = Array(repeating: "?", count: probes.count).joined(separator: ", ")
            let arguments: [SQLValue] = [.id(groupID)] + probes.map { SQLValue.integer($0.int64Key) }
            try db.forEachRow("SELECT place_key FROM place_cells WHERE group_id = ? AND cell IN (\(marks))", arguments) {
                keys.insert($0.int64(0))
            }
        }
        if let finest = PlaceShape.indexLevels.last, common.level < finest {
            try db.forEachRow("SELECT place_key FROM place_cells WHERE group_id = ? AND cell BETWEEN ? AND ?",
                              [.id(groupID), .integer(common.rangeMin.int64Key), .integer(common.rangeMax.int64Key)]) {
                keys.insert($0.int64(0))
            }
        }
        return keys
    }
}

/// A place as arrivals need it: its id, name and parsed shape.
struct CachedPlace: Sendable {
    let id: PlaceID
    let name: String
    let shape: PlaceShape
}

/// Parsed place shapes, by place id and geometry revision: places change rarely, and parsing a
/// polygon for every fix would cost more than the rest of the check. Names are read fresh.
/// Bounded: cleared when it holds `capacity` shapes.
final class PlaceShapeCache: Sendable {
    private let shapes = Mutex<[PlaceID: (revision: Int64, shape: PlaceShape)]>([:])
    let capacity: Int

    init(capacity: Int = 250_000) { self.capacity = capacity }

    /// The place with key `key`, nil when it does not exist. Its stored geometry was validated
    /// when stored; one that no longer parses (a bug) is skipped rather than failing ingest.
    func place(key: Int64, in db: Database) throws -> CachedPlace? {
        let statement = try db.prepare("SELECT id, name, revision, geometry, radius FROM places WHERE key = ?")
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        guard try statement.step() else { return nil }
        let id: PlaceID = statement.id(0)
        let revision = statement.int64(2)
        if let cached = shapes.withLock({ $0[id] }), cached.revision == revision {
            return CachedPlace(id: id, name: statement.string(1), shape: cached.shape)
        }
        let place = Place(id: id, groupID: GroupID(""), name: statement.string(1),
                          geometry: (try? JSONParser.parse(Array(statement.string(3).utf8))) ?? .null,
                          radiusMeters: statement.optionalDouble(4), createdBy: UserID(""), createdAt: 0, updatedAt: 0)
        guard let shape = try? place.shape() else { return nil }
        shapes.withLock { all in
            if all.count >= capacity { all.removeAll(keepingCapacity: true) }
            all[id] = (revision, shape)
        }
        return CachedPlace(id: id, name: place.name, shape: shape)
    }
}
