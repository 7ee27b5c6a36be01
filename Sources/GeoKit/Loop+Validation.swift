/// Validity of loops: no degenerate edges, no spikes, no self-intersections.
extension Loop {
    /// Two edges closer than this (radians) count as touching: essentially exact, allowing only
    /// for rounding in the distance computation.
    static let touchTolerance = 2e-15

    /// Whether the loop is a simple ring: at least 3 unit-length vertices, no repeated or
    /// antipodal adjacent vertices, no edge doubling back on the previous one, and no two
    /// non-adjacent edges crossing or touching.
    public var isValid: Bool {
        validationError() == nil
    }

    /// Throws the first problem found, if any (see ``isValid``).
    ///
    /// - Throws: ``GeoError/tooFewVertices`` or ``GeoError/invalidLoop`` (with a reason).
    public func validate() throws(GeoError) {
        if let error = validationError() { throw error }
    }

    /// The first validity problem, or nil.
    ///
    /// Self-intersections are found with a sweep over the edges' 3-D bounding boxes (an arc lies
    /// within its sagitta, 1 − cos(θ/2), of its chord), so typical rings take O(n log n); each
    /// candidate pair is first screened with two plane-side tests, then decided with exact
    /// orientation signs plus a touching test. A ring whose boxes overlap so much that the sweep
    /// exceeds its budget (``EdgeSweep/budget(for:)``) is refused with ``GeoError/tooComplex``.
    func validationError() -> GeoError? {
        let v = vertices
        let n = v.count
        guard n >= 3 else { return .tooFewVertices }
        for (i, p) in v.enumerated() where !p.isFinite || !p.isUnitLength {
            return .invalidLoop("vertex \(i) is not a unit vector")
        }
        for i in 0..<n {
            let a = v[i], b = v[(i + 1) % n]
            if a == b { return .invalidLoop("vertices \(i) and \((i + 1) % n) are identical") }
            if (a + b).norm2 < 1e-28 { return .invalidLoop("vertices \(i) and \((i + 1) % n) are antipodal") }
        }
        for i in 0..<n {
            let prev = v[(i + n - 1) % n], cur = v[i], next = v[(i + 1) % n]
            if EdgeMath.distance(next, toEdge: prev, cur) <= Self.touchTolerance
                || EdgeMath.distance(prev, toEdge: cur, next) <= Self.touchTolerance {
                return .invalidLoop("edges \((i + n - 1) % n) and \(i) overlap")
            }
        }
        guard n > 3 else { return nil }
        var problem: GeoError?
        let outcome = EdgeSweep.forEachCandidatePair(EdgeSweep.boxes(loops: [v]), budget: EdgeSweep.budget(for: n)) { first, second in
            let i = first.edge, j = second.edge
            if (i + 1) % n == j || (j + 1) % n == i { return true }
            let a = v[i], b = v[(i + 1) % n], c = v[j], d = v[(j + 1) % n]
            if !Self.edgesSurelyApart(a, b, c, d) && Self.edgesIntersect(a, b, c, d) {
                problem = .invalidLoop("edges \(Swift.min(i, j)) and \(Swift.max(i, j)) cross")
                return false
            }
            return true
        }
        if outcome == .overBudget { return .tooComplex(edges: n) }
        return problem
    }

    /// Whether edges (a, b) and (c, d) of unit vectors are surely more than ``touchTolerance``
    /// apart: both ends of one lie clear on one side of the other's great circle (then so does
    /// the whole arc). Cheap, no trigonometry; false means "decide exactly".
    static func edgesSurelyApart(_ a: S2Point, _ b: S2Point, _ c: S2Point, _ d: S2Point) -> Bool {
        clearOfGreatCircle(a, b, c, d) || clearOfGreatCircle(c, d, a, b)
    }

    /// Whether `c` and `d` are both on one side of the great circle through `a` and `b`, each
    /// farther than ``touchTolerance`` from it. The margin covers the rounding of the plain cross
    /// and dot products (≤ 1e-15 for unit vectors), so a true answer is never wrong.
    static func clearOfGreatCircle(_ a: S2Point, _ b: S2Point, _ c: S2Point, _ d: S2Point) -> Bool {
        let normal = a.cross(b)
        let margin = normal.norm * touchTolerance * 1.01 + 1e-14
        let sc = normal.dot(c), sd = normal.dot(d)
        return (sc > margin && sd > margin) || (sc < -margin && sd < -margin)
    }

    /// Whether closed edges (a, b) and (c, d) share a point (cross or touch).
    static func edgesIntersect(_ a: S2Point, _ b: S2Point, _ c: S2Point, _ d: S2Point) -> Bool {
        EdgeMath.distance(edge: a, b, toEdge: c, d) <= touchTolerance
    }
}
