// Why one file of ~550 lines: the cell id's bit layout (face, Hilbert position, level) and every
// operation that depends on it (parent, children, neighbours, face/uv/st conversions, bounds)
// are kept together so the one invariant they share — the layout in `CellID` — is read in one place.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rectangle in face coordinates: (u, v) ∈ [-1, 1]² or (s, t) ∈ [0, 1]², depending on the
/// accessor that produced it. The values are dimensionless face coordinates, not angles.
public struct FaceRect: Sendable, Hashable {
    public var uLo: Double
    public var uHi: Double
    public var vLo: Double
    public var vHi: Double

    public init(uLo: Double, uHi: Double, vLo: Double, vHi: Double) {
        self.uLo = uLo
        self.uHi = uHi
        self.vLo = vLo
        self.vHi = vHi
    }
}


/// The geometry of an S2 cell: a spherical quadrilateral bounded by four great-circle arcs.
///
/// A cell is the closed region of its face whose (u, v) lies in ``uvBounds``; its edges are
/// geodesics because lines of constant u or v are great circles. Points on the boundary belong
/// to every cell that touches them.
///
/// A cell stores only its id, face, level, (u, v) bounds and its leaf-coordinate corner and
/// Hilbert orientation (so that children are made without decoding ids); vertices and the centre
/// are computed when asked for. Distance predicates work in the face's own frame, where the
/// cell's edge planes have exact normals `(u, −1, 0)` and `(v, 0, −1)`, so they need no
/// trigonometry except one `atan2` for an ``Angle`` result.
///
/// Error bounds: vertices are the normalised face vectors of the exact (u, v) corners, accurate to
/// ~2 ulps. ``contains(_:)-(S2Point)`` widens the (u, v) bounds by ``uvTolerance`` (4e-15) so that
/// a point always lies in the cell its leaf id names, despite rounding in the projection.
public struct Cell: Sendable, Hashable, Region {
    /// The cell's id (always valid).
    public let id: CellID
    /// The face, 0…5.
    public let face: Int
    /// The level, 0…30.
    public let level: Int
    /// The (u, v) bounds on the face.
    public let uvBounds: FaceRect
    /// The lower corner in leaf coordinates (i, j).
    let iLo: Int32
    let jLo: Int32
    /// The Hilbert-curve orientation of the cell (swap and invert bits).
    let orientation: UInt8

    /// Slack added to the (u, v) bounds by point containment (face-coordinate units).
    public static let uvTolerance = 4e-15

    /// Absolute slack, in radians, by which ``distance(to:)`` is lowered and
    /// ``maxDistance(to:)`` raised so that both are conservative. It covers the floating-point
    /// error of the computation (~1e-15 rad) and the projection rounding covered by
    /// ``uvTolerance``.
    public static let distanceErrorBound = Angle(radians: 2e-14)

    /// The same slack in chord-length units, used by ``chordDistance(to:)``,
    /// ``maxChordDistance(to:)`` and the ``Cap`` predicates. Since a chord changes by at most as
    /// much as its angle (d chord / dθ = cos(θ/2) ≤ 1), moving a chord by this amount moves the
    /// angle by at least ``distanceErrorBound``.
    static let chordErrorBound = 2e-14

    /// The cell with this id, or nil if the id is not valid.
    public init?(_ id: CellID) {
        guard id.isValid else { return nil }
        self.init(unchecked: id)
    }

    /// The face cell 0…5 (clamped).
    public static func face(_ face: Int) -> Cell {
        Cell(unchecked: CellID.face(Swift.max(0, Swift.min(5, face))))
    }

    /// A cell from an id that is known to be valid.
    init(unchecked id: CellID) {
        let (face, i, j, orientation) = id.decodeFaceIJ()
        let level = id.level
        let size = 1 << (CellID.maxLevel - level)
        let iLo = i & ~(size - 1), jLo = j & ~(size - 1)
        self.init(id: id, face: face, level: level, iLo: iLo, jLo: jLo, orientation: orientation,
                  uvBounds: FaceRect(uLo: Self.uv(iLo), uHi: Self.uv(iLo + size),
                                     vLo: Self.uv(jLo), vHi: Self.uv(jLo + size)))
    }

    private init(id: CellID, face: Int, level: Int, iLo: Int, jLo: Int, orientation: Int, uvBounds: FaceRect) {
        self.id = id
        self.face = face
        self.level = level
        self.iLo = Int32(truncatingIfNeeded: iLo)
        self.jLo = Int32(truncatingIfNeeded: jLo)
        self.orientation = UInt8(truncatingIfNeeded: orientation)
        self.uvBounds = uvBounds
    }

