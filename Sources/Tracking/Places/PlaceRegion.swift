import GeoKit
import GeoQuery
import JSONCore

/// Where a place is: a circle (a GeoJSON Point and a radius) or a GeoJSON Polygon (holes
/// allowed, geodesic edges as in `$geoWithin`). Distances on MongoDB's sphere (R = 6,378,100 m).
public enum PlaceRegion: Sendable {
    /// Centre and radius in meters (`radiusRange`).
    case circle(center: LatLng, radiusMeters: Double)
    case polygon(Polygon)

    /// Allowed circle radii (meters).
    public static let radiusRange = 25.0...50_000.0
    /// The worst accuracy (meters) a fix may have to change a polygon place's state.
    public static let polygonAccuracyMeters = 1_000.0
    /// The least distance (meters) outside a place that counts as having left it.
    public static let minimumExitMargin = 25.0

    /// Parses a place's `geometry` (and `radius` for a Point) with the geo queries' validation
    /// and wording: 400 for malformed GeoJSON, 422 for invalid geometry (as the queries).
    public static func parse(geometry: JSONValue, radius: JSONValue?) throws -> PlaceRegion {
        let parsed = try GeoJSONGeometry.parse(geometry)
        switch parsed {
        case .point(let point):
            guard let radius, let meters = radius.doubleValue, meters.isFinite else {
                throw TrackingError.invalid("a Point place needs \"radius\" in meters, 25 to 50000", code: .invalidRadius)
            }
            guard radiusRange.contains(meters) else {
                throw TrackingError(.invalidGeometry, code: .invalidRadius, message: "radius must be 25 to 50000 meters, not \(meters)")
            }
            return .circle(center: LatLng(point), radiusMeters: meters)
        case .polygon(let polygon):
            guard radius == nil || radius?.isNull == true else {
                throw TrackingError.invalid("\"radius\" applies to a Point place only", code: .invalidRadius)
            }
            return .polygon(polygon)
        default:
            throw TrackingError(.invalidGeometry, code: .unsupportedGeometry,
                                message: "a place is a GeoJSON Point with a radius or a Polygon, not a \(parsed.typeName)")
        }
    }

    public var region: any Region {
        switch self {
        case .circle(let center, let radius): Cap(center: center, radius: Earth.angle(for: Distance(meters: radius)))
        case .polygon(let polygon): polygon
        }
    }

    /// Whether `point` is inside the place (on its boundary counts as inside).
    public func contains(_ point: S2Point) -> Bool {
        metersOutside(point) <= 0
    }

    /// How far (meters) `point` is outside the place; 0 inside.
    public func metersOutside(_ point: S2Point) -> Double {
        switch self {
        case .circle(let center, let radius):
            return max(0, Earth.distance(from: center.toPoint(), to: point).meters - radius)
        case .polygon(let polygon):
            return Earth.distance(for: polygon.distance(to: point)).meters
        }
    }

    /// The worst accuracy (meters) a fix may have and still change the state: the radius of a
    /// circle, 1,000 m for a polygon.
    public var accuracyLimitMeters: Double {
        switch self {
        case .circle(_, let radius): radius
        case .polygon: Self.polygonAccuracyMeters
        }
    }

    /// Vertices of a polygon's rings (0 for a circle): what the shape costs to hold in memory.
    public var vertexCount: Int {
        switch self {
        case .circle: 0
        case .polygon(let polygon): polygon.holes.reduce(polygon.shell.vertices.count) { $0 + $1.vertices.count }
        }
    }

    /// Leaf-cell ranges of the place's covering (what the place index stores).
    public func covering(_ coverer: RegionCoverer) -> [CellID] {
        coverer.covering(of: region)
    }
}
