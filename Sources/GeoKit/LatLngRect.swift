#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A closed latitude-longitude rectangle: `latLo ≤ lat ≤ latHi` and longitude in the interval
/// from `lngLo` eastward to `lngHi`, which crosses the antimeridian when `lngLo > lngHi`.
///
/// The region is a set of points on the sphere, so a rectangle that reaches a pole contains that
/// pole whatever its longitude interval. Boundaries are inclusive. Bounds computed by GeoKit
/// (``Cap/rectBound``, ``Cell/rectBound``, loop bounds) are conservative: never smaller than the
/// shape.
public struct LatLngRect: Sendable, Hashable, Region, CustomStringConvertible {
    /// Latitude bounds in radians; empty when `latLo > latHi`.
    private(set) var latLoRadians: Double
    private(set) var latHiRadians: Double
    private(set) var lng: LngInterval

    init(latLo: Double, latHi: Double, lng: LngInterval) {
        self.latLoRadians = latLo
        self.latHiRadians = latHi
        self.lng = lng
        if latLo > latHi || lng.isEmpty {
            self.latLoRadians = 1
            self.latHiRadians = 0
            self.lng = .empty
        }
    }

    /// A rectangle from latitude bounds (clamped to ±90°) and a longitude interval from `lngLo`
    /// eastward to `lngHi` (each wrapped into [-180°, 180°]; `lngLo > lngHi` crosses the
    /// antimeridian). Use `lngLo = -180°, lngHi = 180°` for all longitudes.
    public init(latLo: Angle, latHi: Angle, lngLo: Angle, lngHi: Angle) {
        let lo = Swift.max(-Double.pi / 2, latLo.radians)
        let hi = Swift.min(Double.pi / 2, latHi.radians)
        let interval: LngInterval
        if lngLo.radians == -Double.pi && lngHi.radians == Double.pi {
            interval = .full
        } else {
            interval = LngInterval(lo: lngLo.radians.remainder(dividingBy: 2 * Double.pi),
                                   hi: lngHi.radians.remainder(dividingBy: 2 * Double.pi))
        }
        self.init(latLo: lo, latHi: hi, lng: interval)
    }

    /// The rectangle with corners `southWest` and `northEast`; it crosses the antimeridian when
    /// the south-west longitude is east of the north-east one.
    public init(southWest: LatLng, northEast: LatLng) {
        self.init(latLo: southWest.lat, latHi: northEast.lat, lngLo: southWest.lng, lngHi: northEast.lng)
    }

    /// The empty rectangle.
    public static let empty = LatLngRect(latLo: 1, latHi: 0, lng: .empty)
    /// The whole sphere.
    public static let full = LatLngRect(latLo: -Double.pi / 2, latHi: Double.pi / 2, lng: .full)

    public var latLo: Angle { Angle(radians: latLoRadians) }
    public var latHi: Angle { Angle(radians: latHiRadians) }
    public var lngLo: Angle { Angle(radians: lng.lo) }
    public var lngHi: Angle { Angle(radians: lng.hi) }

    public var isEmpty: Bool { latLoRadians > latHiRadians }
    public var isFull: Bool { latLoRadians <= -Double.pi / 2 && latHiRadians >= Double.pi / 2 && lng.isFull }
    /// Whether the longitude interval is full.
    public var hasFullLongitude: Bool { lng.isFull }
    /// Whether the longitude interval crosses the antimeridian.
    public var crossesAntimeridian: Bool { lng.isInverted }

    /// Whether the rectangle reaches the north pole (and so contains it).
    var touchesNorthPole: Bool { !isEmpty && latHiRadians >= Double.pi / 2 }
    /// Whether the rectangle reaches the south pole (and so contains it).
    var touchesSouthPole: Bool { !isEmpty && latLoRadians <= -Double.pi / 2 }

    /// Whether the coordinate is in the closed rectangle (a pole is contained whenever the
    /// rectangle reaches it).
    public func contains(_ latLng: LatLng) -> Bool {
        guard !isEmpty else { return false }
        let lat = latLng.lat.radians
        guard lat >= latLoRadians && lat <= latHiRadians else { return false }
        if lng.contains(latLng.lng.radians) { return true }
        return Swift.abs(lat) >= Double.pi / 2
    }

    /// Whether the point is in the closed rectangle.
    public func contains(_ point: S2Point) -> Bool {
        contains(LatLng(point))
    }

    /// Whether `other` lies inside this rectangle.
    public func contains(_ other: LatLngRect) -> Bool {
        if other.isEmpty { return true }
        guard !isEmpty, other.latLoRadians >= latLoRadians, other.latHiRadians <= latHiRadians else { return false }
        return lng.contains(other.lng)
    }

