// Why one file of ~460 lines: the straightforward reference versions of the cell predicates and
// the randomized comparisons against the fast paths belong side by side.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import GeoKit

/// Straightforward versions of the cell predicates, as GeoKit computed them before the
/// trig-free fast paths: exact point-to-edge distances with `atan2` (``EdgeMath``), cell bounding
/// rectangles from ``RectBounder``, and crossing parity with the exact predicate on every vertex.
enum Reference {
    /// The angle from `p` to the nearest of the cell's four edges.
    static func boundaryDistance(_ cell: Cell, _ p: S2Point) -> Double {
        var best = Double.infinity
        for k in 0..<4 {
            best = min(best, EdgeMath.distance(p, toEdge: cell.vertex(k), cell.vertex(k + 1)))
        }
        return best
    }

    static func distance(_ cell: Cell, _ p: S2Point) -> Double {
        cell.contains(p) ? 0 : max(0, boundaryDistance(cell, p) - Cell.distanceErrorBound.radians)
    }

    static func maxDistance(_ cell: Cell, _ p: S2Point) -> Double {
        cell.contains(-p) ? Double.pi
            : min(Double.pi, Double.pi - boundaryDistance(cell, -p) + Cell.distanceErrorBound.radians)
    }

    /// A cap through the generic coverer path, with the angle-based predicates.
    struct CapRegion: Region {
        let cap: Cap
        var capBound: Cap { cap }
        func contains(_ point: S2Point) -> Bool { cap.contains(point) }
        func contains(_ cell: Cell) -> Bool {
            if cap.isEmpty { return false }
            if cap.isFull { return true }
            return Reference.maxDistance(cell, cap.center) <= cap.radius.radians
        }
        func mayIntersect(_ cell: Cell) -> Bool {
            if cap.isEmpty { return false }
            if cap.isFull { return true }
            return Reference.distance(cell, cap.center) <= cap.radius.radians
        }
    }

    /// A rectangle through the generic path, comparing with the cell's bounding rectangle.
    struct RectRegion: Region {
        let rect: LatLngRect
        var capBound: Cap { rect.capBound }
        var rectBound: LatLngRect { rect }
        func contains(_ point: S2Point) -> Bool { rect.contains(point) }
        func contains(_ cell: Cell) -> Bool { rect.contains(cell.rectBound) }
        func mayIntersect(_ cell: Cell) -> Bool { rect.intersects(cell.rectBound) }
    }

    /// Exact crossing parity from the loop's first global reference point.
    static func parity(_ loop: Loop, _ p: S2Point) -> Bool {
        LoopGeometry.parityContains(p, vertices: loop.vertices, references: loop.geometry.references)
    }

    static func onBoundary(_ loop: Loop, _ p: S2Point) -> Bool {
        let g = loop.geometry
        return LoopGeometry.isOnBoundary(p, vertices: g.vertices, normals: g.normals, unitNormals: g.unitNormals,
                                         tolerance: g.tolerance, sinTolerance: g.sinTolerance)
    }

    static func loopContains(_ loop: Loop, _ p: S2Point) -> Bool {
        loop.rectBound.contains(p) && (parity(loop, p) || onBoundary(loop, p))
    }

    /// Whether some edge comes within `distance` of the cell: a cap prefilter per edge, then the
    /// exact edge-to-boundary distance.
    static func edgeNear(_ loop: Loop, _ cell: Cell, distance: Double) -> Bool {
        let g = loop.geometry
        let v = loop.vertices
        let n = v.count
        let cap = cell.capBound
        let reach = cap.radius.radians + distance
        for i in 0..<n {
            let limit = g.edgeRadii[i] + reach
            if limit < Double.pi && g.edgeCenters[i].dot(cap.center) < cos(limit) - 1e-15 { continue }
            let a = v[i], b = v[(i + 1) % n]
            if cell.contains(a) || cell.contains(b) { return true }
            if cell.boundaryDistance(toEdge: a, b) <= distance { return true }
        }
        return false
    }

