import JSONCore

/// A longitude/latitude bounding box in degrees, RFC 7946 style: `[west, south, east, north]`.
///
/// Invariants: `-90 ≤ southDegrees ≤ northDegrees ≤ 90`; `westDegrees`, `eastDegrees` ∈
/// [-180, 180]. When `westDegrees > eastDegrees` the box crosses the antimeridian: it covers
/// longitudes from west eastward through ±180 to east (RFC 7946 §5.2). `west == -180,
/// east == 180` is all longitudes.
public struct GeoBounds: Sendable, Hashable, CustomStringConvertible {
    /// Western edge, degrees in [-180, 180].
    public let westDegrees: Double
    /// Southern edge, degrees in [-90, 90].
    public let southDegrees: Double
    /// Eastern edge, degrees in [-180, 180]; less than `westDegrees` when crossing ±180.
    public let eastDegrees: Double
    /// Northern edge, degrees in [-90, 90].
    public let northDegrees: Double

    /// A box from its edges in degrees (latitudes are put in order and clamped to ±90,
    /// longitudes clamped to ±180; a west edge east of the east edge means "crosses ±180").
    public init(westDegrees: Double, southDegrees: Double, eastDegrees: Double, northDegrees: Double) {
        self.westDegrees = Self.clamp(westDegrees, 180)
        self.eastDegrees = Self.clamp(eastDegrees, 180)
        self.southDegrees = Self.clamp(Swift.min(southDegrees, northDegrees), 90)
        self.northDegrees = Self.clamp(Swift.max(southDegrees, northDegrees), 90)
    }

    /// Whether the box crosses the antimeridian (`westDegrees > eastDegrees`).
    public var crossesAntimeridian: Bool { westDegrees > eastDegrees }

    /// The eastward extent from west to east, degrees in [0, 360].
    public var longitudeSpanDegrees: Double {
        crossesAntimeridian ? eastDegrees + 360 - westDegrees : eastDegrees - westDegrees
    }

    /// The north-south extent, degrees in [0, 180].
    public var latitudeSpanDegrees: Double { northDegrees - southDegrees }

    /// The meridian halfway from west to east, degrees in [-180, 180].
    public var centerLongitudeDegrees: Double {
        let center = westDegrees + longitudeSpanDegrees / 2
        return center > 180 ? center - 360 : center
    }

    /// The parallel halfway from south to north, degrees.
    public var centerLatitudeDegrees: Double { (southDegrees + northDegrees) / 2 }

    /// Whether the position lies in the closed box (degrees).
    public func contains(longitudeDegrees lon: Double, latitudeDegrees lat: Double) -> Bool {
        guard lat >= southDegrees && lat <= northDegrees else { return false }
        if crossesAntimeridian { return lon >= westDegrees || lon <= eastDegrees }
        return lon >= westDegrees && lon <= eastDegrees
    }

    /// The box grown on every side by `fraction` of its span, each span first widened to at
    /// least `minimumSpanDegrees` around its centre. Latitudes clamp at ±90; a longitude span
    /// reaching 360 becomes all longitudes `[-180, 180]`.
    public func expanded(byFraction fraction: Double, minimumSpanDegrees: Double) -> GeoBounds {
        let latSpan = Swift.max(latitudeSpanDegrees, minimumSpanDegrees)
        let lonSpan = Swift.max(longitudeSpanDegrees, minimumSpanDegrees)
        let latPad = latSpan * (0.5 + fraction)
        let lonPad = lonSpan * (0.5 + fraction)
        let south = centerLatitudeDegrees - latPad
        let north = centerLatitudeDegrees + latPad
        if 2 * lonPad >= 360 {
            return GeoBounds(westDegrees: -180, southDegrees: south, eastDegrees: 180, northDegrees: north)
        }
        let center = westDegrees + longitudeSpanDegrees / 2
        return GeoBounds(westDegrees: Self.wrap(center - lonPad), southDegrees: south,
                         eastDegrees: Self.wrap(center + lonPad), northDegrees: north)
    }

    /// `[w, s, e, n]` with up to 7 decimals, for logs and test messages.
    public var description: String { "[\(westDegrees), \(southDegrees), \(eastDegrees), \(northDegrees)]" }

