#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import GeoKit

/// Regions that touch a cell at a single boundary point: the conservative predicates must
/// still report the contact, and coverings must include the touching point's leaf cell.
struct TouchingTests {
    /// A random cell and a point on its boundary (edge `k` at fraction `t`), with the unit
    /// outward normal of that edge.
    static func touchPoint(_ rng: inout SplitMix64) -> (cell: Cell, point: S2Point, outward: S2Point)? {
        var p = rng.point()
        if rng.next() % 3 == 0 { p = rng.pointNear(rng.next() % 2 == 0 ? .northPole : .southPole, within: 0.01) }
        guard let cell = Cell(CellID(p).parent(level: 2 + Int(rng.next() % 27))) else { return nil }
        let k = Int(rng.next() % 4)
        let a = cell.vertex(k), b = cell.vertex(k + 1)
        let t = rng.next() % 4 == 0 ? 0 : rng.unit()
        let q = interpolate(a, b, t)
        return (cell, q, -(a.cross(b).normalized))
    }

    @Test("caps touching a cell from outside (seed 71)")
    func touchingCaps() throws {
        var rng = SplitMix64(seed: 71)
        let coverer = RegionCoverer(minLevel: 2, maxLevel: 30, maxCells: 16)
        var checked = 0
        for _ in 0..<600 {
            let (cell, q, outward) = try #require(Self.touchPoint(&rng))
            let radius = exp(rng.uniform(log(1e-9), log(0.5)))
            let center = (q * cos(radius) + outward * sin(radius)).normalized
            let cap = Cap(center: center, radius: Angle(radians: center.angle(to: q).radians + 1e-15))
            guard cap.contains(q) else { continue }
            checked += 1
            #expect(cap.mayIntersect(cell), "cell \(cell.id) r \(radius)")
            #expect(!cap.contains(cell))
            let leaf = CellID(q)
            #expect(coverer.covering(of: cap).contains { $0.contains(leaf) }, "cell \(cell.id) r \(radius)")
        }
        #expect(checked == 600)
    }

    @Test("loops with a vertex on a cell's boundary (seed 72)")
    func touchingLoops() throws {
        var rng = SplitMix64(seed: 72)
        let coverer = RegionCoverer(minLevel: 2, maxLevel: 30, maxCells: 16)
        for _ in 0..<300 {
            let (cell, q, outward) = try #require(Self.touchPoint(&rng))
            let size = exp(rng.uniform(log(1e-8), log(0.3)))
            let side = q.cross(outward).normalized
            // A thin triangle outside the cell with its apex at q.
            let far = (q * cos(size) + outward * sin(size)).normalized
            let b = (far + side * (size * 0.3)).normalized, c = (far - side * (size * 0.3)).normalized
            var loop = Loop(vertices: [q, b, c])
            if loop.isLargerThanHemisphere { loop = loop.reversed() }
            #expect(loop.contains(q))
            #expect(loop.mayIntersect(cell), "cell \(cell.id) size \(size)")
            let polygon = Polygon(shell: loop)
            let leaf = CellID(q)
            #expect(coverer.covering(of: polygon).contains { $0.contains(leaf) })
            // A point just outside the apex but within the tolerance band is covered too.
            let nearby = (q - outward * 0.5e-9).normalized
            if loop.contains(nearby) {
                #expect(coverer.covering(of: loop).contains { $0.contains(CellID(nearby)) })
            }
        }
    }

    @Test("rectangles with a corner on a cell vertex (seed 73)")
    func touchingRects() throws {
        var rng = SplitMix64(seed: 73)
        let coverer = RegionCoverer(minLevel: 2, maxLevel: 30, maxCells: 16)
        for _ in 0..<400 {
            let (cell, _, _) = try #require(Self.touchPoint(&rng))
            let corner = LatLng(cell.vertex(Int(rng.next() % 4)))
            let size = exp(rng.uniform(log(1e-9), log(0.2)))
            let west = rng.next() % 2 == 0
            let south = rng.next() % 2 == 0
            let lat1 = corner.lat.radians, lat2 = min(Double.pi / 2, max(-Double.pi / 2, lat1 + (south ? -size : size)))
            let lng1 = corner.lng.radians, lng2 = lng1 + (west ? -size : size)
            let rect = LatLngRect(latLo: Angle(radians: min(lat1, lat2)), latHi: Angle(radians: max(lat1, lat2)),
                                  lngLo: Angle(radians: west ? lng2 : lng1), lngHi: Angle(radians: west ? lng1 : lng2))
            guard rect.contains(corner) else { continue }
            #expect(rect.mayIntersect(cell), "cell \(cell.id)")
            let leaf = CellID(corner.toPoint())
            #expect(coverer.covering(of: rect).contains { $0.contains(leaf) })
        }
    }
}
