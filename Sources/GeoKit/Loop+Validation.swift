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
    /// candidate pair is decided with exact orientation signs plus a touching test.
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
        EdgeSweep.forEachCandidatePair(EdgeSweep.boxes(loops: [v])) { first, second in
            let i = first.edge, j = second.edge
            if (i + 1) % n == j || (j + 1) % n == i { return true }
            if Self.edgesIntersect(v[i], v[(i + 1) % n], v[j], v[(j + 1) % n]) {
                problem = .invalidLoop("edges \(Swift.min(i, j)) and \(Swift.max(i, j)) cross")
                return false
            }
            return true
        }
        return problem
    }

    /// Whether closed edges (a, b) and (c, d) share a point (cross or touch).
    static func edgesIntersect(_ a: S2Point, _ b: S2Point, _ c: S2Point, _ d: S2Point) -> Bool {
        EdgeMath.distance(edge: a, b, toEdge: c, d) <= touchTolerance
    }
}

/// A sweep over edge bounding boxes that reports pairs of edges whose boxes overlap.
enum EdgeSweep {
    struct Box {
        var lo: S2Point
        var hi: S2Point
        let loop: Int
        let edge: Int
    }

    /// Boxes for every edge of every loop (each loop closed implicitly).
    static func boxes(loops: [[S2Point]]) -> [Box] {
        var result: [Box] = []
        for (loopIndex, v) in loops.enumerated() {
            let n = v.count
            for i in 0..<n {
                let a = v[i], b = v[(i + 1) % n]
                let theta = a.angle(to: b).radians
                // sagitta = 1 − cos(θ/2) = 2 sin²(θ/4), plus rounding slack.
                let s = 2 * (theta / 4) * (theta / 4) + 1e-15 + 1e-12 * theta
                let pad = S2Point(x: s, y: s, z: s)
                let lo = S2Point(x: Swift.min(a.x, b.x), y: Swift.min(a.y, b.y), z: Swift.min(a.z, b.z)) - pad
                let hi = S2Point(x: Swift.max(a.x, b.x), y: Swift.max(a.y, b.y), z: Swift.max(a.z, b.z)) + pad
                result.append(Box(lo: lo, hi: hi, loop: loopIndex, edge: i))
            }
        }
        return result
    }

    /// Calls `body` for every pair of boxes that overlap in x, y and z, until it returns false.
    /// Pairs are reported once, in no particular order.
    static func forEachCandidatePair(_ boxes: [Box], _ body: (Box, Box) -> Bool) {
        let sorted = boxes.sorted { $0.lo.x < $1.lo.x }
        for i in sorted.indices {
            let first = sorted[i]
            var j = i + 1
            while j < sorted.count && sorted[j].lo.x <= first.hi.x {
                let second = sorted[j]
                j += 1
                if second.lo.y > first.hi.y || second.hi.y < first.lo.y { continue }
                if second.lo.z > first.hi.z || second.hi.z < first.lo.z { continue }
                if !body(first, second) { return }
            }
        }
    }
}
