#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Precomputed edge data and reference points of a loop.
///
/// Immutable, and a class so that copying a ``Loop`` (or a ``Polygon``) retains one reference
/// instead of every array below.
final class LoopGeometry: Sendable {
    /// The loop's vertices (unit vectors).
    let vertices: [S2Point]
    /// The boundary tolerance in radians.
    let tolerance: Double
    /// `robustCross(vᵢ, vᵢ₊₁)`, a positive multiple of the edge normal.
    let normals: [S2Point]
    /// Unit edge normals (zero for degenerate edges).
    let unitNormals: [S2Point]
    /// Centre (normalised midpoint) and half-length (radians) of each edge, for quick rejection.
    let edgeCenters: [S2Point]
    let edgeRadii: [Double]
    /// cos and sin of each edge's half-length (``edgeRadii``), for trig-free cap tests.
    let edgeRadiusCosSin: [(cos: Double, sin: Double)]
    /// `vᵢ × vᵢ₊₁` computed plainly: `plainNormals[i] · y` is det(vᵢ, vᵢ₊₁, y) within
    /// ``signFilterBound``, for the filtered orientation signs of the crossing test.
    let plainNormals: [S2Point]
    /// Reference points with known containment and their edge signs sign(vᵢ, vᵢ₊₁, ref).
    let references: [LoopReference]
    /// A reference point near the loop (its vertices' normalised sum), when that point is on no
    /// edge's great circle: arcs from it to nearby query points are short, so
    /// ``crossingParityFast(from:to:screenBoundary:)`` can skip the runs of edges far from them.
    let localReference: LoopReference?
    let turningSum: Double
    /// Padded bounds (include the tolerance band and rounding margins).
    let rectBound: LatLngRect
    let capBound: Cap
    /// ``rectBound``'s trig-free tests.
    let rectTest: RectCellTest
    /// sin(tolerance), for the quick distance-to-great-circle test.
    let sinTolerance: Double
    /// Bounding caps of runs of ``EdgeChunk/size`` consecutive edges.
    let chunks: [EdgeChunk]

    init(vertices v: [S2Point], tolerance: Double) {
        let n = v.count
        var normals: [S2Point] = [], unitNormals: [S2Point] = []
        var centers: [S2Point] = [], radii: [Double] = []
        var radiusCosSin: [(cos: Double, sin: Double)] = [], plain: [S2Point] = []
        normals.reserveCapacity(n)
        for i in 0..<n {
            let a = v[i], b = v[(i + 1) % n]
            let normal = S2Point.robustCross(a, b)
            normals.append(normal)
            unitNormals.append(normal.normalized)
            plain.append(a.cross(b))
            let mid = (a + b).normalized
            centers.append(mid.norm2 > 0 ? mid : a)
            let radius = 0.5 * a.angle(to: b).radians + 1e-15
            radii.append(radius)
            radiusCosSin.append((cos(radius), sin(radius)))
        }
        self.normals = normals
        self.plainNormals = plain
        self.edgeRadiusCosSin = radiusCosSin
        self.unitNormals = unitNormals
        self.edgeCenters = centers
        self.edgeRadii = radii
        self.vertices = v
        self.tolerance = tolerance
        let sinTolerance = sin(Swift.min(tolerance, Double.pi / 2))
        self.sinTolerance = sinTolerance
        self.chunks = EdgeChunk.chunks(v, tolerance: tolerance)
        self.turningSum = Self.turningSum(v, normals: normals)
        let references = Self.makeReferences(v)
        self.references = references
        self.localReference = Self.makeLocalReference(v, references: references)
        // Bounds: every edge, the poles if contained, then the tolerance band and margins.
        var bounder = RectBounder()
        for i in 0..<n {
            bounder.addEdge(v[i], v[(i + 1) % n])
        }
        func containsPole(_ pole: S2Point) -> Bool {
            Self.parityContains(pole, vertices: v, references: references)
                || Self.isOnBoundary(pole, vertices: v, normals: normals, unitNormals: unitNormals,
                                     tolerance: tolerance, sinTolerance: sinTolerance)
        }
        let raw = bounder.finish(containsNorthPole: containsPole(.northPole),
                                 containsSouthPole: containsPole(.southPole))
        let padded = raw.expanded(by: Angle(radians: tolerance + 1e-14))
        self.rectBound = padded
        self.rectTest = RectCellTest(padded)
        self.capBound = padded.capBound
    }

    /// Crossing parity from the first usable reference point, with the exact predicates
    /// (used while the geometry is being built; ``parityContains(_:)`` is the fast equivalent).
    static func parityContains(_ point: S2Point, vertices: [S2Point], references: [LoopReference]) -> Bool {
        guard let first = references.first else { return false }
        var reference = first
        if point == -first.point, references.count > 1 {
            reference = references[1]
        }
        let odd = crossingParity(vertices: vertices, from: reference.point, fromSigns: reference.edgeSigns,
                                 to: point, skippingVertex: nil)
        return reference.inside != odd
    }

