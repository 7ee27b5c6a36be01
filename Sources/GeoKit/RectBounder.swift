/// Accumulates a conservative ``LatLngRect`` around a chain of geodesic edges.
///
/// Latitude: the endpoints' latitudes and each edge's interior extreme. Longitude: the union of
/// each edge's span (an edge not through a pole moves monotonically in longitude by less than
/// π). A region bounded by the edges that does not contain a pole has exactly this longitude
/// coverage; regions containing a pole are handled by ``finish(containsNorthPole:containsSouthPole:)``.
struct RectBounder {
    private var latLo = Double.infinity
    private var latHi = -Double.infinity
    private var lng = LngInterval.empty
    private var fullLongitude = false

    mutating func addEdge(_ a: S2Point, _ b: S2Point) {
        let range = EdgeMath.latitudeRange(a, b)
        latLo = Swift.min(latLo, range.lo)
        latHi = Swift.max(latHi, range.hi)
        let span = LngInterval.between(LatLng(a).lng.radians, LatLng(b).lng.radians)
        // An edge through (or within rounding of) a pole spans π of longitude.
        if span.length > Double.pi - 1e-9 {
            fullLongitude = true
        }
        lng = lng.union(span)
    }

    /// The bound, extended to a pole (with all longitudes) if the region contains it, and widened
    /// by the rounding margin.
    func finish(containsNorthPole: Bool, containsSouthPole: Bool) -> LatLngRect {
        var lo = latLo, hi = latHi
        var interval = fullLongitude ? LngInterval.full : lng
        if containsNorthPole {
            hi = Double.pi / 2
            interval = .full
        }
        if containsSouthPole {
            lo = -Double.pi / 2
            interval = .full
        }
        guard lo <= hi else { return .empty }
        return LatLngRect(latLo: lo, latHi: hi, lng: interval).withRoundingMargin()
    }
}
