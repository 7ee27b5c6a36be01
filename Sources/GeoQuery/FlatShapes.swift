import JSONCore
import GeoKit

/// A point of the flat legacy geometry: x is the longitude and y the latitude, in degrees,
/// treated as plane coordinates (no wrapping, no spherical distortion).
public struct FlatPoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String {
        "[\(GeneralNumberFormat.format(x)), \(GeneralNumberFormat.format(y))]"
    }
}

/// Shared behaviour of the flat legacy shapes (`$box`, `$polygon`, `$center`).
///
/// Containment of a coordinate pair (``contains(longitude:latitude:)``) is exact, boundary
/// included. Containment of an ``S2Point`` first recovers its longitude and latitude in degrees,
/// which may differ from the stored coordinates by rounding (~3e-14°), so it also accepts points
/// within ``pointTolerance`` of the boundary. Prefer the coordinate form when the stored
/// `[lng, lat]` is at hand.
public protocol FlatShape: Sendable {
    /// Exact planar containment of (longitude, latitude) in degrees, boundary included.
    func contains(longitude: Double, latitude: Double) -> Bool
    /// Whether (x, y) is within `tolerance` (plane units, i.e. degrees) of the shape.
    func contains(longitude: Double, latitude: Double, tolerance: Double) -> Bool
    /// The shape's extent in degrees: (minimum, maximum) corners.
    var bounds: (min: FlatPoint, max: FlatPoint) { get }
}

extension FlatShape {
    /// The tolerance, in degrees, for flat containment of points given as unit vectors
    /// (≈ 1 µm on the Earth; the longitude/latitude round trip errs by ~3e-14°).
    public static var pointTolerance: Double { FlatGeometry.pointTolerance }

    /// Containment of a point given as a unit vector: its longitude and latitude (degrees) are
    /// tested with ``pointTolerance`` slack. The poles have longitude 0.
    public func contains(_ point: S2Point) -> Bool {
        let latLng = LatLng(point)
        return contains(longitude: latLng.lng.degrees, latitude: latLng.lat.degrees, tolerance: FlatGeometry.pointTolerance)
    }

    /// A spherical region containing every point the shape contains: the longitude/latitude
    /// rectangle of its bounds, clipped to valid coordinates and padded by 1e-10 rad. A flat
    /// shape's lng/lat bounding box *is* a ``LatLngRect`` (flat coordinates never wrap), so the
    /// region is exact for `$box` and tight for the others.
    public var region: LatLngRect {
        let (low, high) = bounds
        return FlatGeometry.rect(minLng: low.x, maxLng: high.x, minLat: low.y, maxLat: high.y)
    }
}

enum FlatGeometry {
    /// See ``FlatShape/pointTolerance``.
    static let pointTolerance = 1e-11

    /// Padding of flat covering regions, radians (well above the lng/lat round-trip error).
    static let regionPadding = 1e-10

    /// The LatLngRect of a lng/lat box (degrees), clipped to [-180, 180] × [-90, 90] and padded.
    static func rect(minLng: Double, maxLng: Double, minLat: Double, maxLat: Double) -> LatLngRect {
        let lngLo = Swift.max(minLng, -180), lngHi = Swift.min(maxLng, 180)
        let latLo = Swift.max(minLat, -90), latHi = Swift.min(maxLat, 90)
        guard lngLo <= lngHi, latLo <= latHi else { return .empty }
        let pad = regionPadding
        var lo = Angle(degrees: lngLo).radians - pad
        var hi = Angle(degrees: lngHi).radians + pad
        if hi - lo >= 2 * Double.pi {
            lo = -Double.pi
            hi = Double.pi
        }
        return LatLngRect(latLo: Angle(radians: Angle(degrees: latLo).radians - pad),
                          latHi: Angle(radians: Angle(degrees: latHi).radians + pad),
                          lngLo: Angle(radians: lo), lngHi: Angle(radians: hi))
    }

    /// The distance in the plane from p to the segment [a, b] (floating point, for tolerances).
    static func distance(_ p: FlatPoint, toSegment a: FlatPoint, _ b: FlatPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        var t = 0.0
        if length2 > 0 {
            t = Swift.max(0, Swift.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2))
        }
        let qx = a.x + t * dx - p.x, qy = a.y + t * dy - p.y
        return (qx * qx + qy * qy).squareRoot()
    }
}

/// `$box`: the closed axis-aligned rectangle between two corners, in flat lng/lat degrees.
public struct FlatBox: FlatShape, Hashable, CustomStringConvertible {
    /// The bottom-left corner (smallest x and y).
    public let min: FlatPoint
    /// The top-right corner (largest x and y).
    public let max: FlatPoint

    /// The box spanned by two opposite corners (in any order; coordinates are sorted).
    public init(_ a: FlatPoint, _ b: FlatPoint) {
        min = FlatPoint(x: Swift.min(a.x, b.x), y: Swift.min(a.y, b.y))
        max = FlatPoint(x: Swift.max(a.x, b.x), y: Swift.max(a.y, b.y))
    }

