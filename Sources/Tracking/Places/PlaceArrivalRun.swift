import GeoKit
import JSONCore
import Synchronization

/// A place as arrivals need it: its id, name and parsed shape.
public struct CachedPlace: Sendable {
    public let id: PlaceID
    public let name: String
    public let shape: PlaceShape
}

/// Parsed place shapes by place id and geometry revision: places change rarely, and parsing a
/// polygon for every fix would cost more than the rest of the check. Names come fresh from the
/// store. Bounded: cleared when it holds `capacity` shapes (100k places thrashed a 50k cache).
public final class PlaceShapeCache: Sendable {
    private let shapes = Mutex<[PlaceID: (revision: Int64, shape: PlaceShape)]>([:])
    public let capacity: Int

    public init(capacity: Int = 250_000) { self.capacity = capacity }

    /// The place `id` at `revision`; its shape parsed from the stored `geometry` (GeoJSON text,
    /// read only on a miss) and `radiusMeters` unless cached. Nil when the stored geometry does
    /// not parse (it was validated when stored: a bug, skipped rather than failing ingest).
    public func place(id: PlaceID, name: String, revision: Int64, geometry: () throws -> String,
                      radiusMeters: Double?) throws -> CachedPlace? {
        if let cached = shapes.withLock({ $0[id] }), cached.revision == revision {
            return CachedPlace(id: id, name: name, shape: cached.shape)
        }
        guard let parsed = try? JSONParser.parse(Array(try geometry().utf8)),
              let region = try? PlaceRegion.parse(geometry: parsed, radius: radiusMeters.map { .number(JSONNumber($0)) })
        else { return nil }
        let shape = PlaceShape(region: region)
        shapes.withLock { all in
            if all.count >= capacity { all.removeAll(keepingCapacity: true) }
            all[id] = (revision, shape)
        }
        return CachedPlace(id: id, name: name, shape: shape)
    }
}

/// The arrival side of an append and of a place change, the same for every store: which fixes
/// count, which places to check (through the place index), the presence kept, the baseline
/// rule and the `place` events logged. The store supplies a `PlaceArrivalLedger`.
public enum PlaceArrivalRun {
    /// The fixes of an append that count for arrivals: those that became the device's latest
    /// in turn (not older than its latest before the append), in timestamp order; of a backfill
    /// (more than `maxEventsPerAppend`) only its newest.
    public static func freshFixes(_ stored: [StoredFix], previousLatest: Int64?, maxEventsPerAppend: Int) -> [StoredFix] {
        let fresh = stored.filter { stored in previousLatest.map { stored.fix.timestamp >= $0 } ?? true }
            .sorted { ($0.fix.timestamp, $0.sequence) < ($1.fix.timestamp, $1.sequence) }
        return fresh.count > maxEventsPerAppend ? Array(fresh.suffix(1)) : fresh
    }

    /// The `place` events of an append, per group where the device's member shares (only fixes
    /// inside that group's sharing periods count), with the presence they leave recorded.
    public static func entries(deviceID: DeviceID, device: DeviceKey, fresh: [StoredFix], sharing memberships: [DeviceSharing],
                               ledger: some PlaceArrivalLedger) throws -> [(groupID: GroupID, entries: [EventLogEntry])] {
        var result: [(groupID: GroupID, entries: [EventLogEntry])] = []
        for membership in memberships {
            let visible = fresh.filter { membership.windows.contains($0.fix.timestamp) }
            guard !visible.isEmpty, try ledger.groupHasPlaces(membership.groupID) else { continue }
            let positions = visible.map {
                PlaceArrivals.Position(longitude: $0.fix.longitude, latitude: $0.fix.latitude, accuracyMeters: $0.fix.accuracy,
                                       timestamp: $0.fix.timestamp)
            }
            result.append((membership.groupID,
                           try evaluate(positions, deviceID: deviceID, device: device, membership: membership, ledger: ledger)))
        }
        return result
    }

