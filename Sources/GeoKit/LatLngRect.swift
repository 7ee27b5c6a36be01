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

    /// Conservative: true only if every point of the cell is inside.
    ///
    /// Decided without trigonometry on the cell (see ``RectCellTest``): the cell's z range and
    /// longitude extremes against sin(latitude bounds) and the boundary meridians, with slack.
    public func contains(_ cell: Cell) -> Bool {
        RectCellTest(self).contains(cell)
    }

    /// Conservative: false only if the cell's bounding rectangle (from its vertices, plus slack)
    /// misses this rectangle.
    public func mayIntersect(_ cell: Cell) -> Bool {
        RectCellTest(self).mayIntersect(cell)
    }

    public var description: String {
        if isEmpty { return "LatLngRect(empty)" }
        return "LatLngRect(lat \(latLo.degrees)…\(latHi.degrees), lng \(lngLo.degrees)…\(lngHi.degrees))"
    }
}

/// The cell predicates of a ``LatLngRect`` with the rectangle's trigonometry done once.
///
/// A cell at level ≥ 1 never straddles a face's u = 0 or v = 0 line, so its latitude and
/// longitude extremes are at its vertices (on the equatorial faces latitude is monotone in |u|
/// or |v| and longitude depends on one coordinate only; on the polar faces both depend on
/// u² + v² and the angle around the pole, extreme at a corner of a rectangle inside one
/// quadrant). The exceptions are handled explicitly: a level-1+ cell of a polar face with a corner
/// at (0, 0) touches the pole (all longitudes); a polar face cell contains its pole; an
/// equatorial face cell reaches latitude ±45° inside its edges.
///
/// The tests then compare, with slack, the vertices' z (= sin latitude) with sin(latLo) and
/// sin(latHi), and the vertices' (x, y) with the unit directions of the boundary meridians by
/// 2-D cross products (the signed distance from the meridian plane). `zSlack` (3e-14) and
/// `crossSlack` (1e-13, an angle of at least 1e-13 / cos(latitude)) exceed the rounding of the
/// vertices and of the rectangle's bounds and the ~1.2e-14 rad by which a point may lie outside
/// the cell its leaf id names (``Cell/uvTolerance``); the cross slack allows for the cos(latitude)
/// of a vertex differing from that of nearby cell points by up to a factor of ~2.3. Slack
/// makes `mayIntersect` answer true and `contains` answer false more often, never the reverse.
struct RectCellTest {
    let rect: LatLngRect
    let sinLo: Double
    let sinHi: Double
    let reachesNorth: Bool
    let reachesSouth: Bool
    let fullLng: Bool
    /// Longitude intervals longer than π are tested through their complement.
    let wideLng: Bool
    let loX: Double, loY: Double
    let hiX: Double, hiY: Double

    static let zSlack = 3e-14
    static let crossSlack = 1e-13

    init(_ rect: LatLngRect) {
        self.rect = rect
        let lo = rect.latLoRadians, hi = rect.latHiRadians
        reachesSouth = lo <= -Double.pi / 2
        reachesNorth = hi >= Double.pi / 2
        sinLo = reachesSouth ? -1 : sin(lo)
        sinHi = reachesNorth ? 1 : sin(hi)
        let lng = rect.lng
        fullLng = lng.isFull
        wideLng = lng.length > Double.pi
        loX = cos(lng.lo)
        loY = sin(lng.lo)
        hiX = cos(lng.hi)
        hiY = sin(lng.hi)
    }

    /// The latitude and longitude extent of a cell.
    struct CellBound {
        var zMin: Double
        var zMax: Double
        /// All longitudes (the cell contains or touches a pole).
        var fullLng = false
        /// (x, y) of the westmost and eastmost vertices (not unit).
        var westX = 0.0, westY = 0.0
        var eastX = 0.0, eastY = 0.0
    }

    @inline(__always)
    static func cross(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        ax * by - ay * bx
    }