    /// Whether `point` is within `tolerance` of an edge (the quick test compares |p · n̂| with
    /// sin(tolerance)).
    static func isOnBoundary(_ point: S2Point, vertices v: [S2Point], normals: [S2Point], unitNormals: [S2Point],
                             tolerance: Double, sinTolerance: Double) -> Bool {
        let n = v.count
        let quickLimit = sinTolerance + 1e-15
        for i in 0..<n {
            let unit = unitNormals[i]
            if unit.norm2 > 0 && Swift.abs(point.dot(unit)) > quickLimit { continue }
            if EdgeMath.distance(point, toEdge: v[i], v[(i + 1) % n], normal: normals[i]) <= tolerance {
                return true
            }
        }
        return false
    }

    private static func turningSum(_ v: [S2Point], normals: [S2Point]) -> Double {
        let n = v.count
        guard n >= 3 else { return 0 }
        var sum = 0.0
        for k in 0..<n {
            let incoming = normals[(k + n - 1) % n]
            let outgoing = normals[k]
            sum += atan2(incoming.cross(outgoing).dot(v[k]), incoming.dot(outgoing))
        }
        return sum
    }

    /// Fixed candidate reference points (arbitrary, irrational-looking directions).
    private static let candidateReferences: [S2Point] = [
        S2Point(x: 0.2630671843, y: -0.4351981637, z: 0.8610457212),
        S2Point(x: -0.7193401625, y: 0.5380729411, z: -0.4393719042),
        S2Point(x: 0.5120939733, y: 0.8147762019, z: 0.2719850307),
        S2Point(x: -0.3169582213, y: -0.6851374497, z: -0.6558261159),
        S2Point(x: 0.9011877431, y: -0.1375520384, z: -0.4110648891),
        S2Point(x: -0.0840147523, y: 0.3309972101, z: -0.9398877643),
    ].map(\.normalized)

    /// Two reference points not on any edge's great circle, with their containment.
    private static func makeReferences(_ v: [S2Point]) -> [LoopReference] {
        let n = v.count
        var result: [LoopReference] = []
        guard n >= 3 else { return result }
        var candidates = candidateReferences
        // Extra candidates in the unlikely case every fixed one is degenerate.
        for k in 0..<16 {
            let t = Double(k) + 0.5
            candidates.append(S2Point(x: sin(1.7 * t), y: cos(2.3 * t), z: sin(0.9 * t + 0.3)).normalized)
        }
        for candidate in candidates where result.count < 2 {
            var signs: [Int8] = []
            signs.reserveCapacity(n)
            var ok = true
            for i in 0..<n {
                let s = Predicates.sign(v[i], v[(i + 1) % n], candidate)
                if s == 0 { ok = false; break }
                signs.append(Int8(s))
            }
            guard ok else { continue }
            let inside = containment(of: candidate, vertices: v)
            result.append(LoopReference(point: candidate, inside: inside, edgeSigns: signs))
        }
        return result
    }

    /// The normalised sum of the vertices as a reference point, with its edge signs and its
    /// containment (by exact parity from ``references``), or nil when it lies on some edge's
    /// great circle (or the sum vanishes).
    private static func makeLocalReference(_ v: [S2Point], references: [LoopReference]) -> LoopReference? {
        let n = v.count
        guard n >= 3, !references.isEmpty else { return nil }
        var sum = S2Point.zero
        for p in v { sum = sum + p }
        guard sum.norm2 > 1e-6 else { return nil }
        let candidate = sum.normalized
        var signs: [Int8] = []
        signs.reserveCapacity(n)
        for i in 0..<n {
            let s = Predicates.sign(v[i], v[(i + 1) % n], candidate)
            if s == 0 { return nil }
            signs.append(Int8(s))
        }
        let inside = parityContains(candidate, vertices: v, references: references)
        return LoopReference(point: candidate, inside: inside, edgeSigns: signs)
    }

    /// Containment of a reference point `r` (not on any edge's great circle): decided at a
    /// vertex whose wedge is non-degenerate by whether the direction towards `r` enters the
    /// interior, then by the parity of crossings along the arc from that vertex to `r`.
    private static func containment(of r: S2Point, vertices v: [S2Point]) -> Bool {
        let n = v.count
        var k = 0
        for candidate in 0..<n where Predicates.sign(v[(candidate + n - 1) % n], v[candidate], v[(candidate + 1) % n]) != 0 {
            k = candidate
            break
        }
        let prev = v[(k + n - 1) % n], vertex = v[k], next = v[(k + 1) % n]
        let entersInterior = wedgeContains(start: next, direction: r, end: prev, around: vertex)
        let odd = crossingParity(vertices: v, from: vertex, fromSigns: nil, to: r, skippingVertex: k)
        return entersInterior != odd
    }

