extension Polygon {
    /// The angle from `point` to the polygon: zero inside it (holes excluded), else the angle to
    /// the nearest point of any of its loops' boundaries. O(vertices).
    public func distance(to point: S2Point) -> Angle {
        if contains(point) { return Angle(radians: 0) }
        var best = shell.boundaryDistance(to: point)
        for hole in holes { best = Swift.min(best, hole.boundaryDistance(to: point)) }
        return best
    }
}
