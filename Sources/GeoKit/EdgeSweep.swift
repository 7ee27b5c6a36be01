#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A sweep over bounding boxes (of edges, or of whole loops) that reports the pairs whose boxes
/// overlap, with bounded work.
///
/// Edges are boxed in the plane of a gnomonic projection centred on their vertices whenever
/// those fit well inside one hemisphere (great-circle arcs are straight there, so a box is
/// exactly its endpoints' box, and a meridian edge is thin), turned to whichever of 8 directions
/// makes the boxes overlap least; otherwise in 3-D, by each arc's chord padded by its sagitta,
/// along the least overlapping axis. A sweep along that axis keeps the boxes it crosses in an
/// interval tree on the second axis, so each box meets only the boxes it overlaps:
/// O((n + k) log n) for k overlapping pairs, a dozen steps per edge for real outlines. Shapes
/// whose edges' boxes overlap whatever the direction (spikes from one tiny core, a fine zig-zag
/// turned between two of the directions) have k ≈ n², so the work is counted in *steps* (tree
/// nodes visited, a few more per reported pair) and the sweep stops at a budget: validation then
/// refuses the input as too complex instead of running for minutes.
enum EdgeSweep {
    /// An axis-aligned box in the sweep's coordinates: `x` is the sweep axis (3-D boxes are
    /// rotated so), planar boxes have `z` = 0.
    struct Box {
        var lo: S2Point
        var hi: S2Point
        let loop: Int
        let edge: Int
    }

    /// How a sweep ended.
    enum Outcome: Equatable {
        /// Every overlapping pair was reported.
        case finished
        /// The body returned false.
        case stopped
        /// The step budget ran out before every pair was seen.
        case overBudget
    }

    /// Steps allowed per box (at least ``minimumBudget`` in all). The 110m country outlines need
    /// 10–14 per edge, dense 99,000-vertex zig-zags and coastlines 20–310; at the budget a
    /// 100,000-edge shape is refused after about a second.
    static let stepsPerBox = 512
    /// Steps always allowed (small inputs are never refused).
    static let minimumBudget = 4_000_000
    /// Extra steps charged for each pair reported to the body (an exact edge test costs more
    /// than a comparison of coordinates).
    static let stepsPerPair = 4

    /// The budget for a sweep over `count` boxes (or for a validation of `count` edges).
    static func budget(for count: Int) -> Int {
        let (scaled, overflow) = count.multipliedReportingOverflow(by: stepsPerBox)
        return overflow ? Int.max : Swift.max(minimumBudget, scaled)
    }

    /// Boxes for every edge of every loop (each loop closed implicitly), ready to sweep:
    /// planar when the vertices fit the gnomonic projection, else 3-D.
    static func boxes(loops: [[S2Point]]) -> [Box] {
        planarBoxes(loops) ?? alongBestAxis(chordBoxes(loops))
    }

    /// 3-D boxes: each arc lies within its sagitta, 1 − cos(θ/2), of its chord.
    static func chordBoxes(_ loops: [[S2Point]]) -> [Box] {
        var result: [Box] = []
        result.reserveCapacity(loops.reduce(0) { $0 + $1.count })
        for (loopIndex, v) in loops.enumerated() {
            let n = v.count
            for i in 0..<n {
                let a = v[i], b = v[(i + 1) % n]
                let theta = a.angle(to: b).radians
                // sagitta = 1 − cos(θ/2) = 2 sin²(θ/4), plus rounding slack.
                let s = 2 * (theta / 4) * (theta / 4) + 1e-15 + 1e-12 * theta
                let pad = S2Point(x: s, y: s, z: s)
                let lo = S2Point(x: Swift.min(a.x, b.x), y: Swift.min(a.y, b.y), z: Swift.min(a.z, b.z)) - pad
                let hi = S2Point(x: Swift.max(a.x, b.x), y: Swift.max(a.y, b.y), z: Swift.max(a.z, b.z)) + pad
                result.append(Box(lo: lo, hi: hi, loop: loopIndex, edge: i))
            }
        }
        return result
    }

    /// Vertices at least this cosine from the projection centre (within ~84°) are projected.
    static let minimumProjectionCosine = 0.1