    /// Whether the direction from `o` towards `b` lies strictly inside the wedge swept
    /// counter-clockwise around `o` from the direction towards `a` to the direction towards `c`.
    static func wedgeContains(start a: S2Point, direction b: S2Point, end c: S2Point, around o: S2Point) -> Bool {
        let sac = Predicates.sign(o, a, c)
        let sab = Predicates.sign(o, a, b)
        let sbc = Predicates.sign(o, b, c)
        if sac > 0 { return sab > 0 && sbc > 0 }
        if sac < 0 { return sab > 0 || sbc > 0 }
        // a and c on one great circle through o: a straight angle (half-plane) or a spike.
        let ta = a - o * o.dot(a), tc = c - o * o.dot(c)
        if ta.dot(tc) < 0 { return sab > 0 }
        return false
    }

    /// Whether the arc from `x` to `y` crosses the loop's edges an odd number of times.
    ///
    /// Edge (a, b) is counted when a and b are on different sides of the plane through x and y
    /// — a vertex exactly on that plane counts as the left side (half-open rule) — and the
    /// crossing lies on the arc: sign(a, b, x) = side(b) and sign(a, b, y) = side(a). `x` must not
    /// lie on any edge's great circle, nor `y` on an edge. Edges incident to `skippingVertex`
    /// are ignored.
    static func crossingParity(vertices v: [S2Point], from x: S2Point, fromSigns: [Int8]?, to y: S2Point,
                               skippingVertex: Int?) -> Bool {
        let n = v.count
        guard n >= 2 else { return false }
        var odd = false
        var sideA = Predicates.sign(x, y, v[0]) >= 0
        for i in 0..<n {
            let a = v[i], b = v[(i + 1) % n]
            let sideB = Predicates.sign(x, y, b) >= 0
            defer { sideA = sideB }
            if sideA == sideB { continue }
            if let k = skippingVertex, i == k || (i + 1) % n == k { continue }
            let s4 = sideB ? 1 : -1
            let s1 = fromSigns.map { Int($0[i]) } ?? Predicates.sign(a, b, x)
            if s1 != s4 { continue }
            let s3 = sideA ? 1 : -1
            if Predicates.sign(a, b, y) == s3 { odd.toggle() }
        }
        return odd
    }
}

/// A bounding cap of the edges `size·k ..< size·(k + 1)` of a loop (their vertices, including
/// the end of the last edge), so that scans can skip whole runs of edges.
///
/// When the radius is below π/2 the cap is convex and contains the edges (arcs between points of
/// the cap). Larger runs get an infinite `sinRadius` and a `cosReach` of −∞, so no test skips
/// them.
struct EdgeChunk: Sendable {
    static let size = 8

    /// The normalised sum of the run's vertices.
    let center: S2Point
    /// The largest angle from `center` to a vertex, plus 1e-14 rad.
    let radius: Double
    let sinRadius: Double
    let cosRadius: Double
    /// cos(radius + tolerance + 1e-13) − 1e-15: a unit point whose dot product with `center` is
    /// below it is farther than the tolerance from every edge of the run.
    let cosReach: Double

    static func chunks(_ v: [S2Point], tolerance: Double) -> [EdgeChunk] {
        let n = v.count
        guard n > 0 else { return [] }
        var result: [EdgeChunk] = []
        result.reserveCapacity((n + size - 1) / size)
        var start = 0
        while start < n {
            let end = Swift.min(start + size, n)
            var sum = S2Point.zero
            for k in start...end {
                sum = sum + v[k == n ? 0 : k]
            }
            let center = sum.normalized
            var radius = Double.pi
            if center.norm2 > 0.5 {
                var largest = 0.0
                for k in start...end {
                    largest = Swift.max(largest, center.angle(to: v[k == n ? 0 : k]).radians)
                }
                radius = largest + 1e-14
            }
            if radius < Double.pi / 2 {
                let reach = radius + tolerance + 1e-13
                result.append(EdgeChunk(center: center, radius: radius, sinRadius: sin(radius), cosRadius: cos(radius),
                                        cosReach: reach < Double.pi ? cos(reach) - 1e-15 : -Double.infinity))
            } else {
                result.append(EdgeChunk(center: center, radius: Double.pi, sinRadius: Double.infinity, cosRadius: -1,
                                        cosReach: -Double.infinity))
            }
            start = end
        }
        return result
    }
}

/// A point with known containment in a loop.
struct LoopReference: Sendable {
    let point: S2Point
    let inside: Bool
    /// sign(vᵢ, vᵢ₊₁, point) for every edge (never zero).
    let edgeSigns: [Int8]
}
