#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GeoKit
import JSONCore
import Testing
@testable import GeoQuery
import TestRandom

typealias SeededGenerator = TestRandom.SplitMix64

/// Parses JSON text (test literals are known to be valid).
func json(_ text: String) -> JSONValue {
    do {
        return try JSONParser.parse(Array(text.utf8))
    } catch {
        Issue.record("bad test JSON: \(error) in \(text)")
        return .null
    }
}

/// The unit vector of `[lng, lat]` degrees.
func point(_ lng: Double, _ lat: Double) -> S2Point {
    LatLng(degreesLatitude: lat, longitude: lng).toPoint()
}

/// Parses a filter from JSON text, recording a failure on error.
func filter(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> GeoFilter? {
    do {
        return try GeoFilter.parse(json(text))
    } catch {
        Issue.record("unexpected error \(error) for \(text)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The shape of a `$geoWithin` / `$geoIntersects` filter given as JSON text.
func parseShape(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> GeoShape? {
    filter(text, sourceLocation: sourceLocation)?.shape
}

/// The error thrown when parsing a filter, or nil.
func parseError(_ value: JSONValue) -> GeoQueryError? {
    do {
        _ = try GeoFilter.parse(value)
        return nil
    } catch {
        return error
    }
}

/// Point on the great-circle arc from `a` to `b` at fraction `t`.
func interpolate(_ a: S2Point, _ b: S2Point, _ t: Double) -> S2Point {
    let theta = a.angle(to: b).radians
    guard theta > 0 else { return a }
    let s = sin(theta)
    return (a * (sin((1 - t) * theta) / s) + b * (sin(t * theta) / s)).normalized
}

/// A GeoJSON Polygon text from `[lng, lat]` vertices (closed by repeating the first).
func polygonJSON(_ ring: [(Double, Double)], crs: String? = nil) -> String {
    let positions = (ring + [ring[0]]).map { "[\($0.0), \($0.1)]" }.joined(separator: ", ")
    let crsText = crs.map { #", "crs": {"type": "name", "properties": {"name": "\#($0)"}}"# } ?? ""
    return #"{"type": "Polygon", "coordinates": [[\#(positions)]]\#(crsText)}"#
}