    /// Boxes in a gnomonic projection centred on the normalised sum of the vertices, or nil when
    /// some vertex is farther than ~84° from that centre.
    ///
    /// Arcs project to segments, so a segment's box is its endpoints' box. The projection
    /// stretches distances by at most 1 / cos²(farthest vertex angle), so boxes padded by the
    /// touch tolerance times that factor (plus 1e-13 for rounding of coordinates up to ~10)
    /// overlap whenever their arcs come within the tolerance.
    static func planarBoxes(_ loops: [[S2Point]]) -> [Box]? {
        var sum = S2Point.zero
        for loop in loops { for v in loop { sum = sum + v } }
        guard sum.norm2 > 1e-20, sum.isFinite else { return nil }
        let center = sum.normalized
        var minimumCosine = 1.0
        for loop in loops { for v in loop { minimumCosine = Swift.min(minimumCosine, v.dot(center)) } }
        guard minimumCosine >= minimumProjectionCosine else { return nil }
        let east = center.orthogonal, north = center.cross(east)
        let projected = loops.map { loop in
            loop.map { p -> (u: Double, v: Double) in
                let w = p.dot(center)
                return (p.dot(east) / w, p.dot(north) / w)
            }
        }
        let pad = Loop.touchTolerance * 1.1 / (minimumCosine * minimumCosine) + 1e-13
        // The direction (of 8, every 22.5°) along which the segments overlap least.
        var best = (cost: Double.infinity, cos: 1.0, sin: 0.0)
        for k in 0..<8 {
            let angle = Double(k) * Double.pi / 8
            let (c, s) = (cos(angle), sin(angle))
            var extent = 0.0, low = Double.infinity, high = -Double.infinity
            for ring in projected {
                for i in ring.indices {
                    let a = ring[i], b = ring[(i + 1) % ring.count]
                    let ua = a.u * c + a.v * s, ub = b.u * c + b.v * s
                    extent += Swift.abs(ua - ub)
                    low = Swift.min(low, ua)
                    high = Swift.max(high, ua)
                }
            }
            let cost = high > low ? extent / (high - low) : .infinity
            if cost < best.cost { best = (cost, c, s) }
        }
        var result: [Box] = []
        result.reserveCapacity(loops.reduce(0) { $0 + $1.count })
        for (loopIndex, ring) in projected.enumerated() {
            for i in ring.indices {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                let ua = a.u * best.cos + a.v * best.sin, va = a.v * best.cos - a.u * best.sin
                let ub = b.u * best.cos + b.v * best.sin, vb = b.v * best.cos - b.u * best.sin
                result.append(Box(lo: S2Point(x: Swift.min(ua, ub) - pad, y: Swift.min(va, vb) - pad, z: 0),
                                  hi: S2Point(x: Swift.max(ua, ub) + pad, y: Swift.max(va, vb) + pad, z: 0),
                                  loop: loopIndex, edge: i))
            }
        }
        return result
    }

    /// A box containing every point of `cap` (boundary included), tagged with `loop`.
    static func box(of cap: Cap, loop: Int) -> Box {
        let r = cap.radius.radians + 1e-15
        func range(_ axis: S2Point) -> (Double, Double) {
            let theta = cap.center.angle(to: axis).radians
            let hi = theta - r <= 0 ? 1 : cos(theta - r)
            let lo = theta + r >= Double.pi ? -1 : cos(theta + r)
            return (lo - 1e-15, hi + 1e-15)
        }
        let (xLo, xHi) = range(S2Point(x: 1, y: 0, z: 0))
        let (yLo, yHi) = range(S2Point(x: 0, y: 1, z: 0))
        let (zLo, zHi) = range(S2Point(x: 0, y: 0, z: 1))
        return Box(lo: S2Point(x: xLo, y: yLo, z: zLo), hi: S2Point(x: xHi, y: yHi, z: zHi), loop: loop, edge: 0)
    }

    /// Calls `body` for every pair of boxes that overlap in x, y and z, until it returns false or
    /// `budget` steps are spent. Pairs are reported once, in no particular order.
    ///
    /// A sweep along x keeps the boxes whose x-range contains the sweep position in an
    /// ``ActiveBoxes`` tree keyed by their y-ranges, so each box meets only the boxes it overlaps
    /// in x and y: O((n + k) log n) for k such pairs. Orient 3-D boxes with ``alongBestAxis(_:)``
    /// first (z is only filtered).
    static func forEachCandidatePair(_ boxes: [Box], budget: Int, _ body: (Box, Box) -> Bool) -> Outcome {
        let n = boxes.count
        guard n > 1 else { return .finished }
        let byLow = boxes.indices.sorted { boxes[$0].lo.y < boxes[$1].lo.y }
        var rank = [Int](repeating: 0, count: n)
        for (r, i) in byLow.enumerated() { rank[i] = r }
        let lows = byLow.map { boxes[$0].lo.y }
        let starts = boxes.indices.sorted { boxes[$0].lo.x < boxes[$1].lo.x }
        let ends = boxes.indices.sorted { boxes[$0].hi.x < boxes[$1].hi.x }
        var active = ActiveBoxes(count: n)
        var steps = 0, e = 0
        for i in starts {
            let box = boxes[i]
            while e < n && boxes[ends[e]].hi.x < box.lo.x {
                active.remove(rank: rank[ends[e]])
                e += 1
            }
            // Active boxes overlap in x; those with lo.y ≤ box.hi.y and hi.y ≥ box.lo.y in y.
            let below = upperBound(lows, box.hi.y)
            var stopped = false, pairSteps = 0
            let (complete, nodes) = active.forEach(rankBelow: below, hiAtLeast: box.lo.y, maxNodes: budget - steps) { j in
                let other = boxes[j]
                if other.lo.z > box.hi.z || other.hi.z < box.lo.z { return true }
                pairSteps += stepsPerPair
                if !body(other, box) {
                    stopped = true
                    return false
                }
                return steps + pairSteps <= budget
            }
            steps += nodes + pairSteps
            if stopped { return .stopped }
            if !complete || steps > budget { return .overBudget }
            active.insert(box: i, rank: rank[i], hi: box.hi.y)
        }
        return .finished
    }

