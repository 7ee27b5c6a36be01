#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Point and cell containment of loops.
extension Loop {
    /// Whether the point is inside the loop or on its boundary (within ``boundaryTolerance``).
    public func contains(_ point: S2Point) -> Bool {
        geometry.mayContain(point) && geometry.containsFused(point)
    }

    /// Whether the point is within ``boundaryTolerance`` of an edge.
    public func isOnBoundary(_ point: S2Point) -> Bool {
        geometry.mayContain(point) && geometry.isOnBoundary(point)
    }

    /// Whether the point is inside the loop and not on its boundary.
    public func containsStrictly(_ point: S2Point) -> Bool {
        geometry.mayContain(point) && geometry.parityContains(point) && !geometry.isOnBoundary(point)
    }

    /// The minimum angle from the point to the loop's boundary (exact up to ~1e-15 rad).
    public func boundaryDistance(to point: S2Point) -> Angle {
        var best = Double.infinity
        let v = vertices
        for i in v.indices {
            best = Swift.min(best, EdgeMath.distance(point, toEdge: v[i], v[(i + 1) % v.count],
                                                     normal: geometry.normals[i]))
        }
        return Angle(radians: best)
    }

    /// Conservative: true only if no edge comes within rounding slack of the cell and the cell is
    /// inside the loop.
    public func contains(_ cell: Cell) -> Bool {
        geometry.cellInside(cell, clearance: LoopGeometry.cellSlack)
    }

    /// Conservative: false only if the cell is farther than the tolerance from the boundary and
    /// outside the loop.
    public func mayIntersect(_ cell: Cell) -> Bool {
        geometry.cellMayIntersect(cell)
    }

    /// Conservative: true only if every point of the cell is inside the loop and farther than
    /// ``boundaryTolerance`` from its boundary (used for holes).
    func containsStrictly(_ cell: Cell) -> Bool {
        geometry.cellInside(cell, clearance: geometry.tolerance + LoopGeometry.cellSlack)
    }
}

extension LoopGeometry {
    /// Slack (radians) added to cell–edge distance tests to absorb rounding in cell geometry and
    /// in the point → leaf-cell projection.
    static let cellSlack = 2 * Cell.distanceErrorBound.radians

    /// A bound on the rounding error of the filtered determinants in ``crossingParityFast``,
    /// per unit of `|y|₁` (the query point's 1-norm).
    ///
    /// For unit (±1e-14) vectors x, y, v, the floating-point `fl(fl(x × y) · v)` differs from
    /// det(x, y, v) by at most (2√3 + 3)·u·|y|₁ + O(u²) ≈ 7.2e-16·|y|₁ (u = 2⁻⁵³): each
    /// component of the cross product errs by ≤ 2u(|x_j y_k| + |x_k y_j|) ≤ 2u|y|₁, which the
    /// dot product scales by ≤ |v|₁ ≤ √3, and the dot product itself adds ≤ 3u|x × y||v|. The
    /// same bound holds for `fl(plainNormals[i] · y)` against det(vᵢ, vᵢ₊₁, y). A sign is taken
    /// from the floating-point value only beyond 2e-15·|y|₁ (a margin of ~2.8×); otherwise the
    /// exact predicate decides.
    static let signFilterBound = 2e-15

    /// Whether the point may be in the loop's padded bounding rectangle (a cheap, permissive
    /// prefilter: points it rejects are farther than the tolerance from the loop).
    @inline(__always)
    func mayContain(_ point: S2Point) -> Bool {
        // The padded rectangle's cap first (one chord), then the rectangle itself.
        let c = capBound
        if !c.isFull {
            let limit = c.chordRadius.length2 * (1 + 1e-12) + 1e-15
            if !((c.center - Cell.unit(point)).norm2 <= limit) { return false }
        }
        return rectTest.mayContain(point)
    }

    /// Inside by crossing parity from a reference point (exact for points off the boundary).
    ///
    /// Any reference point on no edge's great circle gives the same answer for points off the
    /// boundary (the half-open rule for vertices on the arc's plane is a consistent
    /// perturbation), so the nearby ``localReference`` is preferred; points on the boundary are
    /// decided by the boundary tests of every caller.
    func parityContains(_ point: S2Point) -> Bool {
        guard let reference = reference(for: point) else { return false }
        return reference.inside != crossingParityFast(from: reference, to: point)
    }

