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
