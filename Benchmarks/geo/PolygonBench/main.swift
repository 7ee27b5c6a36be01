// Polygon validation benchmark: how long `$geoWithin` geometry parsing (JSON → validated GeoKit
// polygon, what the query route does before any index work) takes for real and hostile shapes.
//   fod-polygon-bench [--countries Data/countries-110m.geojson] [--rounds 3] [--only <part of a name>]
// Shapes: the country outlines shipped in Data/ (each parsed on its own, and all of them); a
// star-shaped "coastline" of 99,000 vertices; the 200,000-vertex zig-zag of issue 11 (refused by
// the vertex cap); zig-zags of 20,000–99,000 vertices with teeth along the meridians and turned
// 45° against every axis; a shell with 20,000 small holes; a "sea urchin" whose edges all overlap
// (refused as too complex after the work budget). Prints the outcome and the median time.
import Foundation
import GeoKit
import GeoQuery
import JSONCore

var countriesPath = "Data/countries-110m.geojson"
var rounds = 3
var only: String?
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--countries" where !arguments.isEmpty: countriesPath = arguments.removeFirst()
    case "--rounds" where !arguments.isEmpty: rounds = max(1, Int(arguments.removeFirst()) ?? rounds)
    case "--only" where !arguments.isEmpty: only = arguments.removeFirst()
    default:
        print("usage: fod-polygon-bench [--countries FILE] [--rounds N] [--only TEXT]")
        exit(2)
    }
}

/// `[[lng, lat], …]` positions as JSON.
func positions(_ ring: [(Double, Double)]) -> JSONValue {
    .array(ring.map { .array([.number(JSONNumber($0.0)), .number(JSONNumber($0.1))]) })
}

func polygon(_ rings: [[(Double, Double)]]) -> JSONValue {
    ["type": "Polygon", "coordinates": .array(rings.map { positions($0 + [$0[0]]) })]
}

/// Teeth between latitude 0 and 1° along 10° of longitude, closed below at −1°: a valid ring.
func zigzag(_ n: Int) -> [(Double, Double)] {
    let teeth = n - 2
    var ring: [(Double, Double)] = []
    for i in 0..<teeth {
        let lng: Double = 10 * Double(i) / Double(teeth - 1)
        ring.append((lng, i % 2 == 0 ? 0 : 1))
    }
    ring += [(10, -1), (0, -1)]
    return ring
}

/// The same zig-zag laid out around (45°, 35.26°) and turned so that its edges run diagonally to
/// the x, y and z axes at once (every axis-aligned box overlaps hundreds of neighbours).
func diagonalZigzag(_ n: Int) -> [(Double, Double)] {
    let center = S2Point(x: 1, y: 1, z: 1).normalized
    let along = S2Point(x: 1, y: -1, z: 0).normalized, across = center.cross(along).normalized
    let width = 10.0 * .pi / 180, depth = 1.0 * .pi / 180
    func at(_ u: Double, _ v: Double) -> (Double, Double) {
        let p = (center + along * u + across * v).normalized
        let ll = LatLng(p)
        return (ll.lng.degrees, ll.lat.degrees)
    }
    let teeth = n - 2
    var ring: [(Double, Double)] = []
    for i in 0..<teeth {
        let u: Double = width * (Double(i) / Double(teeth - 1) - 0.5)
        ring.append(at(u, i % 2 == 0 ? 0 : depth))
    }
    ring += [at(width / 2, -depth), at(-width / 2, -depth)]
    return ring
}

/// A star-shaped outline with a rough, deterministic radius (simple by construction).
func coastline(_ n: Int) -> [(Double, Double)] {
    (0..<n).map { i -> (Double, Double) in
        let t: Double = 2 * Double.pi * Double(i) / Double(n)
        let wobble: Double = 0.2 * sin(37 * t) + 0.1 * sin(911 * t) + 0.05 * sin(Double(i % 7))
        let r: Double = 5 * (1 + wobble)
        return (10 + r * cos(t), 45 + 0.7 * r * sin(t))
    }
}

