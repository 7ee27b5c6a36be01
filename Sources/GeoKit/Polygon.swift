/// A spherical polygon: one shell loop minus zero or more holes.
///
/// A point is inside when the shell contains it (boundary included) and no hole contains it
/// *strictly*: points on a hole's boundary (within the hole's tolerance) belong to the polygon,
/// matching MongoDB, where the whole boundary counts as inside.
public struct Polygon: Sendable, Region, CustomStringConvertible {
    /// The outer ring.
    public let shell: Loop
    /// The holes, each the region removed from the shell.
    public let holes: [Loop]

    /// A polygon from loops taken as they are (no validation; see ``validate()``).
    public init(shell: Loop, holes: [Loop] = []) {
        self.shell = shell
        self.holes = holes
    }

    /// A polygon from GeoJSON rings: the first is the shell, the others holes. Every ring
    /// follows ``Loop/init(geoJSONRing:winding:boundaryTolerance:)``; with
    /// ``Loop/Winding/counterClockwise`` (strict winding) only one ring is allowed.
    ///
    /// - Throws: any ``Loop`` ring error, ``GeoError/emptyPolygon``,
    ///   ``GeoError/strictWindingHoles``, ``GeoError/holeNotContained`` or
    ///   ``GeoError/overlappingLoops``.
    public init(geoJSONRings rings: [[LatLng]], winding: Loop.Winding = .smallerRegion,
                boundaryTolerance: Angle = Loop.defaultBoundaryTolerance) throws(GeoError) {
        guard let first = rings.first else { throw GeoError.emptyPolygon }
        if winding == .counterClockwise && rings.count > 1 { throw GeoError.strictWindingHoles }
        let shell = try Loop(geoJSONRing: first, winding: winding, boundaryTolerance: boundaryTolerance)
        var holes: [Loop] = []
        for ring in rings.dropFirst() {
            holes.append(try Loop(geoJSONRing: ring, winding: .smallerRegion, boundaryTolerance: boundaryTolerance))
        }
        let polygon = Polygon(shell: shell, holes: holes)
        try polygon.validate()
        self = polygon
    }

    /// Whether every loop is valid, no two loops cross, every hole lies inside the shell and no
    /// hole has a vertex strictly inside another hole.
    public var isValid: Bool {
        (try? validate()) != nil
    }

    /// Throws the first problem found (see ``isValid``). Loops may share vertices but not cross.
    ///
    /// Work is bounded like loop validation: crossings between rings come from one sweep over
    /// all edges, and pairs of holes are compared only when their bounding boxes overlap; when
    /// either exceeds its budget the polygon is refused with ``GeoError/tooComplex``.
    public func validate() throws(GeoError) {
        try shell.validate()
        for hole in holes {
            try hole.validate()
        }
        guard !holes.isEmpty else { return }
        let loops = [shell] + holes
        let edges = loops.reduce(0) { $0 + $1.count }
        var crossing = false
        let sweep = EdgeSweep.forEachCandidatePair(EdgeSweep.boxes(loops: loops.map(\.vertices)),
                                                   budget: EdgeSweep.budget(for: edges)) { first, second in
            guard first.loop != second.loop else { return true }
            let l1 = loops[first.loop], l2 = loops[second.loop]
            let a = l1.vertex(first.edge), b = l1.vertex(first.edge + 1)
            let c = l2.vertex(second.edge), d = l2.vertex(second.edge + 1)
            if !Loop.edgesSurelyApart(a, b, c, d) && EdgeMath.crossProperly(a, b, c, d) {
                crossing = true
                return false
            }
            return true
        }
        if crossing { throw GeoError.overlappingLoops }
        if sweep == .overBudget { throw GeoError.tooComplex(edges: edges) }
        for hole in holes {
            for vertex in hole.vertices where !shell.contains(vertex) {
                throw GeoError.holeNotContained
            }
        }
        try validateShellOutsideHoles(edges: edges)
        try validateHolesApart(edges: edges)
    }

    /// No shell vertex lies strictly inside a hole. Without crossings and with every hole vertex
    /// in the shell, a hole can still reach outside it: one that shares the shell's edges and
    /// covers one of its vertices (the polygon would then miss that vertex of its own shell).
    /// Each test is charged against the sweep's budget; past it the polygon is ``GeoError/tooComplex``.
    private func validateShellOutsideHoles(edges: Int) throws(GeoError) {
        var budget = EdgeSweep.budget(for: edges)
        for hole in holes {
            for vertex in shell.vertices {
                budget -= 1
                if hole.geometry.mayContain(vertex) {
                    budget -= hole.count
                    if hole.containsStrictly(vertex) { throw GeoError.holeNotContained }
                }
                if budget < 0 { throw GeoError.tooComplex(edges: edges) }
            }
        }
    }

