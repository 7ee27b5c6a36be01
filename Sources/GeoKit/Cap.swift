#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A spherical cap: the closed set of points within ``radius`` of ``center``.
///
/// This is `$centerSphere` and the outer bound of a `$near` search. Invariants: `center` is a
/// unit vector; a negative radius is the empty cap, a radius ≥ π the full sphere. Containment
/// is inclusive and decided with chord lengths (error ~1e-16 rad).
public struct Cap: Sendable, Hashable, Region, CustomStringConvertible {
    /// The centre, a unit vector.
    public let center: S2Point
    /// The radius as an angle (negative: empty; ≥ π: full).
    public let radius: Angle
    /// The radius as a chord angle, for fast comparisons.
    public let chordRadius: ChordAngle

    /// A cap of `radius` around `center` (normalised). Radii above π are clamped to π; negative
    /// or NaN radii give an empty cap.
    public init(center: S2Point, radius: Angle) {
        self.center = center.normalized
        let r = radius.radians
        if !(r >= 0) {
            self.radius = Angle(radians: -1)
        } else {
            self.radius = Angle(radians: Swift.min(Double.pi, r))
        }
        self.chordRadius = ChordAngle(self.radius)
    }

    /// A cap whose radius is given as a chord angle.
    public init(center: S2Point, chordRadius: ChordAngle) {
        self.init(center: center, radius: chordRadius.angle)
    }

    /// A cap around a coordinate.
    public init(center: LatLng, radius: Angle) {
        self.init(center: center.normalized.toPoint(), radius: radius)
    }

    /// The empty cap.
    public static let empty = Cap(center: .northPole, radius: Angle(radians: -1))
    /// The whole sphere.
    public static let full = Cap(center: .northPole, radius: .straight)

    public var isEmpty: Bool { radius.radians < 0 }
    public var isFull: Bool { radius.radians >= Double.pi }

    /// The closed complement's closure: the cap around the antipode with radius π − r.
    public var complement: Cap {
        if isEmpty { return .full }
        if isFull { return .empty }
        return Cap(center: -center, radius: Angle(radians: Double.pi - radius.radians))
    }

    /// Whether the point is within the radius (inclusive).
    public func contains(_ point: S2Point) -> Bool {
        if isEmpty { return false }
        if isFull { return true }
        return ChordAngle(between: center, point) <= chordRadius
    }

    /// Whether `other` lies inside this cap.
    public func contains(_ other: Cap) -> Bool {
        if isFull || other.isEmpty { return true }
        if isEmpty { return false }
        return center.angle(to: other.center).radians + other.radius.radians <= radius.radians
    }

    /// The cap widened by `distance` (clamped to the full sphere).
    public func expanded(by distance: Angle) -> Cap {
        if isEmpty { return self }
        return Cap(center: center, radius: radius + distance)
    }

    // MARK: Region

    public var capBound: Cap { self }

    /// A conservative bounding rectangle: latitudes lat(center) ± r; longitudes
    /// lng(center) ± asin(sin r / cos lat(center)), or all longitudes if the cap reaches a pole;
    /// plus the rounding margin of ``LatLngRect``.
    public var rectBound: LatLngRect {
        if isEmpty { return .empty }
        if isFull { return .full }
        let c = LatLng(center)
        let r = radius.radians
        var lo = c.lat.radians - r
        var hi = c.lat.radians + r
        var fullLng = false
        if lo <= -Double.pi / 2 {
            lo = -Double.pi / 2
            fullLng = true
        }
        if hi >= Double.pi / 2 {
            hi = Double.pi / 2
            fullLng = true
        }
        var lng = LngInterval.full
        if !fullLng {
            let sinR = sin(r)
            let cosLat = cos(c.lat.radians)
            if sinR < cosLat {
                let half = asin(sinR / cosLat) * (1 + 1e-14) + 1e-15
                if half < Double.pi {
                    lng = LngInterval(lo: (c.lng.radians - half).remainder(dividingBy: 2 * Double.pi),
                                      hi: (c.lng.radians + half).remainder(dividingBy: 2 * Double.pi))
                }
            }
        }
        return LatLngRect(latLo: lo, latHi: hi, lng: lng).withRoundingMargin()
    }