    /// Runs the positions against the group's candidate places and records the outcome.
    static func evaluate(_ positions: [PlaceArrivals.Position], deviceID: DeviceID, device: DeviceKey,
                         membership: DeviceSharing, ledger: some PlaceArrivalLedger) throws -> [EventLogEntry] {
        let groupID = membership.groupID
        let hasBaseline = try ledger.hasBaseline(groupID: groupID, device: device)
        let remembered = try ledger.presence(groupID: groupID, device: device)
        // The places loaded so far (nil: gone, or its geometry does not parse).
        var places: [Int64: CachedPlace?] = [:]
        func place(_ key: Int64) throws -> CachedPlace? {
            if let known = places[key] { return known }
            let loaded = try ledger.place(key: key)
            places.updateValue(loaded, forKey: key)
            return loaded
        }
        let outcome: PlaceArrivals.Outcome<Int64>
        if hasBaseline {
            outcome = try evaluateByRun(positions, groupID: groupID, remembered: remembered, ledger: ledger, places: &places)
        } else {
            // The device's first position in this group: every place is set, silently.
            let candidates = try ledger.placeKeys(groupID: groupID).sorted().compactMap { key in
                try place(key).map { PlaceArrivals.Candidate(key: key, shape: $0.shape, remembered: nil) }
            }
            outcome = PlaceArrivals.evaluate(positions, candidates: candidates)
            try ledger.setBaseline(groupID: groupID, device: device)
            // Places the fixes were too inaccurate for stay "not known" (not outside).
            for candidate in candidates where outcome.presence[candidate.key] == nil {
                try ledger.setNotKnownIfAbsent(groupID: groupID, device: device, placeKey: candidate.key)
            }
        }
        for (key, presence) in outcome.presence {
            if presence == .inside {
                // Already stored as inside (it left and came back within the append): nothing to write.
                if remembered[key] != true { try ledger.setPresence(groupID: groupID, device: device, placeKey: key, inside: true) }
            } else if remembered[key] != nil {
                try ledger.removePresence(groupID: groupID, device: device, placeKey: key)
            }
        }
        return outcome.crossings.compactMap { crossing -> EventLogEntry? in
            guard let place = places[crossing.key] ?? nil else { return nil }
            let position = positions[crossing.position]
            return EventLogEntry(.place(PlaceEvent(
                crossing: crossing.crossing, placeID: place.id, placeName: place.name, deviceID: deviceID, userID: membership.userID,
                timestamp: position.timestamp, longitude: position.longitude, latitude: position.latitude)),
                fix: (device, position.timestamp))
        }
    }

    /// The level of the cell a run of nearby positions stays within (level 13: ~1 km across):
    /// each run looks up its own candidate places, so a long append does not make every place
    /// along its whole track a candidate for every one of its fixes.
    public static let runCellLevel = 13

    /// `positions` split into runs of consecutive positions that stay within one cell at
    /// `runCellLevel` (the cell of each run's first position), in order.
    public static func runs(of positions: [PlaceArrivals.Position]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        while start < positions.count {
            let cell = positions[start].leaf.parent(level: runCellLevel)
            var end = start + 1
            while end < positions.count, cell.contains(positions[end].leaf) { end += 1 }
            runs.append(start..<end)
            start = end
        }
        return runs
    }

    /// `PlaceArrivals.evaluate` over `positions` split into runs of nearby positions, each run
    /// against the places the index finds for it plus every place whose presence is not
    /// "outside" (inside, or not known: those can change anywhere). The same outcome as one
    /// evaluation against all those places for every position: a place remembered outside
    /// changes only at a position inside its covering, and the index finds every such place for
    /// the run of that position.
    ///
    /// `places`: the places loaded so far in this append (nil: gone or not parsable); each run
    /// reads, in one lookup where the store can, its index candidates and those not outside.
    static func evaluateByRun(_ positions: [PlaceArrivals.Position], groupID: GroupID, remembered: [Int64: Bool],
                              ledger: some PlaceArrivalLedger,
                              places: inout [Int64: CachedPlace?]) throws -> PlaceArrivals.Outcome<Int64> {
        // Current presence of the places that are not simply outside (nil: not known).
        var notOutside: [Int64: PlacePresence?] = remembered.mapValues { $0 ? .inside : nil }
        var outcome = PlaceArrivals.Outcome<Int64>()
        for range in runs(of: positions) {
            let run = Array(positions[range])
            var keys = Set(notOutside.keys)
            for lookup in indexLookups(leaves: run.map(\.leaf)) {
                let unloaded = keys.filter { places[$0] == nil }
                let found = try ledger.places(groupID: groupID, cells: lookup.cells, range: lookup.range, including: unloaded)
                for (key, place) in found { places[key] = .some(place) }
                for key in unloaded where found[key] == nil { places.updateValue(nil, forKey: key) }
                keys.formUnion(found.keys)
            }
            let candidates = keys.sorted().compactMap { key in
                (places[key] ?? nil).map { PlaceArrivals.Candidate(key: key, shape: $0.shape, remembered: notOutside[key] ?? .outside) }
            }
            let step = PlaceArrivals.evaluate(run, candidates: candidates)
            for (key, presence) in step.presence {
                outcome.presence[key] = presence
                if presence == .outside { notOutside.removeValue(forKey: key) } else { notOutside[key] = .some(presence) }
            }
            outcome.crossings += step.crossings.map {
                PlaceArrivals.Crossing(key: $0.key, crossing: $0.crossing, position: $0.position + range.lowerBound)
            }
        }
        return outcome
    }