    /// No hole has a vertex strictly inside another. Only holes whose regions' bounding boxes
    /// overlap are compared, each comparison charged by the vertices it tests.
    private func validateHolesApart(edges: Int) throws(GeoError) {
        guard holes.count > 1 else { return }
        let boxes = EdgeSweep.alongBestAxis(holes.enumerated().map { EdgeSweep.box(of: $1.capBound, loop: $0) })
        var budget = EdgeSweep.budget(for: edges)
        var overlapping = false, exhausted = false
        let outcome = EdgeSweep.forEachCandidatePair(boxes, budget: budget) { first, second in
            let h1 = holes[first.loop], h2 = holes[second.loop]
            budget -= h1.count + h2.count
            if budget < 0 {
                exhausted = true
                return false
            }
            if h1.vertices.contains(where: { h2.containsStrictly($0) }) || h2.vertices.contains(where: { h1.containsStrictly($0) }) {
                overlapping = true
                return false
            }
            return true
        }
        if overlapping { throw GeoError.overlappingLoops }
        if exhausted || outcome == .overBudget { throw GeoError.tooComplex(edges: edges) }
    }

    // MARK: Region

    public func contains(_ point: S2Point) -> Bool {
        guard shell.contains(point) else { return false }
        for index in holes.indices where holes[index].containsStrictly(point) {
            return false
        }
        return true
    }

    public var capBound: Cap { shell.capBound }
    public var rectBound: LatLngRect { shell.rectBound }

    /// Edges of all loops (a loop has as many edges as vertices).
    public var edgeCount: Int {
        holes.reduce(shell.vertices.count) { $0 + $1.vertices.count }
    }

    public var description: String {
        "Polygon(shell: \(shell), holes: \(holes.count))"
    }

    /// Conservative: the shell contains the cell and no hole may reach it.
    public func contains(_ cell: Cell) -> Bool {
        guard shell.contains(cell) else { return false }
        return !holes.contains { $0.mayIntersect(cell) }
    }

    /// Conservative: the shell may reach the cell and no hole strictly contains it.
    public func mayIntersect(_ cell: Cell) -> Bool {
        guard shell.mayIntersect(cell) else { return false }
        return !holes.contains { $0.containsStrictly(cell) }
    }
}

/// The union of several polygons (GeoJSON MultiPolygon).
public struct MultiPolygon: Sendable, Region {
    /// The member polygons.
    public let polygons: [Polygon]

    /// A union of polygons, taken as they are.
    public init(polygons: [Polygon]) {
        self.polygons = polygons
    }

    /// A multipolygon from GeoJSON: one array of rings per polygon (see
    /// ``Polygon/init(geoJSONRings:winding:boundaryTolerance:)``).
    public init(geoJSONPolygons: [[[LatLng]]], winding: Loop.Winding = .smallerRegion,
                boundaryTolerance: Angle = Loop.defaultBoundaryTolerance) throws(GeoError) {
        guard !geoJSONPolygons.isEmpty else { throw GeoError.emptyPolygon }
        var polygons: [Polygon] = []
        for rings in geoJSONPolygons {
            polygons.append(try Polygon(geoJSONRings: rings, winding: winding, boundaryTolerance: boundaryTolerance))
        }
        self.polygons = polygons
    }

    public func contains(_ point: S2Point) -> Bool {
        for index in polygons.indices where polygons[index].contains(point) {
            return true
        }
        return false
    }

    public var rectBound: LatLngRect {
        polygons.reduce(LatLngRect.empty) { $0.union($1.rectBound) }
    }

    public var capBound: Cap { rectBound.capBound }

    /// Edges of all members' loops.
    public var edgeCount: Int {
        polygons.reduce(0) { $0 + $1.edgeCount }
    }

    /// Conservative: some member contains the whole cell.
    public func contains(_ cell: Cell) -> Bool {
        polygons.contains { $0.contains(cell) }
    }

    public func mayIntersect(_ cell: Cell) -> Bool {
        polygons.contains { $0.mayIntersect(cell) }
    }
}
