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
        geometry.rectBound.contains(point) && geometry.containsUnfiltered(point)
    }

    /// Whether the point is within ``boundaryTolerance`` of an edge.
    public func isOnBoundary(_ point: S2Point) -> Bool {
        geometry.rectBound.contains(point) && geometry.isOnBoundary(point)
    }

    /// Whether the point is inside the loop and not on its boundary.
    public func containsStrictly(_ point: S2Point) -> Bool {
        geometry.rectBound.contains(point) && geometry.parityContains(point) && !geometry.isOnBoundary(point)
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

    /// Inside by crossing parity from a reference point (exact for points off the boundary).
    func parityContains(_ point: S2Point) -> Bool {
        guard let first = references.first else { return false }
        var reference = first
        if point == -first.point, references.count > 1 {
            reference = references[1]
        }
        let odd = Self.crossingParity(vertices: vertices, from: reference.point, fromSigns: reference.edgeSigns,
                                      to: point, skippingVertex: nil)
        return reference.inside != odd
    }

    /// Whether the point is within the tolerance of an edge.
    func isOnBoundary(_ point: S2Point) -> Bool {
        let v = vertices
        let n = v.count
        let quickLimit = sinTolerance + 1e-15
        for i in 0..<n {
            let unit = unitNormals[i]
            if unit.norm2 > 0 && Swift.abs(point.dot(unit)) > quickLimit { continue }
            if EdgeMath.distance(point, toEdge: v[i], v[(i + 1) % n], normal: normals[i]) <= tolerance {
                return true
            }
        }
        return false
    }

    /// Membership without the bounding-rectangle prefilter.
    func containsUnfiltered(_ point: S2Point) -> Bool {
        parityContains(point) || isOnBoundary(point)
    }

    /// Whether some edge comes within `distance` radians of the cell (or enters it).
    func edgeNear(_ cell: Cell, distance: Double) -> Bool {
        let v = vertices
        let n = v.count
        guard n > 0 else { return false }
        let cap = cell.capBound
        let cellCenter = cap.center
        let reach = cap.radius.radians + distance
        for i in 0..<n {
            let limit = edgeRadii[i] + reach
            if limit < Double.pi && edgeCenters[i].dot(cellCenter) < cos(limit) - 1e-15 { continue }
            let a = v[i], b = v[(i + 1) % n]
            if cell.contains(a) || cell.contains(b) { return true }
            if cell.boundaryDistance(toEdge: a, b) <= distance { return true }
        }
        return false
    }

    /// Whether the whole cell is inside the loop with every edge farther than `clearance`.
    func cellInside(_ cell: Cell, clearance: Double) -> Bool {
        guard vertices.count >= 3, rectBound.intersects(cell.rectBound) else { return false }
        if edgeNear(cell, distance: clearance) { return false }
        return parityContains(cell.center)
    }

    /// Whether the cell may meet the loop's region (interior or tolerance band).
    func cellMayIntersect(_ cell: Cell) -> Bool {
        guard !vertices.isEmpty, rectBound.intersects(cell.rectBound) else { return false }
        if edgeNear(cell, distance: tolerance + Self.cellSlack) { return true }
        return vertices.count >= 3 && parityContains(cell.center)
    }
}
