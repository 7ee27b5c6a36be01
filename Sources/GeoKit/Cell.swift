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
    private let v0: S2Point
    private let v1: S2Point
    private let v2: S2Point
    private let v3: S2Point

    /// Slack added to the (u, v) bounds by point containment (face-coordinate units).
    public static let uvTolerance = 4e-15

    /// Absolute slack, in radians, by which ``distance(to:)`` is lowered and
    /// ``maxDistance(to:)`` raised so that both are conservative. It covers the floating-point
    /// error of the computation (~1e-15 rad) and the projection rounding covered by
    /// ``uvTolerance``.
    public static let distanceErrorBound = Angle(radians: 2e-14)

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
        let (face, iLo, jLo, size) = id.ijBounds()
        self.id = id
        self.face = face
        self.level = id.level
        let uLo = FaceProjection.stToUV(FaceProjection.ijToST(iLo))
        let uHi = FaceProjection.stToUV(FaceProjection.ijToST(iLo + size))
        let vLo = FaceProjection.stToUV(FaceProjection.ijToST(jLo))
        let vHi = FaceProjection.stToUV(FaceProjection.ijToST(jLo + size))
        self.uvBounds = FaceRect(uLo: uLo, uHi: uHi, vLo: vLo, vHi: vHi)
        v0 = FaceProjection.faceUVToXYZ(face, uLo, vLo).normalized
        v1 = FaceProjection.faceUVToXYZ(face, uHi, vLo).normalized
        v2 = FaceProjection.faceUVToXYZ(face, uHi, vHi).normalized
        v3 = FaceProjection.faceUVToXYZ(face, uLo, vHi).normalized
    }

    /// The (s, t) bounds on the face.
    public var stBounds: FaceRect {
        let (_, iLo, jLo, size) = id.ijBounds()
        return FaceRect(uLo: FaceProjection.ijToST(iLo), uHi: FaceProjection.ijToST(iLo + size),
                        vLo: FaceProjection.ijToST(jLo), vHi: FaceProjection.ijToST(jLo + size))
    }

    /// Vertex `k` (0…3, taken mod 4) as a unit vector. Vertices are in counter-clockwise order
    /// seen from outside the sphere: (uLo, vLo), (uHi, vLo), (uHi, vHi), (uLo, vHi).
    public func vertex(_ k: Int) -> S2Point {
        switch k & 3 {
        case 0: return v0
        case 1: return v1
        case 2: return v2
        default: return v3
        }
    }

    /// The four vertices, counter-clockwise.
    public var vertices: [S2Point] {
        [v0, v1, v2, v3]
    }

    /// The centre of the cell (the (s, t) midpoint), a unit vector.
    public var center: S2Point {
        id.toPoint()
    }

    /// The four children in Hilbert order (empty for a leaf).
    public var children: [Cell] {
        id.children.map { Cell(unchecked: $0) }
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

    /// Distance to the boundary, ignoring containment.
    private func rawBoundaryDistance(to point: S2Point) -> Double {
        var best = Double.infinity
        for k in 0..<4 {
            best = Swift.min(best, EdgeMath.distance(point, toEdge: vertex(k), vertex(k + 1)))
        }
        return best
    }

    /// The minimum angle between the cell's boundary and the edge (a, b); zero if they cross.
    /// Not conservative by itself (no slack subtracted).
    func boundaryDistance(toEdge a: S2Point, _ b: S2Point) -> Double {
        var best = Double.infinity
        for k in 0..<4 {
            best = Swift.min(best, EdgeMath.distance(edge: a, b, toEdge: vertex(k), vertex(k + 1)))
            if best == 0 { break }
        }
        return best
    }

    /// A cap containing the cell: centred at ``center`` with a radius reaching the farthest
    /// vertex plus 1e-14 rad. (The cell is convex and smaller than a hemisphere, so a cap that
    /// contains its vertices contains it.)
    public var capBound: Cap {
        let c = center
        var radius = 0.0
        for k in 0..<4 {
            radius = Swift.max(radius, c.angle(to: vertex(k)).radians)
        }
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
        for k in 0..<4 {
            bounder.addEdge(vertex(k), vertex(k + 1))
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