    /// A hole-free polygon (its shell) through the generic path.
    struct LoopRegion: Region {
        let loop: Loop
        var capBound: Cap { loop.capBound }
        var rectBound: LatLngRect { loop.rectBound }
        func contains(_ point: S2Point) -> Bool { Reference.loopContains(loop, point) }
        func contains(_ cell: Cell) -> Bool {
            guard loop.vertices.count >= 3, loop.rectBound.intersects(cell.rectBound) else { return false }
            if Reference.edgeNear(loop, cell, distance: LoopGeometry.cellSlack) { return false }
            return Reference.parity(loop, cell.center)
        }
        func mayIntersect(_ cell: Cell) -> Bool {
            guard loop.rectBound.intersects(cell.rectBound) else { return false }
            if Reference.edgeNear(loop, cell, distance: loop.boundaryTolerance.radians + LoopGeometry.cellSlack) {
                return true
            }
            return Reference.parity(loop, cell.center)
        }
    }
}

/// The fast paths (trig-free cell predicates, cell construction without id decoding, filtered
/// crossing parity) agree with the straightforward reference.
struct FastPathTests {
    /// A random cell at any level, biased towards poles, face edges and the antimeridian.
    static func randomCell(_ rng: inout SplitMix64, levels: ClosedRange<Int> = 0...30) -> Cell {
        var p = rng.point()
        switch rng.next() % 5 {
        case 0: p = rng.pointNear(rng.next() % 2 == 0 ? .northPole : .southPole, within: 0.3)
        case 1: p = LatLng(degreesLatitude: rng.uniform(-89, 89), longitude: 180).toPoint()
        case 2: p = rng.pointNear(S2Point(x: 1, y: 1, z: 1).normalized, within: 0.01)  // cube corner
        default: break
        }
        let level = levels.lowerBound + Int(rng.next() % UInt64(levels.count))
        return Cell(unchecked: CellID(p).parent(level: level))
    }

    @Test func packedHilbertTables() {
        for orientation in 0..<4 {
            for position in 0..<4 {
                let ij = Int((Cell.packedPosToIJ >> UInt32(2 * (4 * orientation + position))) & 3)
                #expect(ij == HilbertCurve.posToIJ[orientation][position])
            }
        }
        for position in 0..<4 {
            #expect(Int((Cell.packedPosToOrientation >> UInt32(2 * position)) & 3) == HilbertCurve.posToOrientation[position])
        }
    }

    @Test("children built from the parent equal cells decoded from their ids (seed 81)")
    func childrenMatchDecodedCells() {
        var rng = SplitMix64(seed: 81)
        for _ in 0..<3_000 {
            let cell = Self.randomCell(&rng, levels: 0...29)
            let children = cell.children
            #expect(children.count == 4)
            for (k, child) in children.enumerated() {
                let decoded = Cell(unchecked: cell.id.child(position: k))
                #expect(child.id == decoded.id && child.face == decoded.face && child.level == decoded.level)
                #expect(child.uvBounds == decoded.uvBounds)
                #expect(child.iLo == decoded.iLo && child.jLo == decoded.jLo && child.orientation == decoded.orientation)
                #expect(child.center == child.id.toPoint())
            }
        }
        #expect(Cell(unchecked: CellID(pt(1, 2))).children.isEmpty)
    }

    @Test("neighbourhoods stepped in (i, j) match the sphere construction (seed 82)")
    func neighborhoods() {
        var rng = SplitMix64(seed: 82)
        for _ in 0..<500 {
            let id = Self.randomCell(&rng, levels: 2...30).id
            let (face, iLo, jLo, size) = id.ijBounds()
            var expected: [CellID] = []
            for di in -1...1 {
                for dj in -1...1 where di != 0 || dj != 0 {
                    let s = (Double(iLo + di * size) + Double(size) / 2) / FaceProjection.maxSizeDouble
                    let t = (Double(jLo + dj * size) + Double(size) / 2) / FaceProjection.maxSizeDouble
                    let point = FaceProjection.faceUVToXYZ(face, FaceProjection.stToUV(s), FaceProjection.stToUV(t)).normalized
                    let neighbor = CellID(point).parent(level: id.level)
                    if neighbor != id && !expected.contains(neighbor) { expected.append(neighbor) }
                }
            }
            #expect(id.neighborhood() == expected)
        }
    }

