// fuzz-modules: GeoKit
// fuzz-support: FuzzCheck RegionContract
// fuzz-max-len: 2048
//
// GeoKit's loop and polygon validation and containment, on rings decoded from raw bytes: the
// first byte picks a grid step (from 45° down to 1e-9°), then every 2 bytes are a vertex on that
// grid, so repeated vertices, collinear edges, touching and crossing rings are common. A 0xFF
// 0xFF pair starts the next ring (a hole). Invariants:
// - validation agrees with a brute-force check of every pair of non-adjacent edges (the sweep
//   never misses a crossing, and never reports one that is not there);
// - a valid loop contains its vertices and edge midpoints; every point is in the loop or in its
//   reversal (the closed complement), and a point away from the boundary is in exactly one;
// - a valid polygon contains the vertices of its shell and holes;
// - the Region contract holds on cells around probe points.
@testable import GeoKit

let steps: [Double] = [45, 7.5, 1, 0.1, 1e-3, 1e-5, 1e-7, 1e-9]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoLoop(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let step = steps[Int(selector) % steps.count]
    let origin = LatLng(degreesLatitude: Double(Int(selector >> 3) % 8) * 11.25 - 45,
                        longitude: Double(Int(selector >> 3) % 32) * 11.25 - 180)
    var rings: [[LatLng]] = [[]]
    var i = 0
    while i + 2 <= input.count {
        if input[i] == 0xFF && input[i + 1] == 0xFF {
            rings.append([])
        } else {
            let lat = min(90, max(-90, origin.lat.degrees + Double(Int(input[i + 1]) - 128) * step / 2))
            var lng = origin.lng.degrees + Double(Int(input[i]) - 128) * step
            if lng > 180 { lng -= 360 } else if lng < -180 { lng += 360 }
            rings[rings.count - 1].append(LatLng(degreesLatitude: lat, longitude: lng))
        }
        i += 2
    }
    rings = rings.filter { !$0.isEmpty }.map { $0 + [$0[0]] }
    guard let shellRing = rings.first else { return 0 }

    do {
        let loop = try Loop(geoJSONRing: shellRing)
        checkLoop(loop)
    } catch {
        require(!error.message.isEmpty, "GeoError without a message")
        if error.code == .invalidLoop, error.message.hasSuffix("cross") {
            // Rebuild the vertices exactly as the ring initialiser does and confirm the pair.
            let loop = Loop(vertices: dedupedVertices(shellRing))
            if loop.count <= 300 {
                require(bruteForceCrossing(loop.vertices) != nil, "validation reports a crossing brute force does not find: \(error)")
            }
        }
    }

    guard rings.count > 1 else { return 0 }
    do {
        let polygon = try Polygon(geoJSONRings: rings)
        for loop in [polygon.shell] + polygon.holes {
            for v in loop.vertices { require(polygon.contains(v), "polygon misses the vertex \(LatLng(v))") }
        }
        let vertices = polygon.shell.vertices + polygon.holes.flatMap(\.vertices)
        checkRegion(polygon, probes: Array(vertices.enumerated().filter { $0.offset % max(1, vertices.count / 40) == 0 }.map(\.element)))
    } catch {
        require(!error.message.isEmpty, "GeoError without a message")
    }
    return 0
}

/// The vertices `Loop(geoJSONRing:)` keeps: the closing vertex and adjacent duplicates dropped.
func dedupedVertices(_ ring: [LatLng]) -> [S2Point] {
    var points: [S2Point] = []
    for coordinate in ring.dropLast() {
        let p = coordinate.toPoint()
        if points.last != p { points.append(p) }
    }
    while points.count > 1 && points.first == points.last { points.removeLast() }
    return points
}

/// The first pair of non-adjacent edges that share a point, checking every pair.
func bruteForceCrossing(_ v: [S2Point]) -> (Int, Int)? {
    let n = v.count
    guard n > 3 else { return nil }
    for i in 0..<n {
        for j in (i + 1)..<n where (i + 1) % n != j && (j + 1) % n != i {
            if Loop.edgesIntersect(v[i], v[(i + 1) % n], v[j], v[(j + 1) % n]) { return (i, j) }
        }
    }
    return nil
}

func checkLoop(_ loop: Loop) {
    let v = loop.vertices
    if v.count <= 300, let (i, j) = bruteForceCrossing(v) {
        require(false, "a loop with crossing edges \(i) and \(j) passed validation: \(loop)")
    }
    // Every vertex and edge midpoint is checked; the costlier probes (complement, clearance,
    // cells) use at most ~40 edges, so large rings stay fast to fuzz.
    let stride = max(1, v.count / 40)
    var probes: [S2Point] = []
    for i in v.indices {
        let mid = (v[i] + v[(i + 1) % v.count]).normalized
        require(loop.contains(mid), "loop misses the midpoint of edge \(i): \(loop)")
        guard i % stride == 0 else { continue }
        probes.append(v[i])
        probes.append(mid)
        // Points just off the edge on both sides.
        let normal = S2Point.robustCross(v[i], v[(i + 1) % v.count]).normalized
        probes.append((mid + normal * 1e-6).normalized)
        probes.append((mid - normal * 1e-6).normalized)
    }
    for p in v { require(loop.contains(p), "loop misses its vertex \(LatLng(p))") }
    let reversed = loop.reversed()
    for p in probes + [.northPole, .southPole] {
        let inside = loop.contains(p), outside = reversed.contains(p)
        require(inside || outside, "\(LatLng(p)) is in neither the loop nor its complement: \(loop)")
        let clearance = v.indices.map { EdgeMath.distance(p, toEdge: v[$0], v[($0 + 1) % v.count]) }.min() ?? 0
        if clearance > 1e-8 {
            require(inside != outside, "\(LatLng(p)), \(clearance) rad from the boundary, is in both or neither: \(loop)")
        }
    }
    checkRegion(loop, probes: probes)
}

/// Cells around the probes keep the Region contract.
func checkRegion(_ region: some Region, probes: [S2Point]) {
    for p in probes { checkRegionContract(region, at: p, levels: [4, 12, 20, 30], context: "\(region)") }
}
