#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GeoKit

/// A chain of great-circle edges (a GeoJSON LineString), as a ``Region``: the points within
/// ``tolerance`` of some edge.
///
/// A line has no area, so "contains" means "lies on the line": within the tolerance, by default
/// GeoKit's polygon boundary tolerance of 1e-9 rad (≈ 6.4 mm on the Earth), which approximates
/// MongoDB's test of whether the line meets the stored point's leaf cell (≈ 1 cm).
public struct GeodesicPolyline: Sendable, Region, CustomStringConvertible {
    /// The vertices (unit vectors); adjacent vertices are distinct and not antipodal.
    public let vertices: [S2Point]
    /// Points within this angle of an edge lie on the line.
    public let tolerance: Angle
    /// `(a + b) × (b − a)` for each edge: twice a × b, computed without cancellation.
    private let normals: [S2Point]
    public let capBound: Cap

    /// A line through the given vertices (normalised; not validated — see ``GeoJSONGeometry``
    /// for the GeoJSON rules).
    public init(vertices: [S2Point], tolerance: Angle = Loop.defaultBoundaryTolerance) {
        let points = vertices.map { $0.isUnitLength ? $0 : $0.normalized }
        self.vertices = points
        self.tolerance = Angle(radians: Swift.max(0, tolerance.radians))
        var normals: [S2Point] = []
        for i in points.indices.dropLast() {
            let a = points[i], b = points[i + 1]
            normals.append((a + b).cross(b - a))
        }
        self.normals = normals
        self.capBound = Self.bound(points, slack: self.tolerance.radians + 1e-14)
    }

    /// A cap around the vertices' mean direction. A point of edge (a, b) at arc length t from a
    /// is within min(d(c, a) + t, d(c, b) + len − t) ≤ (d(c, a) + d(c, b) + len) / 2 of c.
    private static func bound(_ points: [S2Point], slack: Double) -> Cap {
        guard let first = points.first else { return .empty }
        var sum = S2Point.zero
        for p in points { sum = sum + p }
        let center = sum.norm2 > 1e-20 ? sum.normalized : first
        var radius = center.angle(to: first).radians
        for i in points.indices.dropLast() {
            let a = points[i], b = points[i + 1]
            let reach = 0.5 * (center.angle(to: a).radians + center.angle(to: b).radians + a.angle(to: b).radians)
            radius = Swift.max(radius, reach)
        }
        radius += slack
        return radius >= Double.pi ? .full : Cap(center: center, radius: Angle(radians: radius))
    }

    /// The angle from `point` to the nearest point of the line.
    public func distance(to point: S2Point) -> Angle {
        guard let first = vertices.first else { return .straight }
        var best = first.angle(to: point).radians
        for i in normals.indices {
            best = Swift.min(best, Self.distance(point, toEdge: vertices[i], vertices[i + 1], normal: normals[i]))
        }
        return Angle(radians: best)
    }

    /// The angle from `p` to edge (a, b), whose normal `n` is a positive multiple of a × b.
    static func distance(_ p: S2Point, toEdge a: S2Point, _ b: S2Point, normal n: S2Point) -> Double {
        if n.norm2 > 0 && n.cross(a).dot(p) >= 0 && b.cross(n).dot(p) >= 0 {
            // p projects onto the edge's interior: its angle to the edge's plane.
            return atan2(Swift.abs(p.dot(n)), p.cross(n).norm)
        }
        return Swift.min(a.angle(to: p).radians, b.angle(to: p).radians)
    }

    // MARK: Region

    /// Whether the point is within ``tolerance`` of the line.
    public func contains(_ point: S2Point) -> Bool {
        guard capBound.contains(point) else { return false }
        return distance(to: point) <= tolerance
    }

    /// Always false: the band around a line is far thinner than any covering cell.
    public func contains(_ cell: Cell) -> Bool {
        false
    }

    /// Conservative: true if some edge comes within the cell's bounding-cap radius plus the
    /// tolerance of the cap's centre (triangle inequality), with rounding slack.
    public func mayIntersect(_ cell: Cell) -> Bool {
        let cap = cell.capBound
        guard capBound.center.angle(to: cap.center).radians
            <= capBound.radius.radians + cap.radius.radians + 1e-14 else { return false }
        let reach = cap.radius.radians + tolerance.radians + Cell.distanceErrorBound.radians + 1e-14
        if vertices.count == 1 {
            return vertices[0].angle(to: cap.center).radians <= reach
        }
        for i in normals.indices
        where Self.distance(cap.center, toEdge: vertices[i], vertices[i + 1], normal: normals[i]) <= reach {
            return true
        }
        return false
    }

    public var description: String {
        "GeodesicPolyline(\(vertices.count) vertices)"
    }
}

/// The union of several regions (MultiPoint, MultiLineString, GeometryCollection).
struct RegionUnion: Region {
    let members: [any Region]
    let rectBound: LatLngRect

    init(_ members: [any Region]) {
        self.members = members
        self.rectBound = members.reduce(LatLngRect.empty) { $0.union($1.rectBound) }
    }

    var capBound: Cap { rectBound.capBound }

    func contains(_ point: S2Point) -> Bool {
        members.contains { $0.contains(point) }
    }

    /// Conservative: some member contains the whole cell.
    func contains(_ cell: Cell) -> Bool {
        members.contains { $0.contains(cell) }
    }

    func mayIntersect(_ cell: Cell) -> Bool {
        members.contains { $0.mayIntersect(cell) }
    }
}