    /// The u (or v) coordinate of leaf column (or row) boundary `i`.
    @inline(__always)
    static func uv(_ i: Int) -> Double {
        FaceProjection.stToUV(FaceProjection.ijToST(i))
    }

    /// The edge length of the cell in leaf cells.
    @inline(__always)
    var sizeIJ: Int { 1 << (CellID.maxLevel - level) }

    /// `HilbertCurve.posToIJ[orientation][position]` packed two bits per entry at bit
    /// `2 (4·orientation + position)`.
    static let packedPosToIJ: UInt32 = 0x874B_78B4
    /// `HilbertCurve.posToOrientation[position]` packed two bits per entry at bit `2·position`.
    static let packedPosToOrientation: UInt32 = 0xC1

    /// The (u, v) coordinates of the lines splitting the cell into its children.
    @inline(__always)
    var childSplit: (u: Double, v: Double) {
        let half = sizeIJ >> 1
        return (Self.uv(Int(iLo) + half), Self.uv(Int(jLo) + half))
    }

    /// The child at Hilbert position `k` (0…3), built from this cell's corner and orientation
    /// without decoding its id. Identical to `Cell(id.child(position: k))`. Not for leaves.
    func child(_ k: Int) -> Cell {
        child(k, split: childSplit)
    }

    /// ``child(_:)`` with the precomputed ``childSplit``.
    @inline(__always)
    func child(_ k: Int, split: (u: Double, v: Double)) -> Cell {
        let half = sizeIJ >> 1
        let o = Int(orientation)
        let ij = Int((Self.packedPosToIJ >> UInt32(2 * (4 * o + (k & 3)))) & 3)
        let di = ij >> 1, dj = ij & 1
        let b = uvBounds
        let rect = FaceRect(uLo: di == 0 ? b.uLo : split.u, uHi: di == 0 ? split.u : b.uHi,
                            vLo: dj == 0 ? b.vLo : split.v, vHi: dj == 0 ? split.v : b.vHi)
        let childOrientation = o ^ Int((Self.packedPosToOrientation >> UInt32(2 * (k & 3))) & 3)
        return Cell(id: id.child(position: k), face: face, level: level + 1, iLo: Int(iLo) + di * half,
                    jLo: Int(jLo) + dj * half, orientation: childOrientation, uvBounds: rect)
    }

    /// The (s, t) bounds on the face.
    public var stBounds: FaceRect {
        let size = sizeIJ, i0 = Int(iLo), j0 = Int(jLo)
        return FaceRect(uLo: FaceProjection.ijToST(i0), uHi: FaceProjection.ijToST(i0 + size),
                        vLo: FaceProjection.ijToST(j0), vHi: FaceProjection.ijToST(j0 + size))
    }

    /// The (u, v) coordinates of corner `k` (0…3, taken mod 4).
    @inline(__always)
    func cornerUV(_ k: Int) -> (u: Double, v: Double) {
        switch k & 3 {
        case 0: return (uvBounds.uLo, uvBounds.vLo)
        case 1: return (uvBounds.uHi, uvBounds.vLo)
        case 2: return (uvBounds.uHi, uvBounds.vHi)
        default: return (uvBounds.uLo, uvBounds.vHi)
        }
    }

    /// Vertex `k` (0…3, taken mod 4) as a unit vector. Vertices are in counter-clockwise order
    /// seen from outside the sphere: (uLo, vLo), (uHi, vLo), (uHi, vHi), (uLo, vHi).
    public func vertex(_ k: Int) -> S2Point {
        let (u, v) = cornerUV(k)
        return FaceProjection.faceUVToXYZ(face, u, v).normalized
    }

    /// The four vertices, counter-clockwise.
    public var vertices: [S2Point] {
        [vertex(0), vertex(1), vertex(2), vertex(3)]
    }

    /// The centre of the cell (the (s, t) midpoint), a unit vector. Same value as
    /// `id.toPoint()`.
    public var center: S2Point {
        let size = sizeIJ
        let s = Double(2 * Int(iLo) + size) / (2 * FaceProjection.maxSizeDouble)
        let t = Double(2 * Int(jLo) + size) / (2 * FaceProjection.maxSizeDouble)
        return FaceProjection.faceUVToXYZ(face, FaceProjection.stToUV(s), FaceProjection.stToUV(t)).normalized
    }

