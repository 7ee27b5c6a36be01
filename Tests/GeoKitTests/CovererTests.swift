#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import GeoKit

/// Coverings never miss a contained point, and stay small.
struct CovererTests {
    /// Checks that every point the region contains has its leaf cell in the covering (both by
    /// cell containment and by signed key ranges) and that the covering is normalised. Returns
    /// how many points were contained.
    @discardableResult
    static func checkCovering(_ region: some Region, _ covering: [CellID], coverer: RegionCoverer,
                              points: [S2Point], label: String) -> Int {
        let ranges = RegionCoverer.ranges(of: covering)
        var contained = 0, misses = 0
        for p in points where region.contains(p) {
            contained += 1
            let leaf = CellID(p)
            let inCells = covering.contains { $0.contains(leaf) }
            if !inCells || !rangesContain(ranges, leaf.int64Key) {
                misses += 1
                if misses <= 3 { Issue.record("\(label): missed \(LatLng(p)) leaf \(leaf.token)") }
            }
        }
        // Normalised: sorted, disjoint, levels allowed.
        let p = coverer.effective
        for (i, id) in covering.enumerated() {
            #expect(id.isValid && id.level >= p.minLevel && id.level <= p.maxLevel, "\(label)")
            #expect((id.level - p.minLevel) % p.levelMod == 0, "\(label)")
            if i > 0 { #expect(covering[i - 1].rangeMax < id.rangeMin, "\(label): not sorted/disjoint") }
        }
        // Ranges are sorted by signed key and coalesced.
        for i in ranges.indices.dropFirst() {
            #expect(ranges[i - 1].upperBound < ranges[i].lowerBound - 2, "\(label): ranges not coalesced")
        }
        return contained
    }

    /// The fewest cells any covering can have: the region's cells at minLevel.
    static func minLevelFloor(_ region: some Region, _ coverer: RegionCoverer) -> Int {
        let p = coverer.effective
        return RegionCoverer(minLevel: p.minLevel, maxLevel: p.minLevel, maxCells: 10_000).covering(of: region).count
    }

    static func checkSize(_ region: some Region, _ covering: [CellID], coverer: RegionCoverer, label: String) {
        let limit = max(coverer.maxCells, minLevelFloor(region, coverer))
        #expect(covering.count <= limit, "\(label): \(covering.count) cells > \(limit)")
    }

    /// Upper bound on the area of a cell at `level` (steradians).
    static func maxCellArea(_ level: Int) -> Double {
        2.64 / pow(4, Double(level))
    }

    static func randomCenter(_ rng: inout SplitMix64, _ k: Int) -> S2Point {
        switch k % 5 {
        case 0: return rng.pointNear(.northPole, within: 0.05)
        case 1: return rng.pointNear(.southPole, within: 0.05)
        case 2: return LatLng(degreesLatitude: rng.uniform(-60, 60), longitude: 180).toPoint()
        default: return rng.point()
        }
    }

    @Test("caps: never miss, small, tight (seed 61)")
    func caps() {
        var rng = SplitMix64(seed: 61)
        let coverer = RegionCoverer()
        var totalContained = 0
        for k in 0..<60 {
            let center = Self.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(1.5e-7), log(3.0)))  // ~1 m … near the whole sphere
            let cap = Cap(center: center, radius: Angle(radians: radius))
            let covering = coverer.covering(of: cap)
            var points: [S2Point] = []
            for _ in 0..<1_200 {
                switch rng.next() % 4 {
                case 0: points.append(rng.point())
                case 1: points.append(rng.point(near: center, distance: radius * (1 - 1e-6 * rng.unit())))
                case 2: points.append(rng.point(near: center, distance: radius * rng.unit()))
                default: points.append(rng.point(near: center, distance: min(Double.pi, radius + rng.uniform(-1, 1) * 1e-9)))
                }
            }
            points.append(center)
            let label = "cap \(k) r=\(radius)"
            totalContained += Self.checkCovering(cap, covering, coverer: coverer, points: points, label: label)
            Self.checkSize(cap, covering, coverer: coverer, label: label)
            // Tight: the cells' total area is a small multiple of the cap's.
            let area = covering.reduce(0.0) { $0 + Self.maxCellArea($1.level) }
            let capArea = 2 * Double.pi * (1 - cos(radius))
            #expect(area <= 30 * capArea + Double(covering.count) * Self.maxCellArea(16), "\(label)")
        }
        #expect(totalContained > 20_000)
    }

    @Test("rectangles: never miss, incl. antimeridian and poles (seed 62)")
    func rectangles() {
        var rng = SplitMix64(seed: 62)
        let coverer = RegionCoverer()
        for k in 0..<50 {
            let size = exp(rng.uniform(log(1e-5), log(120.0)))  // degrees
            var lat = rng.uniform(-90, 90 - size), lng = rng.uniform(-180, 180)
            switch k % 5 {
            case 0: lat = 90 - size  // touches the north pole
            case 1: lat = -90  // touches the south pole
            case 2: lng = 180 - size / 2  // crosses the antimeridian
            default: break
            }
            let rect = LatLngRect(southWest: ll(lat, lng), northEast: ll(min(90, lat + size), lng + 2 * size).normalized)
            let covering = coverer.covering(of: rect)
            var points: [S2Point] = []
            for _ in 0..<1_000 {
                let plat = lat + rng.uniform(-0.1, 1.1) * size
                let plng = lng + rng.uniform(-0.1, 1.1) * 2 * size
                points.append(ll(min(90, max(-90, plat)), plng).normalized.toPoint())
            }
            for corner in [ll(lat, lng), ll(min(90, lat + size), lng + 2 * size), ll(lat, lng + 2 * size)] {
                points.append(corner.normalized.toPoint())
            }
            let label = "rect \(k) \(rect)"
            #expect(Self.checkCovering(rect, covering, coverer: coverer, points: points, label: label) > 100, "\(label)")
            Self.checkSize(rect, covering, coverer: coverer, label: label)
        }
    }

    /// A random star-shaped, counter-clockwise ring around `center`.
    static func starRing(_ rng: inout SplitMix64, center: S2Point, radius: Double, vertices n: Int) -> [S2Point] {
        let u = center.orthogonal, w = center.cross(u)
        return (0..<n).map { k in
            let phi = 2 * Double.pi * (Double(k) + rng.uniform(0, 0.7)) / Double(n)
            let r = radius * rng.uniform(0.5, 1)
            return (center * cos(r) + (u * cos(phi) + w * sin(phi)) * sin(r)).normalized
        }
    }

    /// Points around a polygon: near vertices and edges (both sides, down to 1e-12 rad), inside,
    /// and uniform.
    static func pointsAround(_ loops: [Loop], center: S2Point, radius: Double, _ rng: inout SplitMix64) -> [S2Point] {
        var points: [S2Point] = []
        for loop in loops {
            points.append(contentsOf: loop.vertices)
            for _ in 0..<600 {
                let k = Int(rng.next() % UInt64(loop.count))
                let onEdge = interpolate(loop.vertex(k), loop.vertex(k + 1), rng.unit())
                points.append(rng.pointNear(onEdge, within: radius * 0.05))
            }
        }
        for _ in 0..<400 {
            points.append(rng.point(near: center, distance: radius * rng.unit()))
        }
        for _ in 0..<200 {
            points.append(rng.point())
        }
        return points
    }

    @Test("polygons: never miss, tiny to near-hemisphere, poles, antimeridian, holes (seed 63)")
    func polygons() throws {
        var rng = SplitMix64(seed: 63)
        let coverer = RegionCoverer()
        for k in 0..<40 {
            let center = Self.randomCenter(&rng, k)
            let radius = k % 8 == 7 ? rng.uniform(1.3, 1.5) : exp(rng.uniform(log(1.5e-7), log(1.0)))
            let shell = Loop(vertices: Self.starRing(&rng, center: center, radius: radius, vertices: 3 + Int(rng.next() % 25)))
            #expect(shell.isValid && !shell.isLargerThanHemisphere)
            var holes: [Loop] = []
            if k % 3 == 0 {
                holes.append(Loop(vertices: Self.starRing(&rng, center: center, radius: radius * 0.3, vertices: 6)))
            }
            let polygon = Polygon(shell: shell, holes: holes)
            #expect(polygon.isValid)
            let covering = coverer.covering(of: polygon)
            let points = Self.pointsAround([shell] + holes, center: center, radius: radius, &rng)
            let label = "polygon \(k) r=\(radius) holes \(holes.count)"
            #expect(Self.checkCovering(polygon, covering, coverer: coverer, points: points, label: label) > 300, "\(label)")
            Self.checkSize(polygon, covering, coverer: coverer, label: label)
        }
    }

    @Test("edges along cell boundaries (equator, meridians, face edges) never miss (seed 69)")
    func gridAlignedPolygons() throws {
        var rng = SplitMix64(seed: 69)
        let rings: [[(Double, Double)]] = [
            [(0, 0), (0, 40), (30, 40), (30, 0)],  // equator and lng 0 are face-0 cell edges
            [(0, 45), (0, 135), (-35.26438968275465, 135), (-35.26438968275465, 45)],  // face 1 edges
            [(-20, -180), (20, -180), (20, 170), (-20, 170)],  // antimeridian
        ]
        for (index, ring) in rings.enumerated() {
            let polygon = try Polygon(geoJSONRings: [LoopTests.ring(ring)])
            for coverer in [RegionCoverer(), RegionCoverer(minLevel: 0, maxLevel: 30, maxCells: 50)] {
                let covering = coverer.covering(of: polygon)
                var points = polygon.shell.vertices
                for _ in 0..<800 {
                    let k = Int(rng.next() % UInt64(polygon.shell.count))
                    points.append(interpolate(polygon.shell.vertex(k), polygon.shell.vertex(k + 1), rng.unit()))
                }
                let contained = Self.checkCovering(polygon, covering, coverer: coverer, points: points, label: "grid \(index)")
                #expect(contained == points.count)
            }
        }
    }

    @Test("big (strict winding) polygons and multipolygons never miss (seed 64)")
    func bigAndMulti() throws {
        var rng = SplitMix64(seed: 64)
        let coverer = RegionCoverer()
        for k in 0..<8 {
            let center = Self.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(1e-3), log(1.2)))
            let small = Loop(vertices: Self.starRing(&rng, center: center, radius: radius, vertices: 12))
            let big = small.reversed()
            #expect(big.isLargerThanHemisphere)
            let covering = coverer.covering(of: big)
            let points = Self.pointsAround([big], center: center, radius: radius, &rng)
            Self.checkCovering(big, covering, coverer: coverer, points: points, label: "big \(k)")
            Self.checkSize(big, covering, coverer: coverer, label: "big \(k)")
        }
        let a = Loop(vertices: Self.starRing(&rng, center: pt(0, 179.99), radius: 0.01, vertices: 7))
        let b = Loop(vertices: Self.starRing(&rng, center: pt(-89.9, 0), radius: 0.02, vertices: 9))
        let multi = MultiPolygon(polygons: [Polygon(shell: a), Polygon(shell: b)])
        let covering = coverer.covering(of: multi)
        var points = Self.pointsAround([a], center: pt(0, 179.99), radius: 0.01, &rng)
        points += Self.pointsAround([b], center: pt(-89.9, 0), radius: 0.02, &rng)
        #expect(Self.checkCovering(multi, covering, coverer: coverer, points: points, label: "multi") > 300)
        Self.checkSize(multi, covering, coverer: coverer, label: "multi")
    }

    @Test("other parameters: levels 0…30, levelMod 2 and 3, few cells (seed 65)", arguments: [
        RegionCoverer(minLevel: 0, maxLevel: 30, levelMod: 1, maxCells: 8),
        RegionCoverer(minLevel: 4, maxLevel: 20, levelMod: 2, maxCells: 12),
        RegionCoverer(minLevel: 1, maxLevel: 28, levelMod: 3, maxCells: 30),
        RegionCoverer(minLevel: 0, maxLevel: 30, levelMod: 1, maxCells: 1),
    ])
    func parameters(_ coverer: RegionCoverer) {
        var rng = SplitMix64(seed: 65)
        for k in 0..<16 {
            let center = Self.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(1e-7), log(1.0)))
            let regions: [any Region] = [
                Cap(center: center, radius: Angle(radians: radius)),
                Loop(vertices: Self.starRing(&rng, center: center, radius: radius, vertices: 5)),
            ]
            for (index, region) in regions.enumerated() {
                let covering = coverer.covering(of: region)
                var points: [S2Point] = []
                for _ in 0..<300 {
                    points.append(rng.point(near: center, distance: radius * rng.uniform(0, 1.05)))
                }
                let label = "params \(coverer) region \(index) #\(k)"
                Self.checkCovering(region, covering, coverer: coverer, points: points, label: label)
                Self.checkSize(region, covering, coverer: coverer, label: label)
            }
        }
    }

    @Test("interior coverings lie inside the region (seed 66)")
    func interior() throws {
        var rng = SplitMix64(seed: 66)
        let coverer = RegionCoverer(minLevel: 0, maxLevel: 20, maxCells: 20)
        var nonEmpty = 0
        for k in 0..<20 {
            let center = Self.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(1e-4), log(1.0)))
            let regions: [any Region] = [
                Cap(center: center, radius: Angle(radians: radius)),
                Loop(vertices: Self.starRing(&rng, center: center, radius: radius, vertices: 8)),
            ]
            for region in regions {
                let interior = coverer.interiorCovering(of: region)
                if !interior.isEmpty { nonEmpty += 1 }
                for id in interior {
                    let cell = try #require(Cell(id))
                    for _ in 0..<20 {
                        #expect(region.contains(BoundsTests.sample(cell, &rng)))
                    }
                }
            }
        }
        #expect(nonEmpty > 20)
    }

    @Test func annulusForNear() {
        var rng = SplitMix64(seed: 67)
        let coverer = RegionCoverer()
        for _ in 0..<10 {
            let center = rng.point()
            let inner = rng.uniform(0, 0.05), outer = inner + rng.uniform(1e-6, 0.05)
            let ring = Annulus(center: center, inner: Angle(radians: inner), outer: Angle(radians: outer))
            let covering = coverer.covering(of: ring)
            let points = (0..<1_000).map { _ in rng.point(near: center, distance: rng.uniform(0, outer * 1.1)) }
            Self.checkCovering(ring, covering, coverer: coverer, points: points, label: "annulus")
            // With enough cells the hole is left out.
            if inner > 0.02 {
                let fine = RegionCoverer(minLevel: 2, maxLevel: 30, maxCells: 100).covering(of: ring)
                let leaf = CellID(center)
                #expect(!fine.contains { $0.contains(leaf) })
            }
        }
    }

    @Test func signedRanges() {
        let cells = [CellID.face(0).child(position: 1), CellID.face(4).child(position: 2), CellID.face(5),
                     CellID.face(0).child(position: 0), CellID.face(3)]
        let ranges = RegionCoverer.ranges(of: cells)
        // Face 4's child and face 5 are negative and come first; face 0's two children merge.
        #expect(ranges.count == 4)
        #expect(ranges[0].lowerBound < 0 && ranges[1].lowerBound < 0 && ranges[2].lowerBound > 0)
        #expect(ranges[2] == CellID.face(0).child(position: 0).rangeMin.int64Key...CellID.face(0).child(position: 1).rangeMax.int64Key)
        #expect(ranges[3].upperBound == Int64.max)
        #expect(ranges == ranges.sorted { $0.lowerBound < $1.lowerBound })
        // Adjacent faces 4 and 5 coalesce.
        #expect(RegionCoverer.ranges(of: [CellID.face(4), CellID.face(5)]).count == 1)
    }

    @Test func normalisation() {
        let parent = CellID(pt(10, 10)).parent(level: 8)
        let normalized = RegionCoverer.normalize(parent.children.reversed() + [parent.children[0].children[1]])
        #expect(normalized == [parent])
        let full = RegionCoverer(minLevel: 0, maxLevel: 30, maxCells: 8).covering(of: Cap.full)
        #expect(full == (0..<6).map { CellID.face($0) })
        #expect(RegionCoverer().covering(of: Cap.empty).isEmpty)
        #expect(RegionCoverer().covering(of: Cap.full).count == 96)
    }

    @Test("coarsening merges into allowed ancestors and only grows the union (seed 68)")
    func coarsening() {
        var rng = SplitMix64(seed: 68)
        let center = pt(30, 40)
        let cells = CellUnion.normalized((0..<40).map { _ in
            CellID(rng.point(near: center, distance: rng.uniform(0, 0.2))).parent(level: 12)
        })
        #expect(cells.count > 30)
        let coarse = CellUnion.coarsened(cells, toAtMost: 8, minLevel: 2, levelMod: 2)
        #expect(coarse.count <= 8)
        #expect(coarse.allSatisfy { $0.level >= 2 && ($0.level - 2) % 2 == 0 })
        #expect(cells.allSatisfy { cell in coarse.contains { $0.contains(cell) } })
        // Nothing can merge across faces above level 0.
        let faces = [CellID.face(0), CellID.face(1), CellID.face(2)].map { $0.child(position: 1) }
        #expect(CellUnion.coarsened(faces, toAtMost: 1, minLevel: 0, levelMod: 1).count == 3)
    }
}
