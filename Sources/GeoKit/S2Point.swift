#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the unit sphere, or more generally a vector in ℝ³.
///
/// Geometry in GeoKit works on unit vectors: the x axis points to (lat 0°, lng 0°), the y axis to
/// (lat 0°, lng 90°E) and the z axis to the north pole. Operations that take "points" expect unit
/// length (|p| = 1 within a few ulps); arithmetic operators are provided for intermediate vectors
/// that are not.
public struct S2Point: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    /// Creates a vector from its components. The result is not normalised.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector (not a point on the sphere).
    public static let zero = S2Point(x: 0, y: 0, z: 0)

    /// The north pole, (0, 0, 1).
    public static let northPole = S2Point(x: 0, y: 0, z: 1)

    /// The south pole, (0, 0, -1).
    public static let southPole = S2Point(x: 0, y: 0, z: -1)

    public static func + (lhs: S2Point, rhs: S2Point) -> S2Point {
        S2Point(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
    }

    public static func - (lhs: S2Point, rhs: S2Point) -> S2Point {
        S2Point(x: lhs.x - rhs.x, y: lhs.y - rhs.y, z: lhs.z - rhs.z)
    }

    public static prefix func - (point: S2Point) -> S2Point {
        S2Point(x: -point.x, y: -point.y, z: -point.z)
    }

    public static func * (lhs: S2Point, rhs: Double) -> S2Point {
        S2Point(x: lhs.x * rhs, y: lhs.y * rhs, z: lhs.z * rhs)
    }

    public static func * (lhs: Double, rhs: S2Point) -> S2Point {
        rhs * lhs
    }

    public static func / (lhs: S2Point, rhs: Double) -> S2Point {
        S2Point(x: lhs.x / rhs, y: lhs.y / rhs, z: lhs.z / rhs)
    }

    /// The dot product.
    @inlinable
    public func dot(_ other: S2Point) -> Double {
        x * other.x + y * other.y + z * other.z
    }

    /// The cross product `self × other`.
    @inlinable
    public func cross(_ other: S2Point) -> S2Point {
        S2Point(x: y * other.z - z * other.y,
                y: z * other.x - x * other.z,
                z: x * other.y - y * other.x)
    }

    /// The squared Euclidean length.
    public var norm2: Double {
        dot(self)
    }

    /// The Euclidean length.
    public var norm: Double {
        norm2.squareRoot()
    }

    /// The vector scaled to unit length. The zero vector (and any non-finite vector) is returned
    /// unchanged, so the result is a unit vector only for finite, non-zero input.
    public var normalized: S2Point {
        let n = norm
        guard n > 0, n.isFinite else { return self }
        return self / n
    }

    /// Whether all three components are finite.
    public var isFinite: Bool {
        x.isFinite && y.isFinite && z.isFinite
    }

    /// Whether the vector has unit length within `1e-14` (relative), the tolerance GeoKit
    /// accepts for "points".
    public var isUnitLength: Bool {
        Swift.abs(norm2 - 1) <= 1e-14
    }

    /// The angle between two vectors, in [0, π].
    ///
    /// Computed as `atan2(|a × b|, a · b)`, which is accurate to a few ulps over the whole range
    /// (unlike `acos` near 0 and π). The vectors need not be unit length.
    public func angle(to other: S2Point) -> Angle {
        Angle(radians: atan2(cross(other).norm, dot(other)))
    }

    /// The latitude and longitude of this point (which need not be unit length).
    public func toLatLng() -> LatLng {
        LatLng(self)
    }

    /// A unit vector orthogonal to this one (deterministic, for non-zero input).
    public var orthogonal: S2Point {
        let ax = Swift.abs(x), ay = Swift.abs(y), az = Swift.abs(z)
        let axis: S2Point
        if ax <= ay && ax <= az {
            axis = S2Point(x: 1, y: 0, z: 0)
        } else if ay <= az {
            axis = S2Point(x: 0, y: 1, z: 0)
        } else {
            axis = S2Point(x: 0, y: 0, z: 1)
        }
        return cross(axis).normalized
    }

    public var description: String {
        "(\(x), \(y), \(z))"
    }
}

extension S2Point {
    /// `2 (a × b)` computed as `(a + b) × (b - a)`.
    ///
    /// For nearly equal unit vectors the naive cross product loses almost all relative precision
    /// (both products are ≈ 1 while the result is ≈ |a - b|); here `b - a` is computed exactly
    /// (Sterbenz) when a ≈ b, so the direction of the result keeps full relative precision. The
    /// result is zero only when `a` and `b` are equal or antipodal.
    @inlinable
    static func robustCross(_ a: S2Point, _ b: S2Point) -> S2Point {
        (a + b).cross(b - a)
    }
}
