import GeoKit

/// The nearest populated place to a point, within a radius (20 km by default), from our own cell
/// index: every place's leaf cell id in one sorted array, searched at the cell level whose cells
/// are at least `maxRadius` wide.
///
/// A query looks at the query point's cell at that level and its (up to 8) neighbours: any point
/// within `maxRadius` of the query lies in one of them, because reaching a cell beyond them
/// means crossing a whole neighbour, at least `maxRadius` wide. Each of those cells is a
/// contiguous range of leaf ids (binary search), and candidates are compared by chord length, so
/// the answer is exactly the brute-force nearest (ties: the place that comes first in the data).
/// Distances are great-circle meters on MongoDB's sphere (R = 6,378,100 m).
public struct NearestPlace: Sendable {
    /// What a lookup found.
    public struct Match: Sendable, Equatable {
        public var place: Place
        /// Meters from the query point.
        public var distance: Double
    }

    public let places: [Place]
    /// The largest radius a query may use (meters).
    public let maxRadius: Double
    /// The cell level searched (cells at least `maxRadius` wide).
    public let level: Int
    let keys: [UInt64]
    let order: [Int32]
    let points: [S2Point]

    /// An index over `places` (their order breaks ties). `maxRadius` in meters, default 20 km.
    public init(places: [Place], maxRadius: Double = 20_000) {
        self.places = places
        self.maxRadius = maxRadius.isFinite ? Swift.max(1, Swift.min(maxRadius, 1_000_000)) : 20_000
        level = CellID.level(forMinimumWidth: Earth.angle(for: Distance(meters: self.maxRadius)))
        let points = places.map { LatLng(degreesLatitude: $0.location.latitude, longitude: $0.location.longitude).toPoint() }
        let sorted = points.indices.map { (CellID(points[$0]).id, Int32(truncatingIfNeeded: $0)) }.sorted { $0 < $1 }
        self.points = points
        keys = sorted.map(\.0)
        order = sorted.map(\.1)
    }

    /// An index over the shipped places file's bytes (`Data/places-cities1000.bin`).
    public init(placesFile bytes: [UInt8], maxRadius: Double = 20_000) throws(PlacesFileError) {
        self.init(places: try PlacesFile.decode(bytes), maxRadius: maxRadius)
    }

    /// The nearest place within `radius` meters (at most `maxRadius`) of `point`, or nil.
    public func nearest(to point: TimelinePoint, within radius: Double = 20_000) -> Match? {
        guard point.latitude.isFinite, point.longitude.isFinite, radius.isFinite, radius >= 0 else { return nil }
        let limit = Swift.min(radius, maxRadius)
        let query = LatLng(degreesLatitude: point.latitude, longitude: point.longitude).normalized.toPoint()
        let threshold = ChordAngle(Earth.angle(for: Distance(meters: limit))).length2
        let cell = CellID(query).parent(level: level)
        var best: (length2: Double, index: Int32)?
        for candidate in [cell] + cell.neighborhood() {
            var i = lowerBound(candidate.rangeMin.id)
            let end = candidate.rangeMax.id
            while i < keys.count && keys[i] <= end {
                let index = order[i]
                let length2 = (points[Int(index)] - query).norm2
                if length2 <= threshold, best.map({ length2 < $0.length2 || (length2 == $0.length2 && index < $0.index) }) ?? true {
                    best = (length2, index)
                }
                i += 1
            }
        }
        guard let best else { return nil }
        let distance = Earth.distance(for: ChordAngle(length2: best.length2).angle).meters
        return Match(place: places[Int(best.index)], distance: distance)
    }

    /// The first position whose key is ≥ `key`.
    func lowerBound(_ key: UInt64) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
