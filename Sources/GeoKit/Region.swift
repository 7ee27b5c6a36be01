/// A closed region of the sphere that ``RegionCoverer`` can approximate with cells.
///
/// Contract (what makes coverings never miss):
/// - ``contains(_:)-(S2Point)`` is the region's membership test.
/// - ``mayIntersect(_:)`` may return true for a cell that does not meet the region, but must
///   return true whenever some point of the cell (boundary included, with the small slack of
///   ``Cell/distanceErrorBound``) satisfies `contains`.
/// - ``contains(_:)-(Cell)`` may return false for a cell inside the region, but true only if
///   every point of the cell satisfies `contains`.
/// - ``capBound`` and ``rectBound`` contain every point that satisfies `contains`.
public protocol Region: Sendable {
    /// A cap containing the region.
    var capBound: Cap { get }
    /// A latitude-longitude rectangle containing the region (by default ``capBound``'s).
    var rectBound: LatLngRect { get }
    /// Whether the region contains the point (boundary points included).
    func contains(_ point: S2Point) -> Bool
    /// Conservative: true only if the region contains the whole cell.
    func contains(_ cell: Cell) -> Bool
    /// Conservative: false only if the region and the cell are disjoint.
    func mayIntersect(_ cell: Cell) -> Bool
}

extension Region {
    public var rectBound: LatLngRect {
        capBound.rectBound
    }

    /// Whether the region contains the coordinate (after ``LatLng/normalized``).
    public func contains(_ latLng: LatLng) -> Bool {
        contains(latLng.normalized.toPoint())
    }
}