    /// The number of elements of the ascending `values` that are ≤ `limit`.
    static func upperBound(_ values: [Double], _ limit: Double) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= limit { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The boxes with their coordinates rotated so that x is the axis where they overlap least:
    /// the one with the smallest sum of extents relative to the spread of the whole set.
    static func alongBestAxis(_ boxes: [Box]) -> [Box] {
        var extent = S2Point.zero
        var low = S2Point(x: .infinity, y: .infinity, z: .infinity)
        var high = S2Point(x: -.infinity, y: -.infinity, z: -.infinity)
        for box in boxes {
            extent = extent + (box.hi - box.lo)
            low = S2Point(x: Swift.min(low.x, box.lo.x), y: Swift.min(low.y, box.lo.y), z: Swift.min(low.z, box.lo.z))
            high = S2Point(x: Swift.max(high.x, box.hi.x), y: Swift.max(high.y, box.hi.y), z: Swift.max(high.z, box.hi.z))
        }
        let spread = high - low
        func cost(_ e: Double, _ s: Double) -> Double { s > 0 ? e / s : .infinity }
        let costs = (x: cost(extent.x, spread.x), y: cost(extent.y, spread.y), z: cost(extent.z, spread.z))
        if costs.x <= costs.y && costs.x <= costs.z { return boxes }
        func rotated(_ p: S2Point, yFirst: Bool) -> S2Point {
            yFirst ? S2Point(x: p.y, y: p.z, z: p.x) : S2Point(x: p.z, y: p.x, z: p.y)
        }
        let yFirst = costs.y <= costs.z
        return boxes.map { Box(lo: rotated($0.lo, yFirst: yFirst), hi: rotated($0.hi, yFirst: yFirst), loop: $0.loop, edge: $0.edge) }
    }
}

/// The boxes a sweep currently crosses, by rank of their lower y (one leaf each), in a segment
/// tree holding the largest upper y below every node: "every active box with rank < r and
/// upper y ≥ a" is found in O((1 + k) log n).
struct ActiveBoxes {
    private let size: Int
    /// Largest upper y of the active boxes under each node (−∞: none); node 1 is the root, the
    /// leaves are `size…2·size−1`.
    private var maxHigh: [Double]
    private var boxAtRank: [Int]
    private var stack: [(node: Int, low: Int, high: Int)] = []

    init(count: Int) {
        var size = 1
        while size < count { size *= 2 }
        self.size = size
        maxHigh = [Double](repeating: -.infinity, count: 2 * size)
        boxAtRank = [Int](repeating: -1, count: size)
    }

    mutating func insert(box: Int, rank: Int, hi: Double) {
        boxAtRank[rank] = box
        update(rank, hi)
    }

    mutating func remove(rank: Int) {
        update(rank, -.infinity)
    }

    private mutating func update(_ rank: Int, _ value: Double) {
        var node = rank + size
        maxHigh[node] = value
        node /= 2
        while node >= 1 {
            maxHigh[node] = Swift.max(maxHigh[2 * node], maxHigh[2 * node + 1])
            node /= 2
        }
    }

    /// Calls `visit` with every active box of rank below `limit` whose upper y is at least `a`,
    /// until it returns false. Gives up after visiting `maxNodes` tree nodes. Returns whether
    /// every such box was visited, and how many nodes were.
    mutating func forEach(rankBelow limit: Int, hiAtLeast a: Double, maxNodes: Int,
                          _ visit: (Int) -> Bool) -> (complete: Bool, nodes: Int) {
        var nodes = 0
        stack.removeAll(keepingCapacity: true)
        stack.append((1, 0, size))
        while let (node, low, high) = stack.popLast() {
            if low >= limit || maxHigh[node] < a { continue }
            nodes += 1
            if nodes > maxNodes { return (false, nodes) }
            if node >= size {
                if !visit(boxAtRank[node - size]) { return (false, nodes) }
                continue
            }
            let mid = (low + high) / 2
            stack.append((2 * node + 1, mid, high))
            stack.append((2 * node, low, mid))
        }
        return (true, nodes)
    }
}