    public func contains(longitude x: Double, latitude y: Double) -> Bool {
        x >= min.x && x <= max.x && y >= min.y && y <= max.y
    }

    public func contains(longitude x: Double, latitude y: Double, tolerance: Double) -> Bool {
        x >= min.x - tolerance && x <= max.x + tolerance && y >= min.y - tolerance && y <= max.y + tolerance
    }

    public var bounds: (min: FlatPoint, max: FlatPoint) { (min, max) }

    public var description: String { "$box [\(min), \(max)]" }
}

/// `$center`: the closed disc of `radius` (degrees) around `center`, in flat lng/lat degrees.
public struct FlatCircle: FlatShape, Hashable, CustomStringConvertible {
    public let center: FlatPoint
    /// The radius in plane units (degrees), finite and ≥ 0.
    public let radius: Double

    public init(center: FlatPoint, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// Exact: (x − cx)² + (y − cy)² ≤ r², evaluated without rounding.
    public func contains(longitude x: Double, latitude y: Double) -> Bool {
        PlanarPredicates.circleSide(x, y, center: center.x, center.y, radius: radius) <= 0
    }

    public func contains(longitude x: Double, latitude y: Double, tolerance: Double) -> Bool {
        PlanarPredicates.circleSide(x, y, center: center.x, center.y, radius: radius + tolerance) <= 0
    }

    public var bounds: (min: FlatPoint, max: FlatPoint) {
        (FlatPoint(x: center.x - radius, y: center.y - radius), FlatPoint(x: center.x + radius, y: center.y + radius))
    }

    public var description: String { "$center [\(center), \(GeneralNumberFormat.format(radius))]" }
}

/// `$polygon`: a closed planar polygon through the given vertices (closed implicitly: the last
/// vertex connects to the first), in flat lng/lat degrees.
///
/// Containment is exact and includes the boundary (every edge and vertex). The interior follows
/// the even-odd rule, so self-intersecting vertex lists are accepted (as MongoDB does) and their
/// doubly covered parts count as outside. Degenerate polygons (all vertices collinear) contain
/// just their edges.
public struct FlatPolygon: FlatShape, Hashable, CustomStringConvertible {
    /// The vertices, at least 3 (a repeated closing vertex is harmless).
    public let vertices: [FlatPoint]
    private let low: FlatPoint
    private let high: FlatPoint

    public init(vertices: [FlatPoint]) {
        self.vertices = vertices
        var low = FlatPoint(x: .infinity, y: .infinity), high = FlatPoint(x: -.infinity, y: -.infinity)
        for v in vertices {
            low = FlatPoint(x: Swift.min(low.x, v.x), y: Swift.min(low.y, v.y))
            high = FlatPoint(x: Swift.max(high.x, v.x), y: Swift.max(high.y, v.y))
        }
        self.low = low
        self.high = high
    }

    public func contains(longitude x: Double, latitude y: Double) -> Bool {
        let n = vertices.count
        guard n > 0, x >= low.x, x <= high.x, y >= low.y, y <= high.y else { return false }
        var inside = false
        for i in 0..<n {
            let a = vertices[i], b = vertices[(i + 1) % n]
            let aAbove = a.y > y, bAbove = b.y > y
            let inSpan = Swift.min(a.x, b.x) <= x && x <= Swift.max(a.x, b.x)
                && Swift.min(a.y, b.y) <= y && y <= Swift.max(a.y, b.y)
            if !inSpan && aAbove == bAbove { continue }
            let side = PlanarPredicates.orientation(a.x, a.y, b.x, b.y, x, y)
            if side == 0 && inSpan { return true }  // on the edge (or a vertex)
            if aAbove != bAbove {
                // The edge crosses the horizontal line through p (half-open in y); the crossing
                // is right of p iff p is left of an upward edge or right of a downward one.
                if bAbove ? side > 0 : side < 0 { inside.toggle() }
            }
        }
        return inside
    }

    public func contains(longitude x: Double, latitude y: Double, tolerance: Double) -> Bool {
        guard !vertices.isEmpty, x >= low.x - tolerance, x <= high.x + tolerance,
              y >= low.y - tolerance, y <= high.y + tolerance else { return false }
        if contains(longitude: x, latitude: y) { return true }
        let p = FlatPoint(x: x, y: y)
        let n = vertices.count
        for i in 0..<n where FlatGeometry.distance(p, toSegment: vertices[i], vertices[(i + 1) % n]) <= tolerance {
            return true
        }
        return false
    }

    public var bounds: (min: FlatPoint, max: FlatPoint) { (low, high) }

    public var description: String {
        "$polygon [\(vertices.map(\.description).joined(separator: ", "))]"
    }
}
