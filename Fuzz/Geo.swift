// fuzz-modules: GeoQuery GeoKit JSONCore
// fuzz-support: FuzzCheck RegionContract
// fuzz-max-len: 16384
//
// MongoDB geo operators and GeoJSON geometry (GeoFilter.parse, GeoJSONGeometry.parse), with
// GeoKit's loop and polygon validation behind them. A JSON object with a "type" member is parsed
// as a geometry, anything else as the value of `filter.location`. Invariants:
// - a refusal is a 400 or 422 with a code and a message;
// - every vertex of an accepted geometry, and the midpoint of every polygon or line edge, is
//   matched by it (boundaries are inclusive);
// - the index can never miss a match: for the probes (those points, fixed points and points
//   taken from the input), a matched point lies in the region's cap and rectangle bounds and in
//   its cell covering, and the region keeps the Region contract on the cells around it.
import GeoKit
import GeoQuery
import JSONCore

let coverer = RegionCoverer(minLevel: 2, maxLevel: 16, maxCells: 8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let value = try? JSONParser.parse(input) else { return 0 }
    do {
        if value["type"] != nil {
            let geometry = try GeoJSONGeometry.parse(value)
            let boundary = boundaryPoints(geometry)
            for p in boundary { require(geometry.contains(p), "\(geometry.typeName) misses its own boundary point \(LatLng(p))") }
            check(matches: geometry.contains, region: geometry.region, probes: boundary + probes(input), input: input)
        } else {
            let filter = try GeoFilter.parse(value)
            var boundary: [S2Point] = []
            if case .geometry(let geometry)? = filter.shape {
                boundary = boundaryPoints(geometry)
                for p in boundary { require(filter.matches(p), "filter misses its geometry's boundary point \(LatLng(p))") }
            }
            check(matches: filter.matches, region: filter.region, probes: boundary + probes(input), input: input)
        }
    } catch {
        require(error.status == 400 || error.status == 422, "status \(error.status) for \(error)")
        require(!error.message.isEmpty, "\(error.code) without a message")
    }
    return 0
}

/// Vertices, and midpoints of the edges of lines and polygon rings (holes included).
func boundaryPoints(_ geometry: GeoJSONGeometry) -> [S2Point] {
    func ring(_ vertices: [S2Point], closed: Bool) -> [S2Point] {
        var points = vertices
        let edges = closed ? vertices.count : vertices.count - 1
        for i in 0..<max(0, edges) {
            let mid = vertices[i] + vertices[(i + 1) % vertices.count]
            if mid.norm2 > 1e-12 { points.append(mid.normalized) }
        }
        return points
    }
    func polygon(_ p: Polygon) -> [S2Point] {
        ([p.shell] + p.holes).flatMap { ring($0.vertices, closed: true) }
    }
    switch geometry {
    case .point(let p): return [p]
    case .multiPoint(let points): return points
    case .lineString(let line): return ring(line.vertices, closed: false)
    case .multiLineString(let lines): return lines.flatMap { ring($0.vertices, closed: false) }
    case .polygon(let p): return polygon(p)
    case .multiPolygon(let m): return m.polygons.flatMap(polygon)
    case .geometryCollection(let members): return members.flatMap(boundaryPoints)
    }
}

/// Fixed points (poles, the antimeridian, a cell corner) and points read from the input bytes.
func probes(_ input: [UInt8]) -> [S2Point] {
    var points = [S2Point.northPole, .southPole, LatLng(degreesLatitude: 0, longitude: 180).toPoint(),
                  LatLng(degreesLatitude: 0, longitude: 0).toPoint(), LatLng(degreesLatitude: 35.26438968, longitude: 45).toPoint()]
    var i = 0
    while i + 4 <= input.count && points.count < 24 {
        let lng = Double(Int(input[i]) << 8 | Int(input[i + 1])) / 65_535 * 360 - 180
        let lat = Double(Int(input[i + 2]) << 8 | Int(input[i + 3])) / 65_535 * 180 - 90
        points.append(LatLng(degreesLatitude: lat, longitude: lng).toPoint())
        i += max(4, input.count / 19)
    }
    return points
}

/// The index contract: what matches is inside the bounds and the covering.
func check(matches: (S2Point) -> Bool, region: any Region, probes: [S2Point], input: [UInt8]) {
    let covering = coverer.covering(of: region)
    for p in probes {
        let leaf = CellID(p)
        if matches(p) {
            let context = "\(LatLng(p)) for \(shown(input))"
            require(region.capBound.contains(p) && region.rectBound.contains(p), "matched point outside the bounds: \(context)")
            require(covering.contains { $0.contains(leaf) }, "matched point outside the covering: \(context)")
        }
        checkRegionContract(region, at: p, levels: [3, 9, 15, 24], context: shown(input))
    }
}
