import GeoKit

/// The arrival rule applied to the fixes of one append, for one device in one group: each fix
/// that becomes the device's latest location, in timestamp order, is compared with the places
/// the store found for it (`PlaceTransition` for each), carrying the remembered presence from
/// fix to fix. Pure: the store supplies candidates and remembered state and applies the result.
public enum PlaceArrivals {
    /// One fix to evaluate (already known to become the device's latest, inside the member's
    /// sharing periods).
    public struct Position: Sendable {
        public let point: S2Point
        /// The fix's leaf cell (its place-index key).
        public let leaf: CellID
        /// Meters (nil: unknown, treated as exact).
        public let accuracyMeters: Double?
        /// Milliseconds since 1970 UTC.
        public let timestamp: Int64
        public let longitude: Double
        public let latitude: Double

        public init(longitude: Double, latitude: Double, accuracyMeters: Double?, timestamp: Int64) {
            point = LatLng(degreesLatitude: latitude, longitude: longitude).normalized.toPoint()
            // The same leaf as CellID(latLng), without computing the point a second time.
            leaf = CellID(point)
            self.accuracyMeters = accuracyMeters
            self.timestamp = timestamp
            self.longitude = longitude
            self.latitude = latitude
        }
    }

    /// A place to check, with what the server remembers of the device's presence in it.
    public struct Candidate<Key: Hashable & Sendable>: Sendable {
        public let key: Key
        public let shape: PlaceShape
        /// nil: not known (the device's first position in this group, or a place whose state
        /// could not be set yet).
        public let remembered: PlacePresence?

        public init(key: Key, shape: PlaceShape, remembered: PlacePresence?) {
            self.key = key
            self.shape = shape
            self.remembered = remembered
        }
    }

    /// A crossing to log: which place, which way, at which of the positions.
    public struct Crossing<Key: Hashable & Sendable>: Sendable {
        public let key: Key
        public let crossing: PlaceCrossing
        public let position: Int
    }

    public struct Outcome<Key: Hashable & Sendable>: Sendable {
        /// The presence to remember after the append, for places whose presence was set or changed.
        public var presence: [Key: PlacePresence] = [:]
        /// Crossings in position order (and candidate order within a position).
        public var crossings: [Crossing<Key>] = []
    }

    /// Runs `positions` (timestamp order) against `candidates`.
    public static func evaluate<Key>(_ positions: [Position], candidates: [Candidate<Key>]) -> Outcome<Key> {
        var outcome = Outcome<Key>()
        var found: [(crossing: Crossing<Key>, candidate: Int)] = []
        for (candidateIndex, candidate) in candidates.enumerated() {
            var remembered = candidate.remembered
            for (index, position) in positions.enumerated() {
                // Outside the covering is surely outside: nothing changes for a device known to be outside.
                if remembered == .outside && !candidate.shape.mayContain(position.leaf) { continue }
                let step = PlaceTransition.evaluate(region: candidate.shape.region, remembered: remembered,
                                                    point: position.point, accuracyMeters: position.accuracyMeters)
                if let presence = step.presence, presence != remembered {
                    remembered = presence
                    outcome.presence[candidate.key] = presence
                }
                if let crossing = step.crossing {
                    found.append((Crossing(key: candidate.key, crossing: crossing, position: index), candidateIndex))
                }
            }
        }
        outcome.crossings = found.sorted { ($0.crossing.position, $0.candidate) < ($1.crossing.position, $1.candidate) }.map { $0.crossing }
        return outcome
    }
}