    static func bound(of cell: Cell) -> CellBound {
        let v0 = cell.vertex(0), v1 = cell.vertex(1), v2 = cell.vertex(2), v3 = cell.vertex(3)
        var b = CellBound(zMin: Swift.min(Swift.min(v0.z, v1.z), Swift.min(v2.z, v3.z)),
                          zMax: Swift.max(Swift.max(v0.z, v1.z), Swift.max(v2.z, v3.z)))
        let polar = cell.face == 2 || cell.face == 5
        if cell.level == 0 {
            if !polar {
                let peak = 0.5.squareRoot()  // latitude 45° at u = 0 (or v = 0), v = ±1
                b.zMin = Swift.min(b.zMin, -peak)
                b.zMax = Swift.max(b.zMax, peak)
            }
        }
        let uv = cell.uvBounds
        let touchesPole = polar && (cell.level == 0
            || ((uv.uLo == 0 || uv.uHi == 0) && (uv.vLo == 0 || uv.vHi == 0)))
        if touchesPole {
            b.fullLng = true
            if cell.face == 2 { b.zMax = 1 } else { b.zMin = -1 }
            return b
        }
        // The vertices span less than π of longitude: the westmost has every other to its east.
        var west = v0, east = v0
        for k in 1..<4 {
            let w = k == 1 ? v1 : (k == 2 ? v2 : v3)
            if cross(w.x, w.y, west.x, west.y) > 0 { west = w }
            if cross(east.x, east.y, w.x, w.y) > 0 { east = w }
        }
        b.westX = west.x
        b.westY = west.y
        b.eastX = east.x
        b.eastY = east.y
        return b
    }

    /// Whether the direction (x, y) is in the longitude interval, widened (`slack` > 0) or
    /// narrowed (`slack` < 0) by |slack| in cross-product units.
    @inline(__always)
    func lngContains(_ x: Double, _ y: Double, slack: Double) -> Bool {
        if !wideLng {
            return Self.cross(loX, loY, x, y) >= -slack && Self.cross(x, y, hiX, hiY) >= -slack
        }
        // Outside the gap (hi, lo), which is shorter than π.
        return !(Self.cross(hiX, hiY, x, y) > slack && Self.cross(x, y, loX, loY) > slack)
    }

    /// Whether the direction (x, y) is on the arc from the cell's west to east vertex (less than
    /// π long), widened by `slack`.
    @inline(__always)
    static func arcContains(_ b: CellBound, _ x: Double, _ y: Double, slack: Double) -> Bool {
        cross(b.westX, b.westY, x, y) >= -slack && cross(x, y, b.eastX, b.eastY) >= -slack
    }

    /// A quick, permissive point test: false only if `point` is surely outside the rectangle
    /// (z against sin(latitude bounds), (x, y) against the boundary meridians, with the slacks).
    /// Costs a few multiplications instead of the two `atan2` of ``LatLngRect/contains(_:)-(S2Point)``.
    func mayContain(_ point: S2Point) -> Bool {
        if rect.isEmpty { return false }
        if rect.isFull { return true }
        let p = Cell.unit(point)
        if p.z < sinLo - Self.zSlack || p.z > sinHi + Self.zSlack { return false }
        return fullLng || lngContains(p.x, p.y, slack: Self.crossSlack)
    }

    func mayIntersect(_ cell: Cell) -> Bool {
        if rect.isEmpty { return false }
        if rect.isFull { return true }
        return mayIntersect(Self.bound(of: cell))
    }

    func contains(_ cell: Cell) -> Bool {
        if rect.isEmpty { return false }
        if rect.isFull { return true }
        return contains(Self.bound(of: cell))
    }

    /// `(mayIntersect(cell), needContains && contains(cell))` from one bound.
    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool) {
        if rect.isEmpty { return (false, false) }
        if rect.isFull { return (true, true) }
        let b = Self.bound(of: cell)
        guard mayIntersect(b) else { return (false, false) }
        return (true, needContains && contains(b))
    }

    private func mayIntersect(_ b: CellBound) -> Bool {
        if b.zMax < sinLo - Self.zSlack || b.zMin > sinHi + Self.zSlack { return false }
        if fullLng || b.fullLng { return true }
        let e = Self.crossSlack
        // Two arcs meet iff one contains the other's start.
        return Self.arcContains(b, loX, loY, slack: e) || lngContains(b.westX, b.westY, slack: e)
    }

    private func contains(_ b: CellBound) -> Bool {
        if !reachesSouth && b.zMin < sinLo + Self.zSlack { return false }
        if !reachesNorth && b.zMax > sinHi - Self.zSlack { return false }
        if fullLng { return true }
        if b.fullLng { return false }
        let e = Self.crossSlack
        guard lngContains(b.westX, b.westY, slack: -e), lngContains(b.eastX, b.eastY, slack: -e) else { return false }
        // With both ends inside, the cell's arc leaves the interval only if it spans its gap.
        return !wideLng || !Self.arcContains(b, hiX, hiY, slack: e)
    }
}
