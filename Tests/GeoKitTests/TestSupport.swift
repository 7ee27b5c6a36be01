#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@testable import GeoKit
import TestRandom

typealias SplitMix64 = TestRandom.SplitMix64

/// Random geometry for the tests.
extension SplitMix64 {





    /// A point uniformly distributed on the unit sphere.
    mutating func point() -> S2Point {
        let z = uniform(-1, 1)
        let phi = uniform(0, 2 * Double.pi)
        let r = (1 - z * z).squareRoot()
        return S2Point(x: r * cos(phi), y: r * sin(phi), z: z)
    }

    /// A point at angle `distance` from `center` in a uniformly random direction.
    mutating func point(near center: S2Point, distance: Double) -> S2Point {
        let u = center.orthogonal
        let w = center.cross(u)
        let phi = uniform(0, 2 * Double.pi)
        let dir = u * cos(phi) + w * sin(phi)
        return (center * cos(distance) + dir * sin(distance)).normalized
    }

    /// A point within `maxDistance` of `center`, with log-uniform distance down to 1e-12 rad so
    /// that very near points are well represented.
    mutating func pointNear(_ center: S2Point, within maxDistance: Double) -> S2Point {
        let lo = log(1e-12), hi = log(Swift.max(maxDistance, 1e-12))
        return point(near: center, distance: exp(uniform(lo, hi)))
    }
}

/// Named tolerances used across the tests.
enum Tolerance {
    /// Round trip lat/lng → point → lat/lng, radians.
    static let latLngRoundTrip = 1e-13
    /// Distances in meters.
    static let meters = 1e-3
}

/// Point on the great-circle arc from `a` to `b` at fraction `t`.
func interpolate(_ a: S2Point, _ b: S2Point, _ t: Double) -> S2Point {
    let theta = a.angle(to: b).radians
    guard theta > 0 else { return a }
    let s = sin(theta)
    return (a * (sin((1 - t) * theta) / s) + b * (sin(t * theta) / s)).normalized
}

func ll(_ lat: Double, _ lng: Double) -> LatLng {
    LatLng(degreesLatitude: lat, longitude: lng)
}

func pt(_ lat: Double, _ lng: Double) -> S2Point {
    LatLng(degreesLatitude: lat, longitude: lng).toPoint()
}

/// Whether `key` falls in one of the sorted, coalesced ranges.
func rangesContain(_ ranges: [ClosedRange<Int64>], _ key: Int64) -> Bool {
    var lo = 0, hi = ranges.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if ranges[mid].upperBound < key { lo = mid + 1 } else { hi = mid }
    }
    return lo < ranges.count && ranges[lo].contains(key)
}
