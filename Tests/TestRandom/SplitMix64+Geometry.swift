import GeoKit
#if canImport(Glibc)
import Glibc
#endif

/// Random geometry for tests.
extension SplitMix64 {
    /// A point uniformly distributed on the unit sphere.
    public mutating func point() -> S2Point {
        let z = uniform(-1, 1)
        let phi = uniform(0, 2 * Double.pi)
        let r = (1 - z * z).squareRoot()
        return S2Point(x: r * cos(phi), y: r * sin(phi), z: z)
    }

    /// A point at angle `distance` (radians) from `center` in a uniformly random direction.
    public mutating func point(near center: S2Point, distance: Double) -> S2Point {
        let u = center.orthogonal
        let w = center.cross(u)
        let phi = uniform(0, 2 * Double.pi)
        let direction = u * cos(phi) + w * sin(phi)
        return (center * cos(distance) + direction * sin(distance)).normalized
    }

    /// A point within `maxDistance` (radians) of `center`, with log-uniform distance down to
    /// 1e-12 rad so that very near points are well represented.
    public mutating func pointNear(_ center: S2Point, within maxDistance: Double) -> S2Point {
        let lo = log(1e-12), hi = log(Swift.max(maxDistance, 1e-12))
        return point(near: center, distance: exp(uniform(lo, hi)))
    }
}
