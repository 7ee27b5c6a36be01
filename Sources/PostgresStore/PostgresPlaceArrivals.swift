import GeoKit
import JSONCore
import PostgresClient
import Synchronization
import Timestamps
import Tracking

/// The store's side of arrivals (as the SQLite store's `PlaceArrivalStore`): finds the places a
/// device's new positions may concern through the place index, runs `PlaceArrivals`, remembers
/// presence and logs `place` events, all inside the append's transaction.
///
/// Presence rows (`place_presence`): inside = true, not known = false; under a baseline
/// (`place_baselines`: the device's state in the group is known) no row means outside.
enum PostgresPlaceArrivals {
    /// Sets every known device's presence in a new (or reshaped) place from its latest
    /// location, without events; devices of sharing members whose state in the group is not
    /// known yet get it for every place of the group at once (a baseline), also silently.
    static func setSilently(placeKey: Int64, groupID: GroupID, shape: PlaceShape, on c: Connection) throws {
        for device in try latestPositions(groupID: groupID, baseline: true, on: c) {
            let step = PlaceTransition.evaluate(region: shape.region, remembered: nil, point: device.point, accuracyMeters: device.accuracy)
            try remember(step.presence, deviceKey: device.key, groupID: groupID, placeKey: placeKey, on: c)
        }
        let unknown = try latestPositions(groupID: groupID, baseline: false, on: c)
        guard !unknown.isEmpty else { return }
        let places = try c.rows("SELECT key, geometry, radius FROM places WHERE group_id = $1", [.id(groupID)]) { row in
            (key: try row.int64(0), geometry: try row.text(1), radius: try row.optionalDouble(2))
        }.compactMap { row -> (key: Int64, shape: PlaceShape)? in
            guard let geometry = try? JSONParser.parse(Array(row.geometry.utf8)),
                  let region = try? PlaceRegion.parse(geometry: geometry, radius: row.radius.map { .number(JSONNumber($0)) })
            else { return nil }
            return (row.key, PlaceShape(region: region))
        }
        for device in unknown {
            try c.run("INSERT INTO place_baselines (group_id, device_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                      [.id(groupID), .int64(device.key)])
            for place in places {
                let step = PlaceTransition.evaluate(region: place.shape.region, remembered: nil, point: device.point, accuracyMeters: device.accuracy)
                try remember(step.presence, deviceKey: device.key, groupID: groupID, placeKey: place.key, on: c)
            }
        }
    }

    /// Stores a silently set presence: inside → true, not settable (inaccurate) → false, outside → no row.
    private static func remember(_ presence: PlacePresence?, deviceKey: Int64, groupID: GroupID, placeKey: Int64, on c: Connection) throws {
        guard presence != .outside else { return }
        try setPresence(inside: presence == .inside, deviceKey: deviceKey, groupID: groupID, placeKey: placeKey, on: c)
    }

    private static func setPresence(inside: Bool, deviceKey: Int64, groupID: GroupID, placeKey: Int64, on c: Connection) throws {
        try c.run("""
            INSERT INTO place_presence (device_key, group_id, place_key, inside) VALUES ($1, $2, $3, $4)
            ON CONFLICT (device_key, group_id, place_key) DO UPDATE SET inside = excluded.inside
            """, [.int64(deviceKey), .id(groupID), .int64(placeKey), .bool(inside)])
    }

    /// The latest positions of the devices of members sharing in the group, with (`baseline`)
    /// or without a known state there.
    private static func latestPositions(groupID: GroupID, baseline: Bool, on c: Connection) throws
        -> [(key: Int64, point: S2Point, accuracy: Double?)] {
        try c.rows("""
            SELECT d.key, d.last_lon, d.last_lat,
                   (SELECT accuracy FROM fixes f WHERE f.device_key = d.key AND f.ts = d.last_ts ORDER BY seq DESC LIMIT 1)
            FROM memberships m JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = $1 AND m.share_location AND d.last_ts IS NOT NULL
              AND EXISTS (SELECT 1 FROM place_baselines b WHERE b.group_id = m.group_id AND b.device_key = d.key) = $2
            """, [.id(groupID), .bool(baseline)]) { row in
            (key: try row.int64(0), point: LatLng(degreesLatitude: try row.double(2), longitude: try row.double(1)).normalized.toPoint(),
             accuracy: try row.optionalDouble(3))
        }
    }

    /// The `place` events of an append (and the presence they leave), for every group where the
    /// device's member shares. `fresh` are the stored fixes that became the device's latest in
    /// turn (timestamp order); only those inside a group's sharing periods count there.
    static func events(deviceID: DeviceID, deviceKey: Int64, fresh: [StoredFix], sharing memberships: [DeviceSharing],
                       shapes: PostgresPlaceShapeCache, on c: Connection) throws -> [GroupEvent] {
        var events: [GroupEvent] = []
        for membership in memberships {
            let visible = fresh.filter { membership.windows.contains($0.fix.timestamp) }
            guard !visible.isEmpty,
                  try c.firstRow("SELECT 1 FROM places WHERE group_id = $1 LIMIT 1", [.id(membership.groupID)], { _ in true }) == true
            else { continue }
            let positions = visible.map {
                PlaceArrivals.Position(longitude: $0.fix.longitude, latitude: $0.fix.latitude, accuracyMeters: $0.fix.accuracy,
                                       timestamp: $0.fix.timestamp)
            }
            let entries = try evaluate(positions, deviceID: deviceID, deviceKey: deviceKey, membership: membership, shapes: shapes, on: c)
            events += try PostgresStore.appendEvents(groupID: membership.groupID, entries, on: c)
        }
        return events
    }

    /// Runs the positions against the group's candidate places and applies the outcome.
    static func evaluate(_ positions: [PlaceArrivals.Position], deviceID: DeviceID, deviceKey: Int64,
                         membership: DeviceSharing, shapes: PostgresPlaceShapeCache, on c: Connection) throws -> [EventLogEntry] {
        let groupID = membership.groupID
        let hasBaseline = try c.firstRow("SELECT 1 FROM place_baselines WHERE group_id = $1 AND device_key = $2",
                                         [.id(groupID), .int64(deviceKey)], { _ in true }) == true
        var remembered: [Int64: Bool] = [:]   // place key → inside (false: not known yet)
        for row in try c.queryPrepared("SELECT place_key, inside FROM place_presence WHERE device_key = $1 AND group_id = $2",
                                       [.int64(deviceKey), .id(groupID)]).rows {
            remembered[try row.int64(0)] = try row.bool(1)
        }
        let keys: Set<Int64>
        if hasBaseline {
            keys = try candidateKeys(groupID: groupID, leaves: positions.map(\.leaf), on: c).union(remembered.keys)
        } else {
            // The device's first position in this group: every place is set, silently.
            keys = Set(try c.rows("SELECT key FROM places WHERE group_id = $1", [.id(groupID)]) { try $0.int64(0) })
        }
        var places: [Int64: PostgresCachedPlace] = [:]
        var candidates: [PlaceArrivals.Candidate<Int64>] = []
        for key in keys.sorted() {
            guard let place = try shapes.place(key: key, on: c) else { continue }
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
                try setPresence(inside: true, deviceKey: deviceKey, groupID: groupID, placeKey: key, on: c)
            } else if remembered[key] != nil {
                try c.run("DELETE FROM place_presence WHERE device_key = $1 AND group_id = $2 AND place_key = $3",
                          [.int64(deviceKey), .id(groupID), .int64(key)])
            }
        }
        if !hasBaseline {
            try c.run("INSERT INTO place_baselines (group_id, device_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                      [.id(groupID), .int64(deviceKey)])
            // Places the fixes were too inaccurate for stay "not known" (not outside).
            for candidate in candidates where outcome.presence[candidate.key] == nil {
                try c.run("""
                    INSERT INTO place_presence (device_key, group_id, place_key, inside) VALUES ($1, $2, $3, false) ON CONFLICT DO NOTHING
                    """, [.int64(deviceKey), .id(groupID), .int64(candidate.key)])
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
    /// contain the leaves' smallest common cell (its ancestors at the index levels), plus index
    /// cells inside that cell (one range scan, only when it is coarser than the finest index
    /// level). Leaves on different faces fall back to one lookup per leaf.
    static func candidateKeys(groupID: GroupID, leaves: [CellID], on c: Connection) throws -> Set<Int64> {
        guard let common = PlaceShape.commonAncestor(of: leaves) else {
            return try leaves.reduce(into: Set<Int64>()) { $0.formUnion(try candidateKeys(groupID: groupID, leaves: [$1], on: c)) }
        }
        var keys = Set<Int64>()
        let probes = PlaceShape.probeCells(containing: common)
        if !probes.isEmpty {
            for row in try c.queryPrepared("SELECT place_key FROM place_cells WHERE group_id = $1 AND cell = ANY($2::bigint[])",
                                           [.id(groupID), .int64Array(probes.map(\.int64Key))]).rows {
                keys.insert(try row.int64(0))
            }
        }
        if let finest = PlaceShape.indexLevels.last, common.level < finest {
            for row in try c.queryPrepared("SELECT place_key FROM place_cells WHERE group_id = $1 AND cell BETWEEN $2 AND $3",
                                           [.id(groupID), .int64(common.rangeMin.int64Key), .int64(common.rangeMax.int64Key)]).rows {
                keys.insert(try row.int64(0))
            }
        }
        return keys
    }
}

/// A place as arrivals need it: its id, name and parsed shape.
struct PostgresCachedPlace: Sendable {
    let id: PlaceID
    let name: String
    let shape: PlaceShape
}

/// Parsed place shapes, by place id and geometry revision (`places.revision`, the same on every
/// node): parsing a polygon for every fix would cost more than the rest of the check. Names are
/// read fresh. Bounded: cleared when it holds `capacity` shapes.
final class PostgresPlaceShapeCache: Sendable {
    private let shapes = Mutex<[PlaceID: (revision: Int64, shape: PlaceShape)]>([:])
    let capacity: Int

    init(capacity: Int = 50_000) { self.capacity = capacity }

    /// The place with key `key`, nil when it does not exist (or its stored geometry no longer
    /// parses, a bug: skipped rather than failing ingest).
    func place(key: Int64, on c: Connection) throws -> PostgresCachedPlace? {
        guard let row = try c.queryPrepared("SELECT id, name, revision, geometry, radius FROM places WHERE key = $1", [.int64(key)]).first
        else { return nil }
        let id: PlaceID = try row.id(0)
        let name = try row.text(1)
        let revision = try row.int64(2)
        if let cached = shapes.withLock({ $0[id] }), cached.revision == revision {
            return PostgresCachedPlace(id: id, name: name, shape: cached.shape)
        }
        let place = Place(id: id, groupID: GroupID(""), name: name,
                          geometry: (try? JSONParser.parse(Array(try row.text(3).utf8))) ?? .null,
                          radiusMeters: try row.optionalDouble(4), createdBy: UserID(""), createdAt: 0, updatedAt: 0)
        guard let shape = try? place.shape() else { return nil }
        shapes.withLock { all in
            if all.count >= capacity { all.removeAll(keepingCapacity: true) }
            all[id] = (revision, shape)
        }
        return PostgresCachedPlace(id: id, name: name, shape: shape)
    }
}