    /// The four children in Hilbert order (empty for a leaf).
    public var children: [Cell] {
        guard level < CellID.maxLevel else { return [] }
        let split = childSplit
        return [child(0, split: split), child(1, split: split), child(2, split: split), child(3, split: split)]
    }

    /// Whether the point lies in the closed cell (boundary included), judged in (u, v) on the
    /// cell's face with ``uvTolerance`` slack. Points on a face edge belong to cells of both faces.
    public func contains(_ point: S2Point) -> Bool {
        guard let (u, v) = FaceProjection.faceXYZToUV(face, point) else { return false }
        let t = Self.uvTolerance
        return u >= uvBounds.uLo - t && u <= uvBounds.uHi + t && v >= uvBounds.vLo - t && v <= uvBounds.vHi + t
    }

    /// The minimum angle from `point` to any point of the cell; zero if the cell contains it.
    ///
    /// Conservative: the exact spherical distance to the nearest of the four edges minus
    /// ``distanceErrorBound`` (never below zero), so it never exceeds the true distance.
    public func distance(to point: S2Point) -> Angle {
        if contains(point) { return .zero }
        return Angle(radians: Swift.max(0, rawBoundaryDistance(to: point) - Self.distanceErrorBound.radians))
    }

    /// The maximum angle from `point` to any point of the cell, in [0, π].
    ///
    /// Conservative: computed as π minus the distance from the antipode of `point` to the cell,
    /// plus ``distanceErrorBound``, so it is never less than the true value.
    public func maxDistance(to point: S2Point) -> Angle {
        let antipode = -point
        if contains(antipode) { return .straight }
        let nearest = rawBoundaryDistance(to: antipode)
        return Angle(radians: Swift.min(Double.pi, Double.pi - nearest + Self.distanceErrorBound.radians))
    }

    /// The minimum distance from `point` to the cell as a chord angle: zero if the cell
    /// contains the point, otherwise the chord to the nearest boundary point shortened by
    /// ``chordErrorBound`` (so never more than the true distance). No trigonometry: use it to
    /// compare or order distances.
    public func chordDistance(to point: S2Point) -> ChordAngle {
        if contains(point) { return .zero }
        let p = Self.unit(point)
        let local = toLocal(p)
        let chord = nearestBoundary(local).chord2.squareRoot() - Self.chordErrorBound
        return ChordAngle(length2: chord > 0 ? chord * chord : 0)
    }

    /// The maximum distance from `point` to any point of the cell as a chord angle, lengthened by
    /// ``chordErrorBound`` (so never less than the true distance); ``ChordAngle/straight`` if the
    /// cell contains the antipode. Uses |p − x|² + |−p − x|² = 4 for unit vectors.
    public func maxChordDistance(to point: S2Point) -> ChordAngle {
        let antipode = -point
        if contains(antipode) { return .straight }
        // The farthest point from `point` is the nearest to its antipode.
        let local = toLocal(Self.unit(antipode))
        let chord = nearestBoundary(local).antiChord2.squareRoot() + Self.chordErrorBound
        return ChordAngle(length2: Swift.min(4, chord * chord))
    }

    /// Distance to the boundary in radians, ignoring containment: the nearest vertex or edge is
    /// found by squared chord length, and only its angle is computed (one `atan2`).
    private func rawBoundaryDistance(to point: S2Point) -> Double {
        let p = Self.unit(point)
        let q = toLocal(p)
        let feature = nearestBoundary(q).feature
        if feature < 4 {
            let (u, v) = cornerUV(feature)
            let corner = S2Point(x: 1, y: u, z: v)
            let qp = S2Point(x: q.x, y: q.u, z: q.v)
            return atan2(qp.cross(corner).norm, qp.dot(corner))
        }
        // Angle between q and the plane of the edge, atan2(|q·n|, |q × n|).
        let (c, alongU) = edgeLine(feature - 4)
        if alongU {
            // Edge on the line v = c: n = (c, 0, −1); |q × n|² = u²(1 + c²) + (x + c v)².
            let t = q.x + c * q.v
            return atan2(Swift.abs(c * q.x - q.v), (q.u * q.u * (1 + c * c) + t * t).squareRoot())
        } else {
            // Edge on the line u = c: n = (c, −1, 0); |q × n|² = v²(1 + c²) + (x + c u)².
            let t = q.x + c * q.u
            return atan2(Swift.abs(c * q.x - q.u), (q.v * q.v * (1 + c * c) + t * t).squareRoot())
        }
    }

