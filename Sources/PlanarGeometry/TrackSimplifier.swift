#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Simplifies GPS tracks for exports with GEOS's topology-preserving Douglas-Peucker
/// simplification, with the tolerance in meters.
///
/// Method: positions are projected to a local equirectangular plane in meters,
/// x = R·Δλ·cos φ0, y = R·(φ − φ0) (angles in radians, R = 6,378,100 m — the project's sphere,
/// `GeoKit.Earth.radiusMeters`), where φ0 is the middle of the track's latitude range and Δλ the
/// longitude from the first position, unwrapped along the track so crossing ±180° is continuous.
/// Distances in that plane are within 1% of ground distances while the track spans less than
/// about ±8° of latitude around φ0 (the x scale is off by cos φ / cos φ0); larger extents make
/// the tolerance correspondingly approximate.
///
/// Thread safety: every call creates and frees its own GEOS context, so calls may run on any
/// number of threads at once.
public enum TrackSimplifier {
    /// The sphere radius used for the local projection, meters (same as `GeoKit.Earth`).
    static let earthRadiusMeters = 6_378_100.0

    /// The indices of the positions to keep, ascending, always including the first and the last.
    ///
    /// GEOS only removes vertices, so each kept vertex is matched back to its input index by
    /// exact coordinate equality in the projected plane, scanning forward in order (a position
    /// repeated along the track maps to the occurrence GEOS kept, or an earlier equal one).
    ///
    /// - Parameters:
    ///   - points: `(longitude, latitude)` in degrees, in track order.
    ///   - toleranceMeters: the largest distance, in meters, a dropped position may lie from the
    ///     simplified line; 0 drops only exactly collinear positions.
    /// - Returns: `[]` for no points, all indices for one or two points.
    /// - Throws: `.invalidInput` for a negative or non-finite tolerance, or a position that is not
    ///   finite with |latitude| ≤ 90; `.geos` if GEOS fails.
    public static func simplify(
        _ points: [(longitude: Double, latitude: Double)], toleranceMeters: Double
    ) throws(PlanarGeometryError) -> [Int] {
        guard toleranceMeters.isFinite && toleranceMeters >= 0 else {
            throw .invalidInput("toleranceMeters must be finite and ≥ 0, got \(toleranceMeters)")
        }
        for (index, point) in points.enumerated() {
            guard point.longitude.isFinite && point.latitude.isFinite && point.latitude.magnitude <= 90 else {
                throw .invalidInput("point \(index) is not a valid position: (\(point.longitude), \(point.latitude))")
            }
        }
        guard points.count > 2 else { return Array(points.indices) }

        let xy = projectToMeters(points)
        let context = try GEOSContext()
        let line = try Geometry.lineString(xy: xy, in: context)
        let simplified = try line.topologyPreservingSimplified(tolerance: toleranceMeters).coordinatesXY()
        return try matchIndices(kept: simplified, original: xy)
    }

    /// Interleaved local-plane coordinates in meters (see the type documentation).
    static func projectToMeters(_ points: [(longitude: Double, latitude: Double)]) -> [Double] {
        var south = Double.infinity, north = -Double.infinity
        for point in points {
            south = Swift.min(south, point.latitude)
            north = Swift.max(north, point.latitude)
        }
        let radiansPerDegree = Double.pi / 180
        let centerLatitude = (south + north) / 2
        let xScale = earthRadiusMeters * radiansPerDegree * cos(centerLatitude * radiansPerDegree)
        let yScale = earthRadiusMeters * radiansPerDegree
        var xy: [Double] = []
        xy.reserveCapacity(points.count * 2)
        var unwrappedLongitude = 0.0  // degrees east of the first point, continuous along the track
        var previousLongitude = points[0].longitude
        for point in points {
            unwrappedLongitude += (point.longitude - previousLongitude).remainder(dividingBy: 360)
            previousLongitude = point.longitude
            xy.append(unwrappedLongitude * xScale)
            xy.append((point.latitude - centerLatitude) * yScale)
        }
        return xy
    }

    /// Maps the simplified line's vertices back to input indices; first and last are forced.
    static func matchIndices(kept: [Double], original: [Double]) throws(PlanarGeometryError) -> [Int] {
        let count = original.count / 2
        var indices = [0]
        let keptCount = kept.count / 2
        if keptCount > 2 {
            var next = 1
            for k in 1..<(keptCount - 1) {
                let x = kept[2 * k], y = kept[2 * k + 1]
                while next < count - 1 && !(original[2 * next] == x && original[2 * next + 1] == y) {
                    next += 1
                }
                guard next < count - 1 else {
                    throw .geos("GEOSTopologyPreserveSimplify_r", "simplified vertex \(k) is not an input vertex in order")
                }
                indices.append(next)
                next += 1
            }
        }
        indices.append(count - 1)
        return indices
    }
}