    /// The reference point to count crossings from: the local one, else the first global one
    /// (the second if the point is the first one's antipode).
    @inline(__always)
    func reference(for point: S2Point) -> LoopReference? {
        if let local = localReference, point != -local.point { return local }
        guard let first = references.first else { return nil }
        if point == -first.point, references.count > 1 {
            return references[1]
        }
        return first
    }

    /// ``crossingParity(vertices:from:fromSigns:to:skippingVertex:)`` from a reference point,
    /// with the same exact decisions: each orientation sign is read from a floating-point
    /// determinant (one dot product with the cached `x × y` or edge normal) when it exceeds
    /// ``signFilterBound``, and from ``Predicates/sign(_:_:_:)`` otherwise.
    func crossingParityFast(from reference: LoopReference, to y: S2Point) -> Bool {
        crossingParityFast(from: reference, to: y, screenBoundary: false).odd
    }

    /// The crossing parity and, with `screenBoundary`, whether `y` is within sin(tolerance) of
    /// some edge's great circle (the quick test of ``isOnBoundary(_:)``; always true for
    /// degenerate edges).
    func crossingParityFast(from reference: LoopReference, to y: S2Point,
                            screenBoundary: Bool) -> (odd: Bool, nearCircle: Bool) {
        let n = vertices.count
        guard n >= 2 else { return (false, screenBoundary) }
        let x = reference.point
        let m = x.cross(y)
        let bound = Self.signFilterBound * (Swift.abs(y.x) + Swift.abs(y.y) + Swift.abs(y.z))
        let quickLimit = sinTolerance + 1e-15
        // Chunk tests (see EdgeChunk): all of a run's vertices are strictly on one side of the
        // plane of x and y when |m · C| > |m| sin ρ + margin. The margin covers the rounding of
        // m (≤ 2u|y|₁ per component, as in signFilterBound), of the two products, and the factor
        // 2/π lost in cos(θ + ρ) ≥ sin(margin / |m|) ≥ (2/π)·margin / |m|.
        let mNorm = m.norm
        let sideMargin = 2 * bound + 4e-15 * mNorm
        // The arc from x to y lies within h = angle(x, y)/2 of its midpoint M, with
        // 2 sin h = |x − y| and 2 cos h = |x + y|: a run whose cap is farther than its radius + h
        // from M cannot meet the arc, so none of its edges crosses it.
        let sum = x + y
        let sumNorm = sum.norm
        let arcUsable = sumNorm > 1e-3 && Swift.abs(y.norm2 - 1) <= 1e-14
        let mid = arcUsable ? sum / sumNorm : x
        let cosH = 0.5 * sumNorm, sinH = 0.5 * (x - y).norm
        // Skipping runs far from y for the boundary screen assumes a unit y.
        let screenByChunk = screenBoundary && Swift.abs(y.norm2 - 1) <= 1e-14
        return vertices.withUnsafeBufferPointer { v in
            plainNormals.withUnsafeBufferPointer { normals in
                unitNormals.withUnsafeBufferPointer { units in
                    reference.edgeSigns.withUnsafeBufferPointer { fromSigns in
                        chunks.withUnsafeBufferPointer { runs in
                            var odd = false
                            var near = false
                            var sideA = Self.side(m.dot(v[0]), bound, x, y, v[0])
                            var i = 0
                            while i < n {
                                if i % EdgeChunk.size == 0 {
                                    // The run adds no crossing if no vertex changes side, or if it
                                    // cannot meet the arc; then only the boundary screen may need
                                    // its edges (when y is within the run's cap plus tolerance).
                                    let run = runs[i / EdgeChunk.size]
                                    let end = Swift.min(i + EdgeChunk.size, n)
                                    let s = m.dot(run.center)
                                    let limit = mNorm * run.sinRadius + sideMargin
                                    var skip = false
                                    if s > limit || s < -limit {
                                        sideA = s > 0
                                        skip = true
                                    } else if arcUsable && run.radius < Double.pi / 2
                                        && mid.dot(run.center) < run.cosRadius * cosH - run.sinRadius * sinH - 1e-14 {
                                        let last = v[end == n ? 0 : end]
                                        sideA = Self.side(m.dot(last), bound, x, y, last)
                                        skip = true
                                    }
                                    if skip {
                                        if screenBoundary && !near && !(screenByChunk && y.dot(run.center) < run.cosReach) {
                                            for k in i..<end where !(Swift.abs(y.dot(units[k])) > quickLimit) {
                                                near = true
                                                break
                                            }
                                        }
                                        i = end
                                        continue
                                    }
                                }
                                let b = v[i + 1 == n ? 0 : i + 1]
                                let sideB = Self.side(m.dot(b), bound, x, y, b)
                                if sideA != sideB && Int(fromSigns[i]) == (sideB ? 1 : -1) {
                                    // The crossing lies on the arc iff sign(a, b, y) = side(a).
                                    if Self.sign(normals[i].dot(y), bound, v[i], b, y) == (sideA ? 1 : -1) {
                                        odd.toggle()
                                    }
                                }
                                sideA = sideB
                                // A degenerate edge's unit normal is zero, so it always counts as near.
                                if screenBoundary && !near {
                                    near = !(Swift.abs(y.dot(units[i])) > quickLimit)
                                }
                                i += 1
                            }
                            return (odd, near)
                        }
                    }
                }
            }
        }
    }

