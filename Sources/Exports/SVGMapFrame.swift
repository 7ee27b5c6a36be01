#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GeoKit

/// The projection of an SVG scatter map: equirectangular around the view's centre with the
/// longitude axis scaled by cos(φ0), φ0 the centre latitude, so shapes near φ0 keep their
/// proportions and one pixel is the same ground distance horizontally and vertically there.
///
/// x = originX + Δλ · cos φ0 · s, y = originY − (φ − φ0) · s, where Δλ is the longitude
/// difference from the centre wrapped into [-180°, 180°] (degrees) and s is pixels per degree.
/// Invariants: `pixelsPerDegree > 0` and finite; `cosCenter ∈ [0.05, 1]`.
struct SVGMapFrame: Sendable {
    /// Centre of the fitted view, degrees.
    let centerLongitude: Double
    let centerLatitude: Double
    /// cos φ0, floored at 0.05 so polar views stay finite.
    let cosCenter: Double
    /// Pixels per degree of latitude (and per degree of longitude × cos φ0).
    let pixelsPerDegree: Double
    /// The pixel the view centre maps to.
    let originX: Double
    let originY: Double
    /// Canvas size in pixels.
    let widthPixels: Double
    let heightPixels: Double

    /// Fits `data` (grown by 6% per side, each span at least 0.02° ≈ 2 km) into the canvas
    /// minus `insets` (top, right, bottom, left, pixels). Without data: the inhabited world,
    /// 180°W–180°E × 58°S–84°N.
    init(data: GeoBounds?, widthPixels: Int, heightPixels: Int,
         insets: (top: Double, right: Double, bottom: Double, left: Double)) {
        let view = data?.expanded(byFraction: 0.06, minimumSpanDegrees: 0.02)
            ?? GeoBounds(westDegrees: -180, southDegrees: -58, eastDegrees: 180, northDegrees: 84)
        self.widthPixels = Double(widthPixels)
        self.heightPixels = Double(heightPixels)
        centerLongitude = view.centerLongitudeDegrees
        centerLatitude = view.centerLatitudeDegrees
        cosCenter = Swift.max(cos(centerLatitude * Double.pi / 180), 0.05)
        let innerWidth = Swift.max(self.widthPixels - insets.left - insets.right, 16)
        let innerHeight = Swift.max(self.heightPixels - insets.top - insets.bottom, 16)
        let spanX = Swift.max(view.longitudeSpanDegrees * cosCenter, 1e-9)
        let spanY = Swift.max(view.latitudeSpanDegrees, 1e-9)
        pixelsPerDegree = Swift.min(innerWidth / spanX, innerHeight / spanY)
        originX = insets.left + innerWidth / 2
        originY = insets.top + innerHeight / 2
    }

    /// The x pixel of a longitude (degrees), wrapped to the nearer side of the centre.
    func x(longitude: Double) -> Double {
        x(unwrappedLongitude: centerLongitude + (longitude - centerLongitude).remainder(dividingBy: 360))
    }

    /// The x pixel of a longitude taken as is (for rings drawn as a whole, possibly shifted by
    /// ±360° to appear next to the centre).
    func x(unwrappedLongitude longitude: Double) -> Double {
        originX + (longitude - centerLongitude) * cosCenter * pixelsPerDegree
    }

    /// The y pixel of a latitude (degrees).
    func y(latitude: Double) -> Double {
        originY - (latitude - centerLatitude) * pixelsPerDegree
    }

    /// The unwrapped longitudes (degrees) at the canvas's left and right edges.
    var visibleLongitudes: ClosedRange<Double> {
        let degreesPerPixel = 1 / (cosCenter * pixelsPerDegree)
        return (centerLongitude - originX * degreesPerPixel)...(centerLongitude + (widthPixels - originX) * degreesPerPixel)
    }

    /// The latitudes (degrees) at the canvas's bottom and top edges.
    var visibleLatitudes: ClosedRange<Double> {
        (centerLatitude - (heightPixels - originY) / pixelsPerDegree)...(centerLatitude + originY / pixelsPerDegree)
    }

    /// Ground meters per pixel at the centre latitude, on the sphere of radius 6,378,100 m
    /// (`Earth.radiusMeters`): a degree of arc is R·π/180 ≈ 111,319 m.
    var metersPerPixel: Double {
        Earth.radiusMeters * Double.pi / 180 / pixelsPerDegree
    }

    /// A round scale-bar length (1, 2 or 5 × 10^k meters) of at most `maximumPixels` pixels, and
    /// its length in pixels.
    func scaleBar(maximumPixels: Double) -> (meters: Double, pixels: Double) {
        let target = maximumPixels * metersPerPixel
        let base = pow(10, floor(log10(target)))
        var meters = base
        for multiple in [5.0, 2.0] where multiple * base <= target {
            meters = multiple * base
            break
        }
        return (meters, meters / metersPerPixel)
    }
}
