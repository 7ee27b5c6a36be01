#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A closed spherical polygon ring: vertices joined by great-circle edges, with the region to the
/// **left** of the edges (counter-clockwise seen from outside the sphere) as its interior.
///
/// The region is closed and slightly thickened: a point counts as inside when it is inside the
/// ring or within ``boundaryTolerance`` of an edge (so vertices and points on edges match). The
/// default tolerance, 1e-9 rad (≈ 6.4 mm on the Earth), approximates MongoDB, which counts a
/// point when its leaf cell touches the polygon.
///
/// A loop may be larger than a hemisphere (strict winding). GeoJSON rings go through
/// ``init(geoJSONRing:winding:boundaryTolerance:)``, which checks them and, by default, picks the
/// smaller of the two regions the ring bounds. ``init(vertices:boundaryTolerance:)`` takes
/// vertices as they are; check ``isValid`` before trusting containment results.
///
/// For valid loops, containment is exact for points farther than the tolerance from the
/// boundary: it counts edge
/// crossings along an arc from a reference point using exact orientation signs
/// (``Predicates``), resolving vertices that lie exactly on the arc's great circle with a
/// half-open rule (such a vertex counts as lying on the left side), which is equivalent to an
/// infinitesimal perturbation and therefore consistent.
public struct Loop: Sendable, Region, CustomStringConvertible {
    /// The vertices, unit vectors, without the closing repeat of the first vertex.
    public let vertices: [S2Point]
    /// Points within this angle of an edge are on the boundary, hence inside.
    public let boundaryTolerance: Angle
    let geometry: LoopGeometry

    /// The default ``boundaryTolerance``: 1e-9 rad ≈ 6.4 mm on the Earth.
    public static let defaultBoundaryTolerance = Angle(radians: 1e-9)

    /// How a GeoJSON ring's vertex order is interpreted.
    public enum Winding: Sendable, Hashable {
        /// Winding ignored: the ring bounds the smaller of its two regions (MongoDB's default).
        case smallerRegion
        /// Strict winding: the interior is to the left of the edges (counter-clockwise) and may be
        /// larger than a hemisphere (MongoDB's `urn:x-mongodb:crs:strictwinding:EPSG:4326`).
        case counterClockwise
    }

    /// A loop whose interior is to the left of the given vertices, taken as they are (non-unit
    /// vectors are normalised; nothing is validated).
    public init(vertices: [S2Point], boundaryTolerance: Angle = Loop.defaultBoundaryTolerance) {
        let points = vertices.map { $0.isUnitLength ? $0 : $0.normalized }
        self.vertices = points
        self.boundaryTolerance = Angle(radians: Swift.max(0, boundaryTolerance.radians))
        self.geometry = LoopGeometry(vertices: points, tolerance: self.boundaryTolerance.radians)
    }

    /// A loop from a GeoJSON ring of coordinates.
    ///
    /// The ring must be closed (first = last); adjacent duplicate vertices are dropped and at
    /// least three distinct vertices must remain; the ring must not intersect itself.
    ///
    /// - Throws: ``GeoError/invalidCoordinate(_:)``, ``GeoError/loopNotClosed``,
    ///   ``GeoError/tooFewVertices`` or ``GeoError/invalidLoop``.
    public init(geoJSONRing ring: [LatLng], winding: Winding = .smallerRegion,
                boundaryTolerance: Angle = Loop.defaultBoundaryTolerance) throws(GeoError) {
        for coordinate in ring where !coordinate.isValid {
            throw GeoError.invalidCoordinate(coordinate)
        }
        guard let first = ring.first, let last = ring.last else { throw GeoError.tooFewVertices }
        guard first.toPoint() == last.toPoint() else { throw GeoError.loopNotClosed }
        var points: [S2Point] = []
        points.reserveCapacity(ring.count)
        for coordinate in ring.dropLast() {
            let point = coordinate.toPoint()
            if points.last != point { points.append(point) }
        }
        while points.count > 1 && points.first == points.last {
            points.removeLast()
        }
        guard points.count >= 3 else { throw GeoError.tooFewVertices }
        let loop = Loop(vertices: points, boundaryTolerance: boundaryTolerance)
        if let error = loop.validationError() { throw error }
        if winding == .smallerRegion && loop.turningAngle.radians < 0 {
            self = loop.reversed()
        } else {
            self = loop
        }
    }

    /// The loop with the vertex order reversed: its region is the closure of the complement.
    public func reversed() -> Loop {
        Loop(vertices: vertices.reversed(), boundaryTolerance: boundaryTolerance)
    }

    /// The sum of the turning angles at the vertices (positive for left turns).
    ///
    /// By Gauss–Bonnet this is 2π minus the area (in steradians) of the interior, so it is
    /// positive exactly when the interior is smaller than a hemisphere. Accurate to ~n·1e-15.
    public var turningAngle: Angle {
        Angle(radians: geometry.turningSum)
    }

    /// Whether the interior is larger than a hemisphere (per ``turningAngle``).
    public var isLargerThanHemisphere: Bool {
        geometry.turningSum < 0
    }

    /// The number of vertices (= number of edges).
    public var count: Int { vertices.count }

    /// Vertex `k`, with `k` taken modulo ``count``.
    func vertex(_ k: Int) -> S2Point {
        let n = vertices.count
        return vertices[((k % n) + n) % n]
    }

    // MARK: Region

    public var capBound: Cap { geometry.capBound }

    /// A conservative rectangle containing the loop, including the tolerance band.
    public var rectBound: LatLngRect { geometry.rectBound }

    public var description: String {
        let shown = vertices.prefix(4).map { LatLng($0).description }.joined(separator: ", ")
        return "Loop(\(vertices.count) vertices: \(shown)\(vertices.count > 4 ? ", …" : ""))"
    }
}