    /// Whether the two closed rectangles share a point (including a shared pole).
    public func intersects(_ other: LatLngRect) -> Bool {
        guard !isEmpty, !other.isEmpty else { return false }
        guard latLoRadians <= other.latHiRadians && other.latLoRadians <= latHiRadians else { return false }
        if lng.intersects(other.lng) { return true }
        return (touchesNorthPole && other.touchesNorthPole) || (touchesSouthPole && other.touchesSouthPole)
    }

    /// The smallest rectangle containing both.
    public func union(_ other: LatLngRect) -> LatLngRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return LatLngRect(latLo: Swift.min(latLoRadians, other.latLoRadians),
                          latHi: Swift.max(latHiRadians, other.latHiRadians),
                          lng: lng.union(other.lng))
    }

    /// A rectangle containing every point within `distance` of this one (conservative).
    ///
    /// Latitudes widen by `distance`; longitudes by asin(sin d / cos φ) where φ is the largest
    /// |latitude| of the widened rectangle, or to all longitudes if that reaches a pole.
    public func expanded(by distance: Angle) -> LatLngRect {
        guard !isEmpty, distance.radians > 0 else { return self }
        let d = distance.radians
        let lo = Swift.max(-Double.pi / 2, latLoRadians - d)
        let hi = Swift.min(Double.pi / 2, latHiRadians + d)
        let maxAbsLat = Swift.max(Swift.abs(lo), Swift.abs(hi))
        let sinD = sin(Swift.min(d, Double.pi / 2))
        let cosLat = cos(maxAbsLat)
        if d >= Double.pi / 2 || lo <= -Double.pi / 2 || hi >= Double.pi / 2 || sinD >= cosLat {
            return LatLngRect(latLo: lo, latHi: hi, lng: .full)
        }
        let widen = asin(sinD / cosLat) * (1 + 1e-14) + 1e-15
        return LatLngRect(latLo: lo, latHi: hi, lng: lng.expanded(by: widen))
    }

    /// The rectangle widened by the rounding slack GeoKit uses for computed bounds: 1e-14 rad in
    /// latitude and 1e-14 / cos(max |lat|) rad in longitude (all longitudes within ~1e-4 rad of
    /// a pole).
    func withRoundingMargin() -> LatLngRect {
        guard !isEmpty else { return self }
        let margin = 1e-14
        let lo = Swift.max(-Double.pi / 2, latLoRadians - margin)
        let hi = Swift.min(Double.pi / 2, latHiRadians + margin)
        let cosLat = cos(Swift.max(Swift.abs(lo), Swift.abs(hi)))
        if lng.isFull || cosLat < 1e-10 {
            return LatLngRect(latLo: lo, latHi: hi, lng: .full)
        }
        return LatLngRect(latLo: lo, latHi: hi, lng: lng.expanded(by: margin / cosLat))
    }

    // MARK: Region

    /// A cap containing the rectangle: the smaller of a polar cap and (for longitude spans ≤ π)
    /// a cap centred on the rectangle's midpoint reaching its farthest corner, plus 1e-14 rad.
    public var capBound: Cap {
        guard !isEmpty else { return .empty }
        let polar: Cap
        if latLoRadians + latHiRadians < 0 {
            polar = Cap(center: .southPole, radius: Angle(radians: Double.pi / 2 + latHiRadians + 1e-14))
        } else {
            polar = Cap(center: .northPole, radius: Angle(radians: Double.pi / 2 - latLoRadians + 1e-14))
        }
        guard lng.length <= Double.pi else { return polar }
        // With a longitude span ≤ π the farthest point from the midpoint is a corner.
        let center = LatLng(radiansLatitude: 0.5 * (latLoRadians + latHiRadians), longitude: lng.center).toPoint()
        var radius = 0.0
        for lat in [latLoRadians, latHiRadians] {
            for lngValue in [lng.lo, lng.hi] {
                let corner = LatLng(radiansLatitude: lat, longitude: lngValue).toPoint()
                radius = Swift.max(radius, center.angle(to: corner).radians)
            }
        }
        radius += 1e-14
        return radius < polar.radius.radians ? Cap(center: center, radius: Angle(radians: radius)) : polar
    }

    public var rectBound: LatLngRect { self }

    /// Conservative: true only if the cell's (conservative) bounding rectangle is inside.
    public func contains(_ cell: Cell) -> Bool {
        contains(cell.rectBound)
    }

    /// Conservative: false only if the cell's bounding rectangle misses this rectangle.
    public func mayIntersect(_ cell: Cell) -> Bool {
        intersects(cell.rectBound)
    }

    public var description: String {
        if isEmpty { return "LatLngRect(empty)" }
        return "LatLngRect(lat \(latLo.degrees)…\(latHi.degrees), lng \(lngLo.degrees)…\(lngHi.degrees))"
    }
}