/// Spikes in every direction from a core of 1e-4°: every edge's box overlaps every other's,
/// whatever the sweep direction (refused as too complex).
func urchin(_ n: Int) -> [(Double, Double)] {
    (0..<n).map { k -> (Double, Double) in
        let angle: Double = 2 * Double.pi * Double(k) / Double(n)
        let radius: Double = k % 2 == 0 ? 10 : 1e-4
        return (30 + radius * cos(angle), 20 + radius * sin(angle))
    }
}

/// A 40° square with `holes` triangles inside it, in a grid.
func swissCheese(_ holes: Int) -> [[(Double, Double)]] {
    let side = Int(Double(holes).squareRoot().rounded(.up))
    var rings = [[(-20.0, -20.0), (20, -20), (20, 20), (-20, 20)]]
    for k in 0..<holes {
        let x = -19 + 38 * Double(k % side) / Double(side), y = -19 + 38 * Double(k / side) / Double(side)
        let s = 30.0 / Double(side)
        rings.append([(x, y), (x + s, y), (x, y + s)])
    }
    return rings
}

struct Case {
    let name: String
    let geometries: [JSONValue]
}

@MainActor func countries() -> Case? {
    guard let data = FileManager.default.contents(atPath: countriesPath),
          let root = try? JSONParser.parse(Array(data)), let features = root["features"]?.arrayValue else {
        print("(no country outlines at \(countriesPath); skipped)")
        return nil
    }
    return Case(name: "177 country outlines (110m), each", geometries: features.compactMap { $0["geometry"] })
}

@MainActor func measure(_ c: Case) {
    var times: [Double] = []
    var outcome = ""
    for _ in 0..<rounds {
        var accepted = 0, refused: [String: Int] = [:]
        let start = DispatchTime.now().uptimeNanoseconds
        for geometry in c.geometries {
            do {
                _ = try GeoFilter.parse(["$geoWithin": ["$geometry": geometry]])
                accepted += 1
            } catch {
                refused[error.code.rawValue, default: 0] += 1
            }
        }
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        outcome = refused.isEmpty ? "accepted \(accepted)"
            : "accepted \(accepted), refused " + refused.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
    let median = times.sorted()[times.count / 2]
    let name = c.name.padding(toLength: 40, withPad: " ", startingAt: 0)
    print("\(name) \(String(format: "%10.1f", median)) ms   \(outcome)")
}

print("polygon validation: GeoFilter.parse of {$geoWithin: {$geometry: …}}, median of \(rounds)")
var cases: [Case] = []
if let c = countries() { cases.append(c) }
cases += [
    Case(name: "coastline, 99,000 vertices", geometries: [polygon([coastline(99_000)])]),
    Case(name: "zig-zag, 200,000 vertices (issue 11)", geometries: [polygon([zigzag(200_000)])]),
    Case(name: "zig-zag, 99,000 vertices", geometries: [polygon([zigzag(99_000)])]),
    Case(name: "diagonal zig-zag, 20,000 vertices", geometries: [polygon([diagonalZigzag(20_000)])]),
    Case(name: "diagonal zig-zag, 99,000 vertices", geometries: [polygon([diagonalZigzag(99_000)])]),
    Case(name: "square with 20,000 triangular holes", geometries: [polygon(swissCheese(20_000))]),
    Case(name: "sea urchin, 99,000 vertices", geometries: [polygon([urchin(99_000)])]),
]
for c in cases where only.map({ c.name.contains($0) }) ?? true { measure(c) }

// The whole cost of refusing the issue's zig-zag as a request body: JSON parsing included.
if only.map({ "zig-zag, 200,000 vertices (issue 11)".contains($0) }) ?? true {
    let body: JSONValue = ["filter": ["location": ["$geoWithin": ["$geometry": polygon([zigzag(200_000)])]]]]
    let bytes = body.serialized()
    var times: [Double] = []
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        let parsed = try? JSONParser.parse(bytes)
        let refused = (try? GeoFilter.parse(parsed?["filter"]?["location"] ?? .null)) == nil
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        if !refused { print("the 200,000-vertex zig-zag was accepted") }
    }
    let name = "  same, a \(bytes.count / 1024) KiB body, JSON incl.".padding(toLength: 40, withPad: " ", startingAt: 0)
    print("\(name) \(String(format: "%10.1f", times.sorted()[times.count / 2])) ms")
}