    /// Whether det(x, y, b) ≥ 0, from its floating-point value `d` when beyond `bound`.
    @inline(__always)
    static func side(_ d: Double, _ bound: Double, _ x: S2Point, _ y: S2Point, _ b: S2Point) -> Bool {
        if d > bound { return true }
        if d < -bound { return false }
        return exactSign(x, y, b) >= 0
    }

    /// The sign of det(a, b, y), from its floating-point value `e` when beyond `bound`.
    @inline(__always)
    static func sign(_ e: Double, _ bound: Double, _ a: S2Point, _ b: S2Point, _ y: S2Point) -> Int {
        if e > bound { return 1 }
        if e < -bound { return -1 }
        return exactSign(a, b, y)
    }

    /// ``Predicates/sign(_:_:_:)`` out of line (the rare slow path of the filters).
    @inline(never)
    static func exactSign(_ a: S2Point, _ b: S2Point, _ c: S2Point) -> Int {
        Predicates.sign(a, b, c)
    }

    /// Whether the point is within the tolerance of an edge.
    func isOnBoundary(_ point: S2Point) -> Bool {
        Self.isOnBoundary(point, vertices: vertices, normals: normals, unitNormals: unitNormals,
                          tolerance: tolerance, sinTolerance: sinTolerance)
    }

    /// Membership without the bounding-rectangle prefilter.
    func containsUnfiltered(_ point: S2Point) -> Bool {
        parityContains(point) || isOnBoundary(point)
    }

    /// ``containsUnfiltered(_:)`` in one pass over the edges: the crossing parity, and whether
    /// the point is near some edge's great circle (|p · n̂| within sin(tolerance)); only then is
    /// the exact boundary distance computed, and only if the parity says outside.
    func containsFused(_ point: S2Point) -> Bool {
        guard let reference = reference(for: point) else { return isOnBoundary(point) }
        let (odd, nearCircle) = crossingParityFast(from: reference, to: point, screenBoundary: true)
        if reference.inside != odd { return true }
        return nearCircle && isOnBoundary(point)
    }

    /// A cell with its bounding cap, computed once for several edge scans.
    struct CellReach {
        let cell: Cell
        let center: S2Point
        /// The cap radius reaching the farthest vertex, plus 1e-14 rad.
        let radius: Double

        init(_ cell: Cell) {
            self.cell = cell
            let c = cell.center
            center = c
            var chord2 = 0.0
            for k in 0..<4 {
                chord2 = Swift.max(chord2, (c - cell.vertex(k)).norm2)
            }
            radius = 2 * asin(Swift.min(1, 0.5 * chord2.squareRoot())) + 1e-14
        }
    }

    /// Whether some edge comes within `distance` radians of the cell (or enters it).
    ///
    /// Edges are skipped when their bounding cap is farther from the cell's cap than `distance`
    /// (cos of the sum of the radii by the addition formula, with cos/sin of each edge's radius
    /// precomputed), or when the whole cell cap is farther than `distance` from the edge's great
    /// circle; the remaining edges get the exact test (an endpoint in the cell, or the
    /// edge-to-boundary distance).
    func edgeNear(_ cell: Cell, distance: Double) -> Bool {
        edgeNear(CellReach(cell), distance: distance)
    }

