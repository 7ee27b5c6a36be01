/// A closed spherical ring: the points whose distance from ``center`` lies in
/// ``inner`` … ``outer`` (both inclusive). A `$near` search visits successive annuli.
public struct Annulus: Sendable, Hashable, Region {
    /// The centre, a unit vector.
    public let center: S2Point
    /// The inner radius (inclusive).
    public let inner: Angle
    /// The outer radius (inclusive).
    public let outer: Angle

    /// An annulus; an inner radius ≤ 0 makes it a disc (a ``Cap``).
    public init(center: S2Point, inner: Angle, outer: Angle) {
        self.center = center.normalized
        self.inner = inner
        self.outer = outer
    }

    public func contains(_ point: S2Point) -> Bool {
        guard outer >= inner, outer.radians >= 0 else { return false }
        let d = center.angle(to: point)
        return d >= inner && d <= outer
    }

    public var capBound: Cap {
        guard outer >= inner else { return .empty }
        return Cap(center: center, radius: outer + Angle(radians: 1e-15))
    }

    /// Conservative: the cell's nearest and farthest points are within the ring.
    public func contains(_ cell: Cell) -> Bool {
        guard outer >= inner else { return false }
        return cell.distance(to: center) >= inner && cell.maxDistance(to: center) <= outer
    }

    /// Conservative: false only if the cell is surely nearer than `inner` or beyond `outer`.
    public func mayIntersect(_ cell: Cell) -> Bool {
        guard outer >= inner, outer.radians >= 0 else { return false }
        return cell.distance(to: center) <= outer && cell.maxDistance(to: center) >= inner
    }
}
