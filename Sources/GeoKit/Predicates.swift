/// The orientation of three points on the sphere.
public enum Orientation: Int, Sendable, Hashable {
    /// `c` lies to the left of the great circle from `a` to `b` (a, b, c counter-clockwise seen
    /// from outside the sphere): det(a, b, c) > 0.
    case counterClockwise = 1
    /// `c` lies to the right: det(a, b, c) < 0.
    case clockwise = -1
    /// The three vectors are exactly coplanar with the origin: det(a, b, c) = 0.
    case collinear = 0
}

/// Robust geometric predicates.
///
/// ``orientation(_:_:_:)`` returns the exact sign of the triple product
/// det(a, b, c) = a · (b × c) for the given double-precision vectors, as if computed with real
/// numbers. A floating-point evaluation is used when its result is provably correct; otherwise
/// the determinant is evaluated exactly as a sum of 24 exact double products (error-free
/// transformations `TwoProduct` via fused multiply-add and `TwoSum`, accumulated into a
/// non-overlapping floating-point expansion), whose most significant non-zero component has the
/// sign of the exact result.
///
/// Filter bound: with u = 2⁻⁵³ and P = Σ|aᵢ|(|bⱼcₖ| + |bₖcⱼ|) (the permanent of |M|), the
/// floating-point expression below errs by at most 5u·P + O(u²); the filter accepts the
/// floating-point sign only when |det| > 8u·P, leaving a wide margin.
///
/// Limits: exactness assumes no underflow or overflow in the products, which holds for any
/// vector whose non-zero components are between ~1e-100 and ~1e100 in magnitude (all unit vectors
/// derived from coordinates qualify).
///
/// Ties (exactly coplanar points) are reported as ``Orientation/collinear``; GeoKit's
/// algorithms resolve them with explicit, documented rules (a half-open side convention in
/// point-in-loop tests, and exact distance checks for touching edges) rather than symbolic
/// perturbation.
public enum Predicates {
    /// The orientation of `a`, `b`, `c`: the exact sign of det(a, b, c).
    public static func orientation(_ a: S2Point, _ b: S2Point, _ c: S2Point) -> Orientation {
        switch sign(a, b, c) {
        case 1: return .counterClockwise
        case -1: return .clockwise
        default: return .collinear
        }
    }

    /// The exact sign of det(a, b, c) as -1, 0 or +1.
    static func sign(_ a: S2Point, _ b: S2Point, _ c: S2Point) -> Int {
        let m1 = b.y * c.z - b.z * c.y
        let m2 = b.z * c.x - b.x * c.z
        let m3 = b.x * c.y - b.y * c.x
        let det = a.x * m1 + a.y * m2 + a.z * m3
        let permanent = abs(a.x) * (abs(b.y * c.z) + abs(b.z * c.y))
            + abs(a.y) * (abs(b.z * c.x) + abs(b.x * c.z))
            + abs(a.z) * (abs(b.x * c.y) + abs(b.y * c.x))
        let bound = 8 * 0x1p-53 * permanent
        if det > bound { return 1 }
        if det < -bound { return -1 }
        if permanent == 0 { return 0 }
        return exactSign(a, b, c)
    }

    /// The sign of det(a, b, c) computed exactly with floating-point expansions.
    static func exactSign(_ a: S2Point, _ b: S2Point, _ c: S2Point) -> Int {
        var expansion = Expansion()
        expansion.addProduct(a.x, b.y, c.z, negated: false)
        expansion.addProduct(a.x, b.z, c.y, negated: true)
        expansion.addProduct(a.y, b.z, c.x, negated: false)
        expansion.addProduct(a.y, b.x, c.z, negated: true)
        expansion.addProduct(a.z, b.x, c.y, negated: false)
        expansion.addProduct(a.z, b.y, c.x, negated: true)
        return expansion.sign
    }
}

/// A floating-point expansion: an exact sum of doubles whose non-zero components are
/// non-overlapping and stored in increasing order of magnitude (Shewchuk's representation).
struct Expansion {
    private var components: [Double] = []

    /// `a + b` as a rounded sum and its exact rounding error.
    @inline(__always)
    private static func twoSum(_ a: Double, _ b: Double) -> (sum: Double, error: Double) {
        let s = a + b
        let bVirtual = s - a
        let aVirtual = s - bVirtual
        return (s, (a - aVirtual) + (b - bVirtual))
    }

    /// `a * b` as a rounded product and its exact rounding error (via fused multiply-add).
    @inline(__always)
    private static func twoProduct(_ a: Double, _ b: Double) -> (product: Double, error: Double) {
        let p = a * b
        return (p, (-p).addingProduct(a, b))
    }

    /// Adds one double exactly (grow-expansion).
    mutating func add(_ value: Double) {
        var carry = value
        for index in components.indices {
            let (sum, error) = Self.twoSum(carry, components[index])
            components[index] = error
            carry = sum
        }
        components.append(carry)
    }

    /// Adds ±(u · v · w) exactly, as the sum of four doubles.
    mutating func addProduct(_ u: Double, _ v: Double, _ w: Double, negated: Bool) {
        let (p, e) = Self.twoProduct(u, v)
        let (p1, e1) = Self.twoProduct(p, w)
        let (p2, e2) = Self.twoProduct(e, w)
        let s: Double = negated ? -1 : 1
        add(s * e2)
        add(s * e1)
        add(s * p2)
        add(s * p1)
    }

    /// The sign of the exact sum: the sign of its most significant non-zero component.
    var sign: Int {
        for value in components.reversed() where value != 0 {
            return value > 0 ? 1 : -1
        }
        return 0
    }
}