    func edgeNear(_ reach: CellReach, distance: Double) -> Bool {
        let v = vertices
        let n = v.count
        guard n > 0 else { return false }
        let cell = reach.cell
        let cellCenter = reach.center
        let total = reach.radius + distance
        let cosTotal = cos(total), sinTotal = sin(total)
        // |c · n̂| > sin(total) puts the whole cap farther than `distance` from the circle.
        let circleLimit = total < Double.pi / 2 ? sinTotal + 2e-15 : Double.infinity
        var i = 0
        while i < n {
            if i % EdgeChunk.size == 0 {
                // Skip a run of edges whose cap is farther than `distance` from the cell's cap.
                let run = chunks[i / EdgeChunk.size]
                if run.radius + total < Double.pi
                    && run.center.dot(cellCenter) < run.cosRadius * cosTotal - run.sinRadius * sinTotal - 2e-15 {
                    i = Swift.min(i + EdgeChunk.size, n)
                    continue
                }
            }
            defer { i += 1 }
            let edgeRadius = edgeRadii[i]
            if edgeRadius + total < Double.pi {
                let (c, s) = edgeRadiusCosSin[i]
                if edgeCenters[i].dot(cellCenter) < c * cosTotal - s * sinTotal - 2e-15 { continue }
            }
            let unit = unitNormals[i]
            if unit.norm2 > 0 && Swift.abs(unit.dot(cellCenter)) > circleLimit { continue }
            let a = v[i], b = v[i + 1 == n ? 0 : i + 1]
            if cell.contains(a) || cell.contains(b) { return true }
            switch cell.placement(ofArc: a, b, outer: 3.01 * distance + 1e-13, inner: 1e-13) {
            case .far: continue
            case .enters: return true
            case .unknown:
                if cell.boundaryDistance(toEdge: a, b) <= distance { return true }
            }
        }
        return false
    }

    /// Whether the whole cell is inside the loop with every edge farther than `clearance`.
    func cellInside(_ cell: Cell, clearance: Double) -> Bool {
        guard vertices.count >= 3, rectTest.mayIntersect(cell) else { return false }
        if edgeNear(cell, distance: clearance) { return false }
        return parityContains(cell.center)
    }

    /// Whether the cell may meet the loop's region (interior or tolerance band).
    func cellMayIntersect(_ cell: Cell) -> Bool {
        guard !vertices.isEmpty, rectTest.mayIntersect(cell) else { return false }
        if edgeNear(cell, distance: tolerance + Self.cellSlack) { return true }
        return vertices.count >= 3 && parityContains(cell.center)
    }

    /// `(cellMayIntersect(cell), needInside && cellInside(cell, clearance: cellSlack))`, sharing
    /// the bound test, the cell's cap and the parity of its centre. Since edgeNear is monotone in
    /// the distance and cellSlack ≤ tolerance + cellSlack, a cell with no edge within the
    /// tolerance band has none within cellSlack either.
    func relate(_ cell: Cell, needInside: Bool) -> (intersects: Bool, inside: Bool) {
        guard !vertices.isEmpty, rectTest.mayIntersect(cell) else { return (false, false) }
        let reach = CellReach(cell)
        if edgeNear(reach, distance: tolerance + Self.cellSlack) {
            guard needInside, vertices.count >= 3, !edgeNear(reach, distance: Self.cellSlack) else { return (true, false) }
            return (true, parityContains(reach.center))
        }
        guard vertices.count >= 3 else { return (false, false) }
        let inside = parityContains(reach.center)
        return (inside, needInside && inside)
    }

    /// `(cellMayIntersect(cell), cellInside(cell, clearance: tolerance + cellSlack))` for holes:
    /// both scan edges at the same distance.
    func relateHole(_ cell: Cell) -> (intersects: Bool, insideStrictly: Bool) {
        guard !vertices.isEmpty, rectTest.mayIntersect(cell) else { return (false, false) }
        if edgeNear(cell, distance: tolerance + Self.cellSlack) { return (true, false) }
        guard vertices.count >= 3 else { return (false, false) }
        let inside = parityContains(cell.center)
        return (inside, inside)
    }
}