    @Test("distance and maxDistance agree with exact edge distances (seed 83)")
    func cellDistancesMatchReference() {
        var rng = SplitMix64(seed: 83)
        for _ in 0..<4_000 {
            let cell = Self.randomCell(&rng)
            let target: S2Point
            switch rng.next() % 4 {
            case 0: target = rng.point()
            case 1: target = -rng.pointNear(cell.center, within: 0.05)  // near the antipode
            case 2: target = rng.pointNear(cell.vertex(Int(rng.next() % 4)), within: 1e-6)
            default: target = rng.pointNear(cell.center, within: 0.1)
            }
            let d = cell.distance(to: target).radians, refD = Reference.distance(cell, target)
            let m = cell.maxDistance(to: target).radians, refM = Reference.maxDistance(cell, target)
            #expect(abs(d - refD) <= 1e-14, "distance \(d) vs \(refD) cell \(cell.id)")
            #expect(abs(m - refM) <= 1e-14, "maxDistance \(m) vs \(refM) cell \(cell.id)")
        }
    }

    @Test("chordDistance and maxChordDistance bracket the cell and match the angles (seed 84)")
    func chordDistances() {
        var rng = SplitMix64(seed: 84)
        for _ in 0..<2_000 {
            let cell = Self.randomCell(&rng)
            let target = rng.next() % 2 == 0 ? rng.point() : rng.pointNear(cell.center, within: 0.1)
            let lower = cell.chordDistance(to: target)
            let upper = cell.maxChordDistance(to: target)
            for _ in 0..<40 {
                let p = BoundsTests.sample(cell, &rng)
                let chord = ChordAngle(between: p, target)
                #expect(lower <= chord && chord <= upper)
            }
            if cell.contains(target) { #expect(lower == .zero) }
            if cell.contains(-target) { #expect(upper == .straight) }
            // The same distances as the angle versions, up to the slack and chord rounding.
            let angleLower = ChordAngle(cell.distance(to: target)).length2
            let angleUpper = ChordAngle(cell.maxDistance(to: target)).length2
            #expect(abs(lower.length2 - angleLower) <= 1e-12)
            #expect(abs(upper.length2 - angleUpper) <= 1e-12)
            // Ordering without trigonometry: the nearer of two cells by chord is nearer by angle.
            let other = Self.randomCell(&rng)
            let a = cell.chordDistance(to: target), b = other.chordDistance(to: target)
            if b.length2 > a.length2 + 1e-12 {
                #expect(other.distance(to: target) >= cell.distance(to: target))
            }
        }
        let face = Cell.face(0)
        #expect(face.chordDistance(to: S2Point(x: 1, y: 0, z: 0)) == .zero)
        #expect(face.maxChordDistance(to: S2Point(x: -1, y: 0, z: 0)) == .straight)
        // Non-unit input is scaled first.
        #expect(face.chordDistance(to: S2Point(x: 0, y: 0, z: -3)) == face.chordDistance(to: .southPole))
    }

    @Test("cap predicates agree with the angle-based reference (seed 85)")
    func capPredicates() {
        var rng = SplitMix64(seed: 85)
        var disagreements = 0
        for _ in 0..<20_000 {
            let cell = Self.randomCell(&rng, levels: 0...24)
            let radius = exp(rng.uniform(log(1e-8), log(3.1)))
            let center = rng.next() % 2 == 0 ? rng.pointNear(cell.center, within: 2 * radius + 0.01) : rng.point()
            let cap = Cap(center: center, radius: Angle(radians: radius))
            let reference = Reference.CapRegion(cap: cap)
            let fast = CapCellTest(cap)
            let (intersects, contains) = fast.relate(cell, needContains: true)
            #expect(intersects == cap.mayIntersect(cell) && contains == cap.contains(cell))
            #expect(intersects == fast.mayIntersect(cell) && contains == fast.contains(cell))
            if intersects != reference.mayIntersect(cell) || contains != reference.contains(cell) {
                // Allowed only within the slack of the decision.
                let near = abs(Reference.distance(cell, center) - radius) < 1e-12
                    || abs(Reference.maxDistance(cell, center) - radius) < 1e-12
                #expect(near, "cap r=\(radius) cell \(cell.id)")
                disagreements += 1
            }
        }
        #expect(disagreements <= 2, "\(disagreements) disagreements")
    }

    @Test("rectangle predicates are conservative and agree with bounding rectangles (seed 86)")
    func rectPredicates() {
        var rng = SplitMix64(seed: 86)
        var disagreements = 0, contained = 0, disjoint = 0
        for k in 0..<6_000 {
            let cell = Self.randomCell(&rng, levels: 0...24)
            let anchor = LatLng(rng.next() % 2 == 0 ? cell.vertex(Int(rng.next() % 4)) : rng.pointNear(cell.center, within: 0.2))
            let size = exp(rng.uniform(log(1e-9), log(2.0)))
            var lat1 = anchor.lat.radians + rng.uniform(-1, 0.2) * size
            var lat2 = anchor.lat.radians + rng.uniform(-0.2, 1) * size
            if k % 7 == 0 { lat2 = Double.pi / 2 }
            if k % 11 == 0 { lat1 = -Double.pi / 2 }
            let lng1 = anchor.lng.radians + rng.uniform(-1, 0.2) * size * 2
            let lng2 = k % 13 == 0 ? lng1 - 0.1 : anchor.lng.radians + rng.uniform(-0.2, 1) * size * 2
            let rect = LatLngRect(latLo: Angle(radians: min(lat1, lat2)), latHi: Angle(radians: max(lat1, lat2)),
                                  lngLo: Angle(radians: lng1), lngHi: Angle(radians: lng2))
            let reference = Reference.RectRegion(rect: rect)
            let test = RectCellTest(rect)
            let (intersects, contains) = test.relate(cell, needContains: true)
            #expect(intersects == rect.mayIntersect(cell) && contains == rect.contains(cell))
            if contains { contained += 1 }
            if !intersects { disjoint += 1 }
            // Conservative against sampled points of the cell.
            for _ in 0..<12 {
                let p = BoundsTests.sample(cell, &rng)
                if rect.contains(p) { #expect(intersects, "rect \(rect) cell \(cell.id)") }
                if contains { #expect(rect.contains(p), "rect \(rect) cell \(cell.id)") }
            }
            if intersects != reference.mayIntersect(cell) || contains != reference.contains(cell) {
                disagreements += 1
            }
        }
        #expect(contained > 500 && disjoint > 500, "contained \(contained) disjoint \(disjoint)")
        #expect(disagreements <= 5, "\(disagreements) disagreements")
    }

    /// A star-shaped ring with many vertices and jagged edges.
    static func jaggedRing(_ rng: inout SplitMix64, center: S2Point, radius: Double, vertices n: Int) -> [S2Point] {
        let u = center.orthogonal, w = center.cross(u)
        return (0..<n).map { k in
            let phi = 2 * Double.pi * (Double(k) + rng.uniform(0, 0.5)) / Double(n)
            let r = radius * (k % 2 == 0 ? rng.uniform(0.7, 1) : rng.uniform(0.4, 0.8))
            return (center * cos(r) + (u * cos(phi) + w * sin(phi)) * sin(r)).normalized
        }
    }

    @Test("filtered crossing parity and fused containment equal the exact versions (seed 87)")
    func pointInLoop() {
        var rng = SplitMix64(seed: 87)
        for k in 0..<60 {
            let center = CovererTests.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(1e-6), log(1.2)))
            let loop = Loop(vertices: Self.jaggedRing(&rng, center: center, radius: radius, vertices: 20 + Int(rng.next() % 280)))
            #expect(loop.geometry.localReference != nil)
            var points = CovererTests.pointsAround([loop], center: center, radius: radius, &rng)
            // Points on the planes the filters decide: through a reference point and a vertex.
            for reference in [loop.geometry.localReference, loop.geometry.references.first].compactMap({ $0 }) {
                for _ in 0..<100 {
                    let v = loop.vertex(Int(rng.next() % UInt64(loop.count)))
                    let t = rng.unit()
                    points.append((reference.point * t + v * (1 - t)).normalized)
                }
            }
            points.append(contentsOf: loop.vertices)
            for p in points {
                let exactParity = Reference.parity(loop, p)
                let onBoundary = Reference.onBoundary(loop, p)
                if !onBoundary {
                    #expect(loop.geometry.parityContains(p) == exactParity, "loop \(k) point \(p)")
                }
                #expect(loop.contains(p) == Reference.loopContains(loop, p), "loop \(k) point \(p)")
                #expect(loop.containsStrictly(p) == (loop.rectBound.contains(p) && exactParity && !onBoundary))
                #expect(loop.isOnBoundary(p) == (loop.rectBound.contains(p) && onBoundary))
            }
        }
    }

    /// Whether the fast covering equals the reference covering. When it does not, the fast one
    /// is still checked to never miss and to stay within maxCells (so a failure shows both).
    static func compare(_ fast: [CellID], _ reference: [CellID], region: some Region, coverer: RegionCoverer,
                        points: [S2Point], label: String) -> Bool {
        if fast == reference { return true }
        // A difference is allowed only if the fast covering still never misses and is small.
        CovererTests.checkCovering(region, fast, coverer: coverer, points: points, label: label)
        CovererTests.checkSize(region, fast, coverer: coverer, label: label)
        return false
    }

    @Test("2,000 caps: fast and reference predicates give the same coverings (seed 88)")
    func capCoverings() {
        var rng = SplitMix64(seed: 88)
        let coverers = [RegionCoverer(minLevel: 2, maxLevel: 16, levelMod: 1, maxCells: 8),
                        RegionCoverer(minLevel: 2, maxLevel: 22, levelMod: 1, maxCells: 16),
                        RegionCoverer(minLevel: 0, maxLevel: 30, levelMod: 2, maxCells: 12)]
        var different = 0
        for k in 0..<2_000 {
            let center = CovererTests.randomCenter(&rng, k)
            let radius = k % 10 == 9 ? rng.uniform(0.05, 3.1) : exp(rng.uniform(log(100.0), log(50_000.0))) / Earth.radiusMeters
            let cap = Cap(center: center, radius: Angle(radians: radius))
            let coverer = coverers[k % coverers.count]
            let fast = coverer.covering(of: cap)
            let reference = coverer.covering(of: Reference.CapRegion(cap: cap))
            let points = (0..<50).map { _ in rng.point(near: center, distance: radius * rng.uniform(0, 1.02)) }
            if !Self.compare(fast, reference, region: cap, coverer: coverer, points: points, label: "cap \(k)") {
                different += 1
            }
            if k % 20 == 0 {
                #expect(coverer.interiorCovering(of: cap) == coverer.interiorCovering(of: Reference.CapRegion(cap: cap)))
            }
        }
        #expect(different == 0, "\(different) coverings differ")
    }

    @Test("rectangles: fast and reference predicates give the same coverings (seed 89)")
    func rectCoverings() {
        var rng = SplitMix64(seed: 89)
        let coverer = RegionCoverer()
        var different = 0
        for k in 0..<500 {
            let size = exp(rng.uniform(log(1e-4), log(60.0)))
            var lat = rng.uniform(-90, 90 - size)
            let lng = k % 5 == 2 ? 180 - size / 2 : rng.uniform(-180, 180)
            if k % 5 == 0 { lat = 90 - size }
            if k % 5 == 1 { lat = -90 }
            let rect = LatLngRect(southWest: ll(lat, lng), northEast: ll(min(90, lat + size), lng + 1.5 * size).normalized)
            let fast = coverer.covering(of: rect)
            let reference = coverer.covering(of: Reference.RectRegion(rect: rect))
            let points = (0..<100).map { _ in
                ll(min(90, max(-90, lat + rng.uniform(-0.05, 1.05) * size)), lng + rng.uniform(-0.05, 1.05) * 1.5 * size).normalized.toPoint()
            }
            if !Self.compare(fast, reference, region: rect, coverer: coverer, points: points, label: "rect \(k)") {
                different += 1
            }
        }
        #expect(different == 0, "\(different) coverings differ")
    }

    @Test("2,000 polygons: fast and reference predicates give the same coverings (seed 90)")
    func polygonCoverings() {
        var rng = SplitMix64(seed: 90)
        let coverers = [RegionCoverer(), RegionCoverer(minLevel: 2, maxLevel: 22, levelMod: 1, maxCells: 16)]
        var different = 0
        for k in 0..<2_000 {
            let center = CovererTests.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(10_000.0), log(500_000.0))) / Earth.radiusMeters
            let loop = Loop(vertices: CovererTests.starRing(&rng, center: center, radius: radius, vertices: 5 + Int(rng.next() % 16)))
            let coverer = coverers[k % coverers.count]
            let polygon = Polygon(shell: loop)
            let fast = coverer.covering(of: polygon)
            let reference = coverer.covering(of: Reference.LoopRegion(loop: loop))
            #expect(coverer.covering(of: loop) == fast)
            var points: [S2Point] = loop.vertices
            for _ in 0..<40 {
                let i = Int(rng.next() % UInt64(loop.count))
                points.append(rng.pointNear(interpolate(loop.vertex(i), loop.vertex(i + 1), rng.unit()), within: radius * 0.02))
            }
            if !Self.compare(fast, reference, region: polygon, coverer: coverer, points: points, label: "polygon \(k)") {
                different += 1
            }
        }
        #expect(different == 0, "\(different) coverings differ")
    }

