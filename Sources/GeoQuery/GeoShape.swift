import GeoKit

/// The shape of a `$geoWithin` or `$geoIntersects` query.
///
/// - ``contains(_:)`` is the exact filter applied to candidate points;
/// - ``region`` is for index coverings (`RegionCoverer`): it contains every point ``contains(_:)``
///   accepts, so a covering of it never misses a match;
/// - ``isSpherical`` tells geodesic shapes (`$geometry`, `$centerSphere`) from the flat legacy
///   shapes (`$box`, `$polygon`, `$center`), whose edges are straight lines in lng/lat degrees.
public enum GeoShape: Sendable {
    /// `$geometry`: a GeoJSON geometry with great-circle edges.
    case geometry(GeoJSONGeometry)
    /// `$centerSphere`: the points whose great-circle angle from `center` is at most `radius`
    /// (inclusive; a radius ≥ π is the whole sphere).
    case centerSphere(center: S2Point, radius: Angle)
    /// `$box`: a flat lng/lat rectangle, boundary included.
    case box(FlatBox)
    /// `$polygon`: a flat lng/lat polygon, boundary included.
    case polygon(FlatPolygon)
    /// `$center`: a flat lng/lat disc (radius in degrees), boundary included.
    case center(FlatCircle)

    /// True for `$geometry` and `$centerSphere`, false for the flat legacy shapes.
    public var isSpherical: Bool {
        switch self {
        case .geometry, .centerSphere: true
        case .box, .polygon, .center: false
        }
    }

    /// The exact filter for a stored point given as a unit vector.
    ///
    /// Spherical shapes: see ``GeoJSONGeometry/contains(_:)``; `$centerSphere` compares the
    /// great-circle angle (`center.angle(to:)`) with the radius, inclusive. Flat shapes: planar
    /// containment of the point's longitude/latitude, boundary included, with
    /// ``FlatShape/pointTolerance`` (1e-11°) slack for the lng/lat round trip; use
    /// ``contains(longitude:latitude:)`` for exact flat results from stored coordinates.
    public func contains(_ point: S2Point) -> Bool {
        switch self {
        case .geometry(let geometry):
            return geometry.contains(point)
        case .centerSphere(let center, let radius):
            return Self.capContains(center: center, radius: radius.radians, point)
        case .box(let box):
            return box.contains(point)
        case .polygon(let polygon):
            return polygon.contains(point)
        case .center(let circle):
            return circle.contains(point)
        }
    }

    /// Conservative: true only if every stored point the index files under `cell` passes
    /// ``contains(longitude:latitude:)``, so that index entries in the cell need no exact test.
    ///
    /// `$centerSphere` tests the cell against the cap narrowed by ``interiorMargin`` (the exact
    /// test compares the unwidened radius, and a stored point may lie a rounding error outside
    /// its leaf cell); `$geometry` defers to ``GeoJSONGeometry/containsEntirely(_:)``. The flat
    /// shapes are decided on lng/lat degrees, not on the sphere, and never claim a cell.
    public func containsEntirely(_ cell: Cell) -> Bool {
        switch self {
        case .geometry(let geometry):
            return geometry.containsEntirely(cell)
        case .centerSphere(let center, let radius):
            let inner = radius.radians - Self.interiorMargin
            guard inner > 0 else { return false }
            return Cap(center: center, radius: Angle(radians: inner)).contains(cell)
        case .box, .polygon, .center:
            return false
        }
    }

    /// `(region.mayIntersect(cell), containsEntirely(cell))`, for polygons in one pass over
    /// the edges: whether a stored point filed under `cell` may pass the exact test, and whether
    /// every one does.
    public func relate(_ cell: Cell) -> (mayContain: Bool, containsEntirely: Bool) {
        switch self {
        case .geometry(.polygon(let polygon)):
            let (intersects, contains) = polygon.relate(cell)
            return (intersects, contains)
        case .geometry(.multiPolygon(let multi)):
            let (intersects, contains) = multi.relate(cell)
            return (intersects, contains)
        default:
            if containsEntirely(cell) { return (true, true) }
            return (region.mayIntersect(cell), false)
        }
    }