    private static func clamp(_ value: Double, _ limit: Double) -> Double {
        guard value.isFinite else { return value.sign == .minus ? -limit : limit }
        return Swift.min(Swift.max(value, -limit), limit)
    }

    /// A longitude wrapped into [-180, 180].
    static func wrap(_ lon: Double) -> Double {
        let r = lon.remainder(dividingBy: 360)
        return r == -180 && lon > 0 ? 180 : r
    }
}

/// Accumulates the smallest ``GeoBounds`` around streamed positions, with bounded memory.
///
/// Latitude is a plain min/max. Longitude is the complement of the widest empty arc between
/// occupied longitudes around the circle, so positions on both sides of ±180 give a box that
/// crosses the antimeridian (`west > east`) instead of one spanning the globe. Positions are
/// binned per whole degree keeping each bin's exact min and max, which makes the result exact
/// whenever the widest gap is at least 1° (always, unless the data covers at least 359° of
/// longitude, where the box may be up to 1° wider than the minimum). On a tie the box that does
/// not cross ±180 wins. Memory: 360 × 2 doubles once the first position arrives.
public struct GeoBoundsAccumulator: Sendable {
    /// Per 1° bin: [min, max] longitude seen, NaN when empty. Empty until the first position.
    private var bins: [Double] = []
    private var south = Double.infinity
    private var north = -Double.infinity

    public init() {}

    /// Whether no position has been added.
    public var isEmpty: Bool { bins.isEmpty }

    /// Bytes of heap storage held (the bins), for memory accounting.
    public var retainedByteCount: Int { bins.capacity * MemoryLayout<Double>.stride }

    /// Adds a position in degrees; non-finite values are ignored, others are clamped to
    /// [-180, 180] × [-90, 90].
    public mutating func add(longitudeDegrees: Double, latitudeDegrees: Double) {
        guard longitudeDegrees.isFinite && latitudeDegrees.isFinite else { return }
        if bins.isEmpty { bins = [Double](repeating: .nan, count: 720) }
        let lon = Swift.min(Swift.max(longitudeDegrees, -180), 180)
        let lat = Swift.min(Swift.max(latitudeDegrees, -90), 90)
        let bin = Swift.min(Int(lon + 180), 359)  // lon + 180 ≥ 0, so truncation is floor
        let low = 2 &* bin
        if !(bins[low] <= lon) { bins[low] = lon }  // also replaces NaN
        if !(bins[low &+ 1] >= lon) { bins[low &+ 1] = lon }
        south = Swift.min(south, lat)
        north = Swift.max(north, lat)
    }

    /// The smallest box around everything added, or nil when nothing was.
    public var bounds: GeoBounds? {
        guard !bins.isEmpty else { return nil }
        var firstMin = Double.nan
        var previousMax = Double.nan
        var widestGap = -1.0
        var gapWest = 0.0, gapEast = 0.0  // the box edges if the widest gap is interior
        for bin in 0..<360 {
            let low = bins[2 * bin]
            guard !low.isNaN else { continue }
            if firstMin.isNaN {
                firstMin = low
            } else if low - previousMax > widestGap {
                widestGap = low - previousMax
                gapWest = low
                gapEast = previousMax
            }
            previousMax = bins[2 * bin + 1]
        }
        let wrapGap = firstMin + 360 - previousMax
        var west = firstMin, east = previousMax
        if widestGap > wrapGap {
            west = gapWest
            east = gapEast
            // -180 and 180 are one meridian: prefer the non-crossing spelling.
            if east == -180 { east = 180 }
            if west == 180 { west = -180 }
        }
        return GeoBounds(westDegrees: west, southDegrees: south, eastDegrees: east, northDegrees: north)
    }
}

extension GeoBounds {
    /// Writes the bounds as a GeoJSON `bbox` array, `[west, south, east, north]` in degrees
    /// with 7 decimals (`west > east` across the antimeridian, as RFC 7946 says).
    func writeBBox(into json: inout JSONWriter) {
        json.beginArray()
        json.number(westDegrees, fractionDigits: 7)
        json.number(southDegrees, fractionDigits: 7)
        json.number(eastDegrees, fractionDigits: 7)
        json.number(northDegrees, fractionDigits: 7)
        json.endArray()
    }
}