    /// Conservative: true only if every point of the cell is within the radius.
    ///
    /// For caps smaller than a hemisphere (chord² < 2) the cap is convex and the cell is the
    /// convex hull of its vertices, so it suffices that all four vertices are within the chord
    /// radius shortened by ``Cell/chordErrorBound`` (squared chords, no trigonometry). Larger
    /// caps compare the cell's farthest point (an upper bound) with the radius.
    public func contains(_ cell: Cell) -> Bool {
        CapCellTest(self).contains(cell)
    }

    /// Conservative: false only if the nearest point of the cell (a lower bound) is beyond the
    /// radius.
    ///
    /// For caps smaller than a hemisphere: true if the centre is in the cell or a vertex is within
    /// the chord radius (plus ``Cell/chordErrorBound``); otherwise the nearest point of the cell
    /// is inside an edge, and the sine of the centre's distance to that edge's great circle is
    /// compared with sin(radius) + slack. Larger caps compare the cell's nearest distance with the
    /// radius.
    public func mayIntersect(_ cell: Cell) -> Bool {
        CapCellTest(self).mayIntersect(cell)
    }

    public var description: String {
        "Cap(center: \(LatLng(center)), radius: \(radius))"
    }
}

/// The cell predicates of a ``Cap``, with the squared-chord limits computed once.
///
/// Small caps (chord² < 2, i.e. radius < π/2) use squared chords only: `reach2` =
/// (chord + δ)² for a vertex to count as inside for intersection, `inside2` = (chord − δ)² for
/// containment, `sin2Reach` = (sin r + δ)² for the distance to an edge's great circle, with
/// δ = ``Cell/chordErrorBound``. Larger caps use the conservative angle distances of ``Cell``.
struct CapCellTest {
    let cap: Cap
    /// Whether the trig-free small-cap path applies (the cap is neither empty nor full).
    let small: Bool
    let reach2: Double
    let sin2Reach: Double
    /// Negative when no cell can be contained (the radius is within the slack of zero).
    let inside2: Double

    init(_ cap: Cap) {
        self.cap = cap
        let c2 = cap.chordRadius.length2
        small = !cap.isEmpty && !cap.isFull && c2 < 2
        let chord = Swift.max(0, c2).squareRoot()
        let reach = chord + Cell.chordErrorBound
        reach2 = reach * reach
        let sinReach = (Swift.max(0, c2) * (1 - 0.25 * c2)).squareRoot() + Cell.chordErrorBound
        sin2Reach = sinReach * sinReach
        let inner = chord - Cell.chordErrorBound
        inside2 = inner > 0 ? inner * inner : -1
    }

    func contains(_ cell: Cell) -> Bool {
        guard small else { return largeContains(cell) }
        return cell.verticesWithin(chord2: inside2, of: cap.center)
    }

    func mayIntersect(_ cell: Cell) -> Bool {
        guard small else { return largeMayIntersect(cell) }
        return cell.mayIntersectSmallCap(center: cap.center, reach2: reach2, sin2Reach: sin2Reach)
    }

    /// `(mayIntersect(cell), needContains && contains(cell))`, sharing the vertex computations.
    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool) {
        guard small else {
            guard largeMayIntersect(cell) else { return (false, false) }
            return (true, needContains && largeContains(cell))
        }
        let q = cell.toLocal(cap.center)
        var anyIn = false
        var allIn = needContains
        for k in 0..<4 {
            let d2 = cell.chord2(q, toVertex: k)
            if d2 <= reach2 { anyIn = true }
            if !(d2 <= inside2) { allIn = false }
        }
        // allIn implies anyIn (inside2 < reach2), so contains implies mayIntersect.
        if anyIn { return (true, allIn) }
        return (cell.mayIntersectSmallCapBeyondVertices(q, sin2Reach: sin2Reach), false)
    }

    private func largeContains(_ cell: Cell) -> Bool {
        if cap.isEmpty { return false }
        if cap.isFull { return true }
        return cell.maxDistance(to: cap.center) <= cap.radius
    }

    private func largeMayIntersect(_ cell: Cell) -> Bool {
        if cap.isEmpty { return false }
        if cap.isFull { return true }
        return cell.distance(to: cap.center) <= cap.radius
    }
}
