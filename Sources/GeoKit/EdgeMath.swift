#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Geometry of great-circle arcs ("edges") on the unit sphere.
///
/// An edge from `a` to `b` is the shorter great-circle arc between two distinct, non-antipodal
/// unit vectors. All distances are angles in radians on the unit sphere. Unless stated, results
/// are accurate to a few 1e-16 rad (angles use `atan2` forms, never `acos`/`asin` of values
/// near ±1).
enum EdgeMath {
    /// Whether `p`'s projection onto the great circle of edge (a, b) lies on the edge, i.e. `p`
    /// is inside the lune bounded by the planes through `normal` and `a`, and `normal` and `b`.
    /// `normal` is any positive multiple of a × b.
    @inline(__always)
    static func projectsInside(_ p: S2Point, _ a: S2Point, _ b: S2Point, normal n: S2Point) -> Bool {
        n.cross(a).dot(p) >= 0 && b.cross(n).dot(p) >= 0
    }

    /// The angle from `p` to the nearest point of edge (a, b), in radians.
    ///
    /// `normal` must be a positive multiple of a × b (e.g. ``S2Point/robustCross(_:_:)``); for
    /// a degenerate edge (zero normal) the distance to `a` is returned.
    static func distance(_ p: S2Point, toEdge a: S2Point, _ b: S2Point, normal n: S2Point) -> Double {
        if n.norm2 > 0 && projectsInside(p, a, b, normal: n) {
            // Angle between p and the plane of the edge.
            return atan2(Swift.abs(p.dot(n)), p.cross(n).norm)
        }
        return Swift.min(a.angle(to: p).radians, b.angle(to: p).radians)
    }

    /// The angle from `p` to the nearest point of edge (a, b), in radians.
    static func distance(_ p: S2Point, toEdge a: S2Point, _ b: S2Point) -> Double {
        distance(p, toEdge: a, b, normal: S2Point.robustCross(a, b))
    }

    /// Whether edges (a, b) and (c, d) cross at a point interior to both, decided exactly.
    ///
    /// Edges that merely touch (an endpoint on the other edge, or shared endpoints) or that are
    /// collinear do not count; callers handle those with distance checks.
    static func crossProperly(_ a: S2Point, _ b: S2Point, _ c: S2Point, _ d: S2Point) -> Bool {
        let s1 = Predicates.sign(a, b, c)
        if s1 == 0 { return false }
        let s2 = Predicates.sign(a, b, d)
        if s2 != -s1 { return false }
        let s3 = Predicates.sign(c, d, a)
        if s3 != s2 { return false }
        let s4 = Predicates.sign(c, d, b)
        return s4 == s1
    }

    /// The minimum angle between edges (a, b) and (c, d), in radians; 0 if they cross.
    static func distance(edge a: S2Point, _ b: S2Point, toEdge c: S2Point, _ d: S2Point) -> Double {
        if crossProperly(a, b, c, d) { return 0 }
        let nab = S2Point.robustCross(a, b)
        let ncd = S2Point.robustCross(c, d)
        return Swift.min(Swift.min(distance(a, toEdge: c, d, normal: ncd), distance(b, toEdge: c, d, normal: ncd)),
                         Swift.min(distance(c, toEdge: a, b, normal: nab), distance(d, toEdge: a, b, normal: nab)))
    }

    /// The latitude range of edge (a, b), in radians, including the interior extreme where the
    /// great circle peaks between the endpoints.
    ///
    /// The interior extreme is included whenever its direction is on the edge or within rounding
    /// of an endpoint; including it slightly too often only widens the range by O(ε²).
    static func latitudeRange(_ a: S2Point, _ b: S2Point) -> (lo: Double, hi: Double) {
        let latA = LatLng(a).lat.radians
        let latB = LatLng(b).lat.radians
        var lo = Swift.min(latA, latB)
        var hi = Swift.max(latA, latB)
        let n = S2Point.robustCross(a, b)
        // Direction of the highest point of the great circle: z - (z·n̂) n̂, scaled by |n|².
        let top = S2Point(x: -n.z * n.x, y: -n.z * n.y, z: n.x * n.x + n.y * n.y)
        if n.norm2 > 0 && top.norm2 > 0 {
            let slack = -1e-15 * n.norm * top.norm
            if n.cross(a).dot(top) >= slack && b.cross(n).dot(top) >= slack {
                hi = Swift.max(hi, LatLng(top).lat.radians)
            }
            let bottom = -top
            if n.cross(a).dot(bottom) >= slack && b.cross(n).dot(bottom) >= slack {
                lo = Swift.min(lo, LatLng(bottom).lat.radians)
            }
        }
        return (lo, hi)
    }
}