    /// Whether the angle between `center` and `point` is at most `radius` (radians), decided as
    /// `center.angle(to: point) <= radius` always is, but without its `atan2` and square root
    /// for all points but those within a relative 1e-12 of the boundary.
    ///
    /// The squared chord c = |center − point|² of an angle φ satisfies φ² − φ⁴/12 ≤ c ≤ φ², and
    /// φ² − φ⁴/12 grows with φ below √6: c below r² − r⁴/12 puts φ under r, c above r² puts φ over
    /// it (for r < 2). The chord is computed to a few ulps, relative, like the angle; the
    /// relative margin of 1e-12 is far above both.
    @inline(__always)
    static func capContains(center: S2Point, radius r: Double, _ point: S2Point) -> Bool {
        let c = (center - point).norm2
        let r2 = r * r
        if r < 2 {
            if c < r2 * (1 - r2 / 12) * (1 - 1e-12) { return true }
            if c > r2 * (1 + 1e-12) { return false }
        }
        return center.angle(to: point).radians <= r
    }

    /// How far inside a `$centerSphere` a cell must lie for ``containsEntirely(_:)`` (radians,
    /// ~64 µm on Earth: far above the rounding of the point → cell → vertex computations).
    static let interiorMargin = 1e-11

    /// The exact filter for a stored `[longitude, latitude]` in degrees (valid coordinates).
    /// Flat shapes are decided exactly on the coordinates; spherical shapes on their unit vector.
    public func contains(longitude: Double, latitude: Double) -> Bool {
        switch self {
        case .geometry, .centerSphere:
            return contains(LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
        case .box(let box):
            return box.contains(longitude: longitude, latitude: latitude)
        case .polygon(let polygon):
            return polygon.contains(longitude: longitude, latitude: latitude)
        case .center(let circle):
            return circle.contains(longitude: longitude, latitude: latitude)
        }
    }

    /// ``contains(longitude:latitude:)`` with the shape's kind decided once, for scans that test
    /// many stored points against one shape: the test holds the shape's parts directly, so a
    /// point costs neither a switch over the shape nor copies of its parts.
    public var storedPointTest: @Sendable (_ longitude: Double, _ latitude: Double) -> Bool {
        switch self {
        case .geometry(.polygon(let polygon)):
            return { longitude, latitude in
                polygon.contains(LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
            }
        case .geometry(.multiPolygon(let multi)):
            return { longitude, latitude in
                multi.contains(LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
            }
        case .geometry(let geometry):
            return { longitude, latitude in
                geometry.contains(LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
            }
        case .centerSphere(let center, let radius):
            let radians = radius.radians
            return { longitude, latitude in
                Self.capContains(center: center, radius: radians, LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
            }
        case .box(let box):
            return { longitude, latitude in box.contains(longitude: longitude, latitude: latitude) }
        case .polygon(let polygon):
            return { longitude, latitude in polygon.contains(longitude: longitude, latitude: latitude) }
        case .center(let circle):
            return { longitude, latitude in circle.contains(longitude: longitude, latitude: latitude) }
        }
    }

    /// A region containing every point ``contains(_:)`` accepts, for coverings.
    ///
    /// `$geometry`: the geometry itself (Polygon, MultiPolygon, a line's tolerance band, a
    /// point's leaf cell, or their union). `$centerSphere`: the cap, widened by 1e-13 rad for
    /// rounding. Flat shapes: the lng/lat rectangle of their bounds (exactly the `$box`), clipped
    /// to valid coordinates and padded by 1e-10 rad — a flat shape's bounding box in lng/lat is a
    /// ``LatLngRect``, so this is conservative although the flat edges are not geodesics.
    public var region: any Region {
        switch self {
        case .geometry(let geometry):
            return geometry.region
        case .centerSphere(let center, let radius):
            return Cap(center: center, radius: radius + Angle(radians: 1e-13))
        case .box(let box):
            return box.region
        case .polygon(let polygon):
            return polygon.region
        case .center(let circle):
            return circle.region
        }
    }
}
