import Testing
@testable import GeoKit

/// Seeded random round trips over 100,000 points.
struct CellIDRandomTests {
    static let seed: UInt64 = 0x2D5_7E1E_0001
    static let count = 100_000

    @Test("100k random points: leaf, token, key, parents, children, lat/lng round trips (seed 0x2D57E1E0001)")
    func randomPoints() throws {
        var rng = SplitMix64(seed: Self.seed)
        var failures = 0
        for iteration in 0..<Self.count {
            // Mix uniform points with points on face edges, near poles and on the antimeridian.
            var point = rng.point()
            switch iteration % 10 {
            case 7: point = LatLng(degreesLatitude: rng.uniform(-90, 90), longitude: 180).toPoint()
            case 8: point = S2Point(x: 1, y: rng.uniform(-1, 1), z: 1).normalized
            case 9: point = rng.pointNear(.northPole, within: 1e-3)
            default: break
            }
            let id = CellID(point)
            let cell = try #require(Cell(id))
            var ok = id.isValid && id.isLeaf && id.level == 30 && id.face == FaceProjection.face(of: point)
            ok = ok && cell.contains(point)
            ok = ok && CellID(token: id.token) == id
            ok = ok && CellID(int64Key: id.int64Key) == id
            ok = ok && CellID(id.toPoint()) == id
            let (face, i, j) = id.faceIJ
            ok = ok && CellID(face: face, i: i, j: j) == id && face == id.face

            // Every ancestor contains the leaf, geometrically and by range.
            var ancestor = id
            for level in stride(from: 29, through: 0, by: -1) {
                ancestor = ancestor.parent()
                ok = ok && ancestor == id.parent(level: level) && ancestor.level == level
                ok = ok && ancestor.rangeMin <= id && id <= ancestor.rangeMax && ancestor.contains(id)
                ok = ok && ancestor.face == id.face && ancestor.isValid
            }

            // Children of a random ancestor partition its range, in order.
            let parent = id.parent(level: Int(rng.next() % 30))
            let children = parent.children
            ok = ok && children.count == 4 && children[0].rangeMin == parent.rangeMin
            ok = ok && children[3].rangeMax == parent.rangeMax
            for k in 1..<4 {
                ok = ok && children[k].rangeMin.id == children[k - 1].rangeMax.id + 2
                ok = ok && children[k] == parent.child(position: k)
            }
            ok = ok && children.filter { $0.contains(id) }.count == 1

            // lat/lng → point → lat/lng.
            let latLng = LatLng(point)
            let back = LatLng(latLng.toPoint())
            ok = ok && abs(back.lat.radians - latLng.lat.radians) <= Tolerance.latLngRoundTrip
            var dLng = abs(back.lng.radians - latLng.lng.radians)
            dLng = min(dLng, 2 * Double.pi - dLng)
            ok = ok && (dLng <= Tolerance.latLngRoundTrip || abs(latLng.lat.radians) > Double.pi / 2 - 1e-9)

            if !ok {
                failures += 1
                if failures <= 5 {
                    Issue.record("seed \(Self.seed) iteration \(iteration): point \(point) id \(id.token)")
                }
            }
        }
        #expect(failures == 0, "seed \(Self.seed)")
    }

    @Test("cell vertices are counter-clockwise and the centre is inside, all levels and faces")
    func cellGeometry() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let leaf = CellID(rng.point())
            let cell = try #require(Cell(leaf.parent(level: Int(rng.next() % 31))))
            for k in 0..<4 {
                #expect(Predicates.orientation(cell.vertex(k), cell.vertex(k + 1), cell.vertex(k + 2)) == .counterClockwise)
                #expect(cell.contains(cell.vertex(k)))
            }
            #expect(cell.contains(cell.center))
            #expect(cell.distance(to: cell.center) == .zero)
            #expect(cell.capBound.contains(cell.center))
        }
    }
}
