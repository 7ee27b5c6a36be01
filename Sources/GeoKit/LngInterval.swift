/// A closed interval of longitudes (radians) on the circle, which may wrap across ±π.
///
/// Representation: `lo`, `hi` ∈ [-π, π]. If `lo ≤ hi` the interval is [lo, hi]; if `lo > hi` it
/// is [lo, π] ∪ [-π, hi] (it crosses the antimeridian). `[-π, π]` is full and `[π, -π]` empty.
/// Since -π and π are the same meridian, an endpoint of -π is stored as π except in the full
/// interval, and ``contains(_:)`` treats both values alike.
struct LngInterval: Sendable, Hashable {
    private(set) var lo: Double
    private(set) var hi: Double

    static let empty = LngInterval(rawLo: Double.pi, rawHi: -Double.pi)
    static let full = LngInterval(rawLo: -Double.pi, rawHi: Double.pi)

    private init(rawLo: Double, rawHi: Double) {
        lo = rawLo
        hi = rawHi
    }

    /// The interval from `lo` eastward to `hi`, both in [-π, π].
    init(lo: Double, hi: Double) {
        var lo = lo, hi = hi
        if lo == -Double.pi && hi != Double.pi { lo = Double.pi }
        if hi == -Double.pi && lo != Double.pi { hi = Double.pi }
        self.lo = lo
        self.hi = hi
    }

    /// The shorter interval containing both longitudes (either one if they are exactly
    /// antipodal).
    static func between(_ a: Double, _ b: Double) -> LngInterval {
        let d = (b - a).remainder(dividingBy: 2 * Double.pi)
        return d >= 0 ? LngInterval(lo: a, hi: b) : LngInterval(lo: b, hi: a)
    }

    var isFull: Bool { lo == -Double.pi && hi == Double.pi }
    var isEmpty: Bool { lo == Double.pi && hi == -Double.pi }
    var isInverted: Bool { lo > hi }

    /// The length in radians (negative for the empty interval).
    var length: Double {
        if isEmpty { return -1 }
        let raw = hi - lo
        return raw >= 0 ? raw : raw + 2 * Double.pi
    }

    /// The midpoint, in [-π, π].
    var center: Double {
        let mid = 0.5 * (lo + hi)
        guard isInverted else { return mid }
        return mid <= 0 ? mid + Double.pi : mid - Double.pi
    }

    /// Containment without identifying -π with π.
    private func fastContains(_ p: Double) -> Bool {
        if isInverted {
            return (p >= lo || p <= hi) && !isEmpty
        }
        return p >= lo && p <= hi
    }

    /// Whether the longitude `p` ∈ [-π, π] is in the closed interval.
    func contains(_ p: Double) -> Bool {
        fastContains(p == -Double.pi ? Double.pi : p)
    }

    func contains(_ other: LngInterval) -> Bool {
        if other.isEmpty { return true }
        if isInverted {
            if other.isInverted { return other.lo >= lo && other.hi <= hi }
            return (other.lo >= lo || other.hi <= hi) && !isEmpty
        }
        if other.isInverted { return isFull }
        return other.lo >= lo && other.hi <= hi
    }

    func intersects(_ other: LngInterval) -> Bool {
        if isEmpty || other.isEmpty { return false }
        if isInverted {
            return other.isInverted || other.lo <= hi || other.hi >= lo
        }
        if other.isInverted {
            return other.lo <= hi || other.hi >= lo
        }
        return other.lo <= hi && other.hi >= lo
    }

    /// The smallest interval containing both.
    func union(_ other: LngInterval) -> LngInterval {
        if other.isEmpty { return self }
        if isEmpty { return other }
        if fastContains(other.lo) {
            if fastContains(other.hi) {
                return contains(other) ? self : .full
            }
            return LngInterval(lo: lo, hi: other.hi)
        }
        if fastContains(other.hi) {
            return LngInterval(lo: other.lo, hi: hi)
        }
        if other.fastContains(lo) {
            return other
        }
        // Disjoint: close the smaller of the two gaps.
        let gapBefore = Self.positiveDistance(other.hi, lo)
        let gapAfter = Self.positiveDistance(hi, other.lo)
        return gapBefore < gapAfter ? LngInterval(lo: other.lo, hi: hi) : LngInterval(lo: lo, hi: other.hi)
    }

    /// The interval widened by `margin` ≥ 0 radians at both ends (full if it wraps around).
    func expanded(by margin: Double) -> LngInterval {
        if isEmpty || margin <= 0 { return self }
        if !(length + 2 * margin < 2 * Double.pi - 1e-15) { return .full }
        let newLo = (lo - margin).remainder(dividingBy: 2 * Double.pi)
        let newHi = (hi + margin).remainder(dividingBy: 2 * Double.pi)
        return LngInterval(lo: newLo, hi: newHi)
    }

    /// The eastward distance from `a` to `b`, in [0, 2π).
    private static func positiveDistance(_ a: Double, _ b: Double) -> Double {
        let d = b - a
        return d >= 0 ? d : (b + Double.pi) - (a - Double.pi)
    }
}