    /// The minimum angle between the cell's boundary and the edge (a, b); zero if they cross.
    /// Not conservative by itself (no slack subtracted).
    func boundaryDistance(toEdge a: S2Point, _ b: S2Point) -> Double {
        let v = (vertex(0), vertex(1), vertex(2), vertex(3))
        var best = EdgeMath.distance(edge: a, b, toEdge: v.0, v.1)
        if best == 0 { return 0 }
        best = Swift.min(best, EdgeMath.distance(edge: a, b, toEdge: v.1, v.2))
        if best == 0 { return 0 }
        best = Swift.min(best, EdgeMath.distance(edge: a, b, toEdge: v.2, v.3))
        if best == 0 { return 0 }
        return Swift.min(best, EdgeMath.distance(edge: a, b, toEdge: v.3, v.0))
    }

    /// A cap containing the cell: centred at ``center`` with a radius reaching the farthest
    /// vertex plus 1e-14 rad. (The cell is convex and smaller than a hemisphere, so a cap that
    /// contains its vertices contains it.)
    public var capBound: Cap {
        let c = center
        var chord2 = 0.0
        for k in 0..<4 {
            chord2 = Swift.max(chord2, (c - vertex(k)).norm2)
        }
        let radius = 2 * asin(Swift.min(1, 0.5 * chord2.squareRoot()))
        return Cap(center: c, radius: Angle(radians: radius + 1e-14))
    }

    /// A latitude-longitude rectangle containing the cell (conservative, never too small).
    ///
    /// Latitude: the extremes of the four geodesic edges (interior peaks included) widened by
    /// 1e-14 rad; a cell touching a pole extends to it with all longitudes. Longitude: the union
    /// of the edges' spans, widened by 1e-14 / cos(max |lat|) rad (longitude is ill-conditioned
    /// near the poles), or full when that is large.
    public var rectBound: LatLngRect {
        var bounder = RectBounder()
        let v = vertices
        for k in 0..<4 {
            bounder.addEdge(v[k], v[(k + 1) & 3])
        }
        return bounder.finish(containsNorthPole: contains(.northPole), containsSouthPole: contains(.southPole))
    }

    // MARK: Region

    /// Whether `other` is inside this cell; decided by ids (exact for cells of the same grid).
    public func contains(_ other: Cell) -> Bool {
        id.contains(other.id)
    }

    /// Whether the closed cells may share a point: nested cells, or cells touching along an edge
    /// or at a vertex (within ``distanceErrorBound``).
    public func mayIntersect(_ other: Cell) -> Bool {
        if id.intersects(other.id) { return true }
        for k in 0..<4 {
            if other.distance(to: vertex(k)).radians <= 0 || distance(to: other.vertex(k)).radians <= 0 {
                return true
            }
        }
        return false
    }

    public static func == (lhs: Cell, rhs: Cell) -> Bool {
        lhs.id == rhs.id
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}

// MARK: - Geometry in the face frame

/// Coordinates of a vector in a face's frame: `x` along the face axis, `u` and `v` along the
/// face's u and v axes, so that the face point (u, v) is the direction (1, u, v).
struct FaceFramePoint {
    var x: Double
    var u: Double
    var v: Double
}

extension Cell {
    /// `point` scaled to unit length when it is not (within ``S2Point/isUnitLength``).
    @inline(__always)
    static func unit(_ point: S2Point) -> S2Point {
        point.isUnitLength ? point : point.normalized
    }

    /// The coordinates of `p` in this cell's face frame (an exact signed permutation).
    @inline(__always)
    func toLocal(_ p: S2Point) -> FaceFramePoint {
        switch face {
        case 0: return FaceFramePoint(x: p.x, u: p.y, v: p.z)
        case 1: return FaceFramePoint(x: p.y, u: -p.x, v: p.z)
        case 2: return FaceFramePoint(x: p.z, u: -p.x, v: -p.y)
        case 3: return FaceFramePoint(x: -p.x, u: -p.z, v: -p.y)
        case 4: return FaceFramePoint(x: -p.y, u: -p.z, v: p.x)
        default: return FaceFramePoint(x: -p.z, u: p.y, v: p.x)
        }
    }