    /// Keys of the group's places whose covering may contain one of `leaves` (`indexLookups`).
    public static func candidateKeys(groupID: GroupID, leaves: [CellID], ledger: some PlaceArrivalLedger) throws -> Set<Int64> {
        try indexLookups(leaves: leaves).reduce(into: Set<Int64>()) {
            $0.formUnion(try ledger.placeKeys(groupID: groupID, cells: $1.cells, range: $1.range))
        }
    }

    /// The place-index lookups that find every place whose covering may contain one of
    /// `leaves`: index cells that contain the leaves' smallest common cell (its ancestors at the
    /// index levels), plus index cells inside that cell (a range, only when it is coarser than
    /// the finest index level). Leaves on different faces fall back to one lookup per leaf.
    static func indexLookups(leaves: [CellID]) -> [(cells: [Int64], range: ClosedRange<Int64>?)] {
        guard let common = PlaceShape.commonAncestor(of: leaves) else {
            return leaves.count > 1 ? leaves.flatMap { indexLookups(leaves: [$0]) } : []
        }
        let probes = PlaceShape.probeCells(containing: common).map(\.int64Key)
        var range: ClosedRange<Int64>?
        if let finest = PlaceShape.indexLevels.last, common.level < finest { range = common.rangeMin.int64Key...common.rangeMax.int64Key }
        guard !probes.isEmpty || range != nil else { return [] }
        return [(probes, range)]
    }

    /// Sets every known device's presence in a new (or reshaped) place from its latest
    /// location, without events: no `enter` for a car that was already parked there. Devices of
    /// sharing members whose state in the group is not known yet get it for every place of the
    /// group at once (a baseline), also silently.
    public static func setSilently(placeKey: Int64, groupID: GroupID, shape: PlaceShape, ledger: some PlaceArrivalLedger) throws {
        for device in try ledger.latestPositions(groupID: groupID, baseline: true) {
            let step = PlaceTransition.evaluate(region: shape.region, remembered: nil, point: device.point, accuracyMeters: device.accuracy)
            try remember(step.presence, device: device.device, groupID: groupID, placeKey: placeKey, ledger: ledger)
        }
        let unknown = try ledger.latestPositions(groupID: groupID, baseline: false)
        guard !unknown.isEmpty else { return }
        let places = try ledger.placeKeys(groupID: groupID).sorted().compactMap { key in
            try ledger.place(key: key).map { (key: key, shape: $0.shape) }
        }
        for device in unknown {
            try ledger.setBaseline(groupID: groupID, device: device.device)
            for place in places {
                let step = PlaceTransition.evaluate(region: place.shape.region, remembered: nil, point: device.point, accuracyMeters: device.accuracy)
                try remember(step.presence, device: device.device, groupID: groupID, placeKey: place.key, ledger: ledger)
            }
        }
    }

    /// A silently set presence: inside → inside, not settable (inaccurate) → not known, outside → nothing.
    private static func remember(_ presence: PlacePresence?, device: DeviceKey, groupID: GroupID, placeKey: Int64,
                                 ledger: some PlaceArrivalLedger) throws {
        guard presence != .outside else { return }
        try ledger.setPresence(groupID: groupID, device: device, placeKey: placeKey, inside: presence == .inside)
    }
}