    @Test func extremeParameters() {
        let cap = Cap(center: pt(10, 20), radius: Angle(degrees: 0.1))
        let unlimited = RegionCoverer(minLevel: 2, maxLevel: 12, maxCells: Int.max).covering(of: cap)
        #expect(!unlimited.isEmpty && unlimited == RegionCoverer(minLevel: 2, maxLevel: 12, maxCells: 1_000_000).covering(of: cap))
        #expect(RegionCoverer(minLevel: -5, maxLevel: 99, levelMod: 9, maxCells: -3).covering(of: cap).count >= 1)
    }

    @Test("polygons with holes and multipolygons: relate equals the separate predicates (seed 91)")
    func polygonRelate() {
        var rng = SplitMix64(seed: 91)
        for k in 0..<40 {
            let center = CovererTests.randomCenter(&rng, k)
            let radius = exp(rng.uniform(log(1e-4), log(0.5)))
            let shell = Loop(vertices: Self.jaggedRing(&rng, center: center, radius: radius, vertices: 40))
            let hole = Loop(vertices: CovererTests.starRing(&rng, center: center, radius: radius * 0.2, vertices: 7))
            let polygon = Polygon(shell: shell, holes: [hole])
            let other = Polygon(shell: Loop(vertices: CovererTests.starRing(&rng, center: rng.point(), radius: 0.01, vertices: 6)))
            let multi = MultiPolygon(polygons: [polygon, other])
            for _ in 0..<150 {
                let cell = Cell(unchecked: CellID(rng.pointNear(center, within: radius * 1.3)).parent(level: 2 + Int(rng.next() % 18)))
                for needContains in [false, true] {
                    let r = polygon.relate(cell, needContains: needContains)
                    let intersects = polygon.mayIntersect(cell)
                    #expect(r.intersects == intersects)
                    #expect(r.contains == (needContains && intersects && polygon.contains(cell)))
                    let m = MultiPolygonPredicates(multi).relate(cell, needContains: needContains)
                    #expect(m.intersects == multi.mayIntersect(cell))
                    #expect(m.contains == (needContains && multi.contains(cell)))
                    let l = shell.relate(cell, needContains: needContains)
                    #expect(l.intersects == shell.mayIntersect(cell))
                    #expect(l.contains == (needContains && l.intersects && shell.contains(cell)))
                    let (holeIntersects, holeInside) = hole.geometry.relateHole(cell)
                    #expect(holeIntersects == hole.mayIntersect(cell) && holeInside == hole.containsStrictly(cell))
                }
            }
        }
    }
}