    /// The line of edge `k` (0…3): `v = c` for edges 0 and 2 (`alongU`), `u = c` for 1 and 3.
    @inline(__always)
    func edgeLine(_ k: Int) -> (c: Double, alongU: Bool) {
        switch k & 3 {
        case 0: return (uvBounds.vLo, true)
        case 1: return (uvBounds.uHi, false)
        case 2: return (uvBounds.vHi, true)
        default: return (uvBounds.uLo, false)
        }
    }

    /// Whether the face-frame point lies in the cell with `tolerance` slack in (u, v); false for
    /// points not in the face's open hemisphere. (Multiplication form of ``contains(_:)-(S2Point)``.)
    @inline(__always)
    func containsLocal(_ q: FaceFramePoint, tolerance t: Double) -> Bool {
        let b = uvBounds
        return q.x > 0 && q.u >= (b.uLo - t) * q.x && q.u <= (b.uHi + t) * q.x
            && q.v >= (b.vLo - t) * q.x && q.v <= (b.vHi + t) * q.x
    }

    /// Squared chord from the unit face-frame point `q` to vertex `k`.
    @inline(__always)
    func chord2(_ q: FaceFramePoint, toVertex k: Int) -> Double {
        let (u, v) = cornerUV(k)
        let inv = 1 / (1 + u * u + v * v).squareRoot()
        let dx = q.x - inv, du = q.u - u * inv, dv = q.v - v * inv
        return dx * dx + du * du + dv * dv
    }

    /// For the unit face-frame point `q` whose nearest point on the great circle of edge `k` lies
    /// on the edge: sin² of the angle from `q` to that circle; otherwise nil. The edge lies on the
    /// line `u = c` (normal (c, −1, 0)) or `v = c` (normal (c, 0, −1)); the foot of `q` is on the
    /// edge when `t = x + c·w > 0` (w the coordinate across the line) and the coordinate along the
    /// line, `(along)(1 + c²) / t`, is within the edge's range.
    @inline(__always)
    func edgeSin2(_ q: FaceFramePoint, edge k: Int) -> Double? {
        let (c, alongU) = edgeLine(k)
        let n2 = 1 + c * c
        let across = alongU ? q.v : q.u
        let along = alongU ? q.u : q.v
        let lo = alongU ? uvBounds.uLo : uvBounds.vLo
        let hi = alongU ? uvBounds.uHi : uvBounds.vHi
        let t = q.x + c * across
        let scaled = along * n2
        guard t > 0, scaled >= lo * t, scaled <= hi * t else { return nil }
        let dot = c * q.x - across
        return dot * dot / n2
    }

    /// The nearest vertex or edge of the boundary to the unit face-frame point `q`: its squared
    /// chord distance, the squared chord from `−q` to the same point (`4 − chord2`, but computed
    /// directly so that it is accurate when small), and which feature it is (0…3: vertex k,
    /// 4…7: edge k − 4).
    ///
    /// Features within π/2 (chord² ≤ 2) are ordered by chord², which is accurate there. When
    /// every feature is farther (only vertices can be: the foot of `q` on an edge's circle is
    /// within π/2), chord² ≈ 4 cannot tell them apart, so the vertex with the largest `|q + v|²`
    /// is taken instead.
    func nearestBoundary(_ q: FaceFramePoint) -> (chord2: Double, antiChord2: Double, feature: Int) {
        var best = Double.infinity, feature = 0
        var bestAnti = -1.0, farFeature = 0
        for k in 0..<4 {
            let (u, v) = cornerUV(k)
            let inv = 1 / (1 + u * u + v * v).squareRoot()
            let vx = inv, vu = u * inv, vv = v * inv
            let dx = q.x - vx, du = q.u - vu, dv = q.v - vv
            let d2 = dx * dx + du * du + dv * dv
            if d2 < best {
                best = d2
                feature = k
            }
            let sx = q.x + vx, su = q.u + vu, sv = q.v + vv
            let a2 = sx * sx + su * su + sv * sv
            if a2 > bestAnti {
                bestAnti = a2
                farFeature = k
            }
        }
        for k in 0..<4 {
            guard let s2 = edgeSin2(q, edge: k) else { continue }
            // chord² = 2(1 − cos d) = 2 sin²d / (1 + cos d), d ≤ π/2.
            let d2 = 2 * s2 / (1 + Swift.max(0, 1 - s2).squareRoot())
            if d2 < best {
                best = d2
                feature = 4 + k
            }
        }
        if best <= 2 {
            return (best, 4 - best, feature)
        }
        return (Swift.max(best, 4 - bestAnti), bestAnti, farFeature)
    }

