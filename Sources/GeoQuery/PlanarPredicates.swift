/// Exact sign predicates for flat (planar) geometry in double precision.
///
/// Each predicate first evaluates its expression in floating point and returns that sign when a
/// forward error bound proves it right; otherwise it recomputes the expression exactly as a sum
/// of error-free products (Dekker's splitting, no fused multiply-add) accumulated into a
/// non-overlapping floating-point expansion, whose largest component has the exact sign.
///
/// Inputs are first scaled by a power of two (exact) when their magnitude exceeds 2⁴⁰⁰, so
/// huge finite coordinates cannot overflow; results are exact unless intermediate products
/// underflow (inputs below ~1e-140 in magnitude), where the error is below 1e-280.
enum PlanarPredicates {
    /// The sign of the cross product (b − a) × (c − a): +1 if `c` is left of the directed line
    /// from `a` to `b`, −1 if right, 0 if the three points are collinear.
    static func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                            _ cx: Double, _ cy: Double) -> Int {
        let left = (ax - cx) * (by - cy)
        let right = (ay - cy) * (bx - cx)
        let det = left - right
        let bound = 4e-16 * (Swift.abs(left) + Swift.abs(right))
        if det.isFinite && bound.isFinite && bound > 0 {
            if det > bound { return 1 }
            if det < -bound { return -1 }
        }
        var v = [ax, ay, bx, by, cx, cy]
        scaleIfHuge(&v)
        // det = ax·by − ay·bx + bx·cy − by·cx + cx·ay − cy·ax
        var expansion = ExactExpansion()
        expansion.addProduct(v[0], v[3])
        expansion.addProduct(-v[1], v[2])
        expansion.addProduct(v[2], v[5])
        expansion.addProduct(-v[3], v[4])
        expansion.addProduct(v[4], v[1])
        expansion.addProduct(-v[5], v[0])
        return expansion.sign
    }

    /// The sign of (px − cx)² + (py − cy)² − r²: −1 inside the circle, 0 on it, +1 outside.
    static func circleSide(_ px: Double, _ py: Double, center cx: Double, _ cy: Double, radius r: Double) -> Int {
        let dx = px - cx, dy = py - cy
        let sum = dx * dx + dy * dy
        let rr = r * r
        let value = sum - rr
        let bound = 1e-15 * (sum + rr)
        if value.isFinite && bound.isFinite && bound > 0 {
            if value > bound { return 1 }
            if value < -bound { return -1 }
        }
        var v = [px, py, cx, cy, r]
        scaleIfHuge(&v)
        var expansion = ExactExpansion()
        for (p, c) in [(v[0], v[2]), (v[1], v[3])] {
            // p − c = high + low exactly.
            let (high, low) = ExactExpansion.twoSum(p, -c)
            expansion.addProduct(high, high)
            expansion.addProduct(2 * high, low)
            expansion.addProduct(low, low)
        }
        expansion.addProduct(-v[4], v[4])
        return expansion.sign
    }

    /// Scales all values by the same power of two so that the largest magnitude is at most 2⁴⁰⁰
    /// (signs of homogeneous polynomials are unchanged).
    private static func scaleIfHuge(_ values: inout [Double]) {
        let largest = values.reduce(0) { Swift.max($0, Swift.abs($1)) }
        guard largest > 0x1p400, largest.isFinite else { return }
        let shift = Int(largest.exponent) - 400
        let factor = Double(sign: .plus, exponent: -shift, significand: 1)
        for index in values.indices { values[index] *= factor }
    }
}

/// An exact sum of doubles kept as a non-overlapping expansion, components in increasing order of
/// magnitude (Shewchuk's representation, grown one term at a time).
struct ExactExpansion {
    private var components: [Double] = []

    /// `a + b` as the rounded sum and its exact error.
    @inline(__always)
    static func twoSum(_ a: Double, _ b: Double) -> (sum: Double, error: Double) {
        let s = a + b
        let bVirtual = s - a
        let aVirtual = s - bVirtual
        return (s, (a - aVirtual) + (b - bVirtual))
    }

    /// Dekker's split of `a` into two 26-bit halves, `a = high + low` exactly.
    @inline(__always)
    private static func split(_ a: Double) -> (high: Double, low: Double) {
        let c = 134_217_729.0 * a  // 2^27 + 1
        let big = c - a
        let high = c - big
        return (high, a - high)
    }

    /// `a · b` as the rounded product and its exact error (Dekker, no fused multiply-add).
    @inline(__always)
    static func twoProduct(_ a: Double, _ b: Double) -> (product: Double, error: Double) {
        let p = a * b
        let (aHigh, aLow) = split(a)
        let (bHigh, bLow) = split(b)
        let error = aLow * bLow - (((p - aHigh * bHigh) - aLow * bHigh) - aHigh * bLow)
        return (p, error)
    }

    /// Adds one double exactly.
    mutating func add(_ value: Double) {
        guard value != 0 else { return }
        var carry = value
        var output: [Double] = []
        output.reserveCapacity(components.count + 1)
        for component in components {
            let (sum, error) = Self.twoSum(carry, component)
            if error != 0 { output.append(error) }
            carry = sum
        }
        if carry != 0 { output.append(carry) }
        components = output
    }

    /// Adds `a · b` exactly.
    mutating func addProduct(_ a: Double, _ b: Double) {
        let (p, e) = Self.twoProduct(a, b)
        add(e)
        add(p)
    }

    /// The sign of the exact sum (that of its largest non-zero component).
    var sign: Int {
        guard let last = components.last else { return 0 }
        return last > 0 ? 1 : (last < 0 ? -1 : 0)
    }
}
