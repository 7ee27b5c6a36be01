/// A plane angle, stored in radians.
///
/// `Angle` is the only way GeoKit's public API passes angles around, so a value can never be
/// mistaken for degrees or radians. Construct it with ``init(radians:)`` or ``init(degrees:)``.
///
/// Degrees are converted with `degrees * (π / 180)`, the same expression the S2 libraries use, so
/// that points built from degree coordinates are bit-identical to S2's (cell ids depend on it).
/// Angles are not normalised: `Angle(degrees: 720)` stays 4π radians.
public struct Angle: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The angle in radians.
    public var radians: Double

    /// Creates an angle from radians.
    public init(radians: Double) {
        self.radians = radians
    }

    /// Creates an angle from degrees, using `degrees * (π / 180)`.
    public init(degrees: Double) {
        self.radians = degrees * (Double.pi / 180)
    }

    /// The angle in degrees, `(180 / π) * radians`.
    public var degrees: Double {
        (180 / Double.pi) * radians
    }

    /// The zero angle.
    public static let zero = Angle(radians: 0)

    /// A right angle, π/2 radians (90°).
    public static let rightAngle = Angle(radians: Double.pi / 2)

    /// A straight angle, π radians (180°): the largest distance between two points on a sphere.
    public static let straight = Angle(radians: Double.pi)

    /// The absolute value of the angle.
    public var magnitude: Angle {
        Angle(radians: Swift.abs(radians))
    }

    public static func < (lhs: Angle, rhs: Angle) -> Bool {
        lhs.radians < rhs.radians
    }

    public static func + (lhs: Angle, rhs: Angle) -> Angle {
        Angle(radians: lhs.radians + rhs.radians)
    }

    public static func - (lhs: Angle, rhs: Angle) -> Angle {
        Angle(radians: lhs.radians - rhs.radians)
    }

    public static prefix func - (angle: Angle) -> Angle {
        Angle(radians: -angle.radians)
    }

    /// Scales an angle by a dimensionless factor.
    public static func * (lhs: Angle, rhs: Double) -> Angle {
        Angle(radians: lhs.radians * rhs)
    }

    /// Scales an angle by a dimensionless factor.
    public static func * (lhs: Double, rhs: Angle) -> Angle {
        Angle(radians: lhs * rhs.radians)
    }

    /// Divides an angle by a dimensionless factor.
    public static func / (lhs: Angle, rhs: Double) -> Angle {
        Angle(radians: lhs.radians / rhs)
    }

    public var description: String {
        "\(degrees)°"
    }
}

/// A length on the Earth's surface, in meters.
///
/// GeoKit keeps the Earth out of sphere math: geometry works with ``Angle`` on the unit sphere,
/// and ``Earth`` converts between the two with a single radius.
public struct Distance: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The length in meters.
    public var meters: Double

    /// Creates a distance from meters.
    public init(meters: Double) {
        self.meters = meters
    }

    /// Creates a distance from kilometers.
    public init(kilometers: Double) {
        self.meters = kilometers * 1000
    }

    /// The length in kilometers.
    public var kilometers: Double {
        meters / 1000
    }

    /// The zero distance.
    public static let zero = Distance(meters: 0)

    public static func < (lhs: Distance, rhs: Distance) -> Bool {
        lhs.meters < rhs.meters
    }

    public static func + (lhs: Distance, rhs: Distance) -> Distance {
        Distance(meters: lhs.meters + rhs.meters)
    }

    public static func - (lhs: Distance, rhs: Distance) -> Distance {
        Distance(meters: lhs.meters - rhs.meters)
    }

    public var description: String {
        "\(meters) m"
    }
}

/// The Earth model used by the 2dsphere index: a sphere of radius 6,378,100 m.
///
/// This is MongoDB's radius (`kRadiusOfEarthInMeters`), not S2's mean radius of 6,371,010 m, so
/// that `$near` distances and `$maxDistance` filters agree with MongoDB. It is the one place the
/// radius lives; all conversions between ``Distance`` and ``Angle`` go through it.
///
/// Checks: one degree of arc is 111,318.845 m; a quarter great circle is 10,018,696.05 m.
public enum Earth {
    /// The Earth's radius in meters (MongoDB's value).
    public static let radiusMeters: Double = 6_378_100

    /// The Earth's radius.
    public static let radius = Distance(meters: radiusMeters)

    /// The central angle subtended by a great-circle distance on the Earth's surface.
    public static func angle(for distance: Distance) -> Angle {
        Angle(radians: distance.meters / radiusMeters)
    }

    /// The great-circle distance on the Earth's surface that subtends `angle`.
    public static func distance(for angle: Angle) -> Distance {
        Distance(meters: angle.radians * radiusMeters)
    }

    /// The great-circle distance between two points on the Earth's surface.
    public static func distance(from a: S2Point, to b: S2Point) -> Distance {
        distance(for: a.angle(to: b))
    }

    /// The great-circle distance between two coordinates on the Earth's surface.
    public static func distance(from a: LatLng, to b: LatLng) -> Distance {
        distance(for: a.distance(to: b))
    }
}