    /// Whether some point of the cell may be within reach of the unit vector `center` (a cap
    /// smaller than a hemisphere; see ``CapCellTest``): `reach2` is the squared chord reach of a
    /// vertex, `sin2Reach` the squared sine reach of an edge's great circle. Quick accepts: a
    /// vertex within reach, then the centre in the cell; otherwise the nearest point of the cell
    /// lies inside an edge, tested by the sine of the centre's distance to the edge's circle.
    func mayIntersectSmallCap(center: S2Point, reach2: Double, sin2Reach: Double) -> Bool {
        let q = toLocal(center)
        for k in 0..<4 where chord2(q, toVertex: k) <= reach2 {
            return true
        }
        return mayIntersectSmallCapBeyondVertices(q, sin2Reach: sin2Reach)
    }

    /// The rest of ``mayIntersectSmallCap(center:reach2:sin2Reach:)`` once no vertex is within
    /// reach: the centre in the cell, or an edge whose great circle is within reach with the
    /// centre's foot on the edge.
    func mayIntersectSmallCapBeyondVertices(_ q: FaceFramePoint, sin2Reach: Double) -> Bool {
        if containsLocal(q, tolerance: Self.uvTolerance) { return true }
        for k in 0..<4 {
            if let s2 = edgeSin2(q, edge: k), s2 <= sin2Reach { return true }
        }
        return false
    }

    /// How the great-circle arc from `a` to `b` (unit vectors) lies relative to the cell.
    enum ArcPlacement {
        /// Farther from the cell than the distance the `outer` margin stands for.
        case far
        /// Enters the cell's interior (by more than the `inner` margin).
        case enters
        /// Neither could be decided cheaply.
        case unknown
    }

    /// Classifies the arc (a, b) in the cell face's gnomonic plane, where the arc is the straight
    /// segment between the endpoints' (u, v) when both are well inside the face's hemisphere
    /// (x > 0.1, so |u|, |v| < 10 and the division rounds by ≲ 1e-15).
    ///
    /// `far`: the segment misses the (u, v) rectangle widened by `outer`. An angle θ near the
    /// cell (|u|, |v| ≤ 1) spans at most (1 + u² + v²)·θ ≤ 3θ in (u, v), so `outer` ≥ 3·d plus
    /// rounding slack means the arc is farther than d from the cell. `enters`: the segment meets
    /// the rectangle narrowed by `inner`, so the arc passes through the cell's interior.
    func placement(ofArc a: S2Point, _ b: S2Point, outer: Double, inner: Double) -> ArcPlacement {
        let qa = toLocal(a), qb = toLocal(b)
        guard qa.x > 0.1, qb.x > 0.1 else { return .unknown }
        let au = qa.u / qa.x, av = qa.v / qa.x
        let bu = qb.u / qb.x, bv = qb.v / qb.x
        let r = uvBounds
        if !Self.segmentMeetsRect(au, av, bu, bv, r.uLo - outer, r.uHi + outer, r.vLo - outer, r.vHi + outer) {
            return .far
        }
        if r.uHi - r.uLo > 2 * inner && r.vHi - r.vLo > 2 * inner
            && Self.segmentMeetsRect(au, av, bu, bv, r.uLo + inner, r.uHi - inner, r.vLo + inner, r.vHi - inner) {
            return .enters
        }
        return .unknown
    }

    /// Whether the segment (x0, y0)–(x1, y1) meets the closed rectangle (Liang–Barsky clipping).
    static func segmentMeetsRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
                                 _ xLo: Double, _ xHi: Double, _ yLo: Double, _ yHi: Double) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = x1 - x0, dy = y1 - y0
        @inline(__always) func clip(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let t = q / p
            if p < 0 {
                if t > t1 { return false }
                if t > t0 { t0 = t }
            } else {
                if t < t0 { return false }
                if t < t1 { t1 = t }
            }
            return true
        }
        return clip(-dx, x0 - xLo) && clip(dx, xHi - x0) && clip(-dy, y0 - yLo) && clip(dy, yHi - y0)
    }

    /// Whether every vertex is within the squared chord `limit2` of the unit vector `center`.
    func verticesWithin(chord2 limit2: Double, of center: S2Point) -> Bool {
        let q = toLocal(center)
        for k in 0..<4 where !(chord2(q, toVertex: k) <= limit2) {
            return false
        }
        return true
    }
}
