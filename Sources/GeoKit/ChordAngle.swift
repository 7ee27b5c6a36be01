#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An angle between two points on the unit sphere, represented by the squared length of the
/// chord between them: `length2 = (2 sin(θ/2))²`, in [0, 4].
///
/// Comparing chord angles needs no trigonometry, which makes them the fast way to ask "is this
/// point within θ of that one?". The representation is monotone in θ over [0, π].
///
/// Error: ``init(between:_:)`` is within a few ulps of the true squared chord for unit inputs
/// (absolute error ≲ 4.5e-16 · length2 + 1e-16·|a−b|), i.e. ~1e-16 rad in angle except near π.
public struct ChordAngle: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The squared chord length on the unit sphere, in [0, 4]; negative for ``negative``.
    public let length2: Double

    /// Creates a chord angle from a squared chord length, clamped to [0, 4] (negative values
    /// become ``negative``; NaN becomes ``negative``).
    public init(length2: Double) {
        if length2 >= 0 {
            self.length2 = Swift.min(4, length2)
        } else {
            self.length2 = -1
        }
    }

    /// The chord angle of `angle`: negative angles give ``negative``, angles ≥ π give
    /// ``straight``.
    public init(_ angle: Angle) {
        let r = angle.radians
        if !(r >= 0) {
            self.length2 = -1
        } else if r >= Double.pi {
            self.length2 = 4
        } else {
            let chord = 2 * sin(0.5 * r)
            self.length2 = Swift.min(4, chord * chord)
        }
    }

    /// The chord angle between two unit vectors.
    public init(between a: S2Point, _ b: S2Point) {
        self.init(length2: (a - b).norm2)
    }

    /// The zero angle.
    public static let zero = ChordAngle(length2: 0)
    /// A right angle (squared chord 2).
    public static let right = ChordAngle(length2: 2)
    /// A straight angle, π (squared chord 4).
    public static let straight = ChordAngle(length2: 4)
    /// Less than any real angle; the radius of an empty ``Cap``.
    public static let negative = ChordAngle(length2: -1)

    /// Whether this is ``negative``.
    public var isNegative: Bool {
        length2 < 0
    }

    /// The angle this chord subtends, in [0, π] (or -1 rad for ``negative``).
    public var angle: Angle {
        if length2 < 0 { return Angle(radians: -1) }
        return Angle(radians: 2 * asin(Swift.min(1, 0.5 * length2.squareRoot())))
    }

    /// The chord angle widened by `error` in squared-chord units (clamped to [0, 4]); used to
    /// make comparisons conservative.
    public func plusError(_ error: Double) -> ChordAngle {
        if isNegative { return self }
        return ChordAngle(length2: Swift.max(0, length2 + error))
    }

    public static func < (lhs: ChordAngle, rhs: ChordAngle) -> Bool {
        lhs.length2 < rhs.length2
    }

    public var description: String {
        angle.description
    }
}
