// Geo query benchmark (issue: in-house 2dsphere index). In one run, over the same SQLite file:
//   our cell index (GeoQueryService.queryHistory) | SQLite R*Tree + the same exact filter | full scan
// for: radius queries (~100 hits), country polygons, and $near k = 10.
// 1,000,000 fixes placed like people: a uniformly chosen GeoNames place + a few km of jitter,
// owned by 1,000 devices of one group (all readable: the permission filter is the same for all).
// Usage: fod-geo-bench <geonames.csv> <countries.geojson> [--fixes N] [--queries Q] [--radius-m M] [--keep DIR]
import Foundation
import GeoKit
import GeoQuery
import JSONCore
import Storage
import SQLiteStore
import Tracking

@MainActor func runBenchmark() throws {
struct Options {
    var fixes = 1_000_000, queries = 300, radius = 2_500.0, scans = 5
    var places = "", countries = "", keep: String?
    var compareLayouts = false
}
var options = Options()
var argv = Array(CommandLine.arguments.dropFirst())
while !argv.isEmpty {
    let a = argv.removeFirst()
    switch a {
    case "--fixes": options.fixes = Int(argv.removeFirst()) ?? options.fixes
    case "--queries": options.queries = Int(argv.removeFirst()) ?? options.queries
    case "--radius-m": options.radius = Double(argv.removeFirst()) ?? options.radius
    case "--scans": options.scans = Int(argv.removeFirst()) ?? options.scans
    case "--keep": options.keep = argv.removeFirst()
    case "--compare-layouts": options.compareLayouts = true
    default: if options.places.isEmpty { options.places = a } else { options.countries = a }
    }
}

struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
var random = Seeded(state: 42)
func gaussian() -> Double {
    let u = Double.random(in: Double.ulpOfOne..<1, using: &random), v = Double.random(in: 0..<1, using: &random)
    return sqrt(-2 * log(u)) * cos(2 * .pi * v)
}

// 1. Places.
let placeLines = String(decoding: FileManager.default.contents(atPath: options.places) ?? Data(), as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst()
let places: [(Double, Double)] = placeLines.compactMap { line -> (Double, Double)? in
    let f = line.split(separator: ",", omittingEmptySubsequences: false)
    guard f.count >= 2, let lat = Double(f[0]), let lon = Double(f[1]) else { return nil }
    return (lon, lat)
}
guard !places.isEmpty else { print("no places read from \(options.places)"); return }

// 2. Database in the server's schema.
let directory = options.keep ?? (NSTemporaryDirectory() + "fod-geo-bench-\(UUID().uuidString)")
let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal)
let db = try Database(path: backend.path)
let deviceCount = 1_000
var fixes: [(cell: Int64, device: Int64, ts: Int64, seq: Int64, lon: Double, lat: Double)] = []
let existing = try db.firstRow("SELECT count(*) FROM cell_index") { $0.int(0) } ?? 0
if existing == 0 {
    let t0 = Date()
    try db.transaction {
        try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES ('u0', 'owner@bench', 'Owner', '!', 0)")
        try db.run("INSERT INTO groups (id, name, owner_id, created_at) VALUES ('g', 'Bench', 'u0', 0)")
        for d in 1...deviceCount {
            try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES (?, ?, 'm', '!', 0)", [.text("u\(d)"), .text("m\(d)@bench")])
            try db.run("INSERT INTO devices (key, id, owner_id, name, token_hash, created_at) VALUES (?, ?, ?, 'd', ?, 0)",
                       [.int(d), .text("d\(d)"), .text("u\(d)"), .text("h\(d)")])
            try db.run("INSERT INTO memberships (group_id, user_id, device_id, share_location, joined_at) VALUES ('g', ?, ?, 1, 0)", [.text("u\(d)"), .text("d\(d)")])
            // Shared since joining: history is visible only inside sharing periods (API.md).
            try db.run("INSERT INTO sharing_periods (group_id, user_id, device_id, start_ts, end_ts) VALUES ('g', ?, ?, 0, NULL)", [.text("u\(d)"), .text("d\(d)")])
        }
    }
    fixes.reserveCapacity(options.fixes)
    for i in 0..<options.fixes {
        let (lon0, lat0) = places[Int.random(in: 0..<places.count, using: &random)]
        // A few km of jitter (σ = 2 km).
        let dLat = gaussian() * 2_000 / 111_319.0
        let dLon = gaussian() * 2_000 / (111_319.0 * max(0.05, cos(lat0 * .pi / 180)))
        var lon = lon0 + dLon
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        let lat = max(-90, min(90, lat0 + dLat))
        fixes.append((CellID(LatLng(degreesLatitude: lat, longitude: lon)).int64Key, Int64(i % deviceCount + 1), 1_700_000_000_000 + Int64(i), Int64(i + 1), lon, lat))
    }
    fixes.sort { $0.cell < $1.cell }
    try db.execute("CREATE VIRTUAL TABLE fixes_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat, +device_key, +ts)")
    // Straight into the merged layout (history + cell index), as after the server's merge.
    let insert = try db.prepare("INSERT INTO cell_index (cell, device_key, ts, seq, lon, lat) VALUES (?, ?, ?, ?, ?, ?)")
    let history = try db.prepare("INSERT INTO locations (device_key, ts, seq, cell, lon, lat) VALUES (?, ?, ?, ?, ?, ?)")
    let rtree = try db.prepare("INSERT INTO fixes_rtree VALUES (?, ?, ?, ?, ?, ?, ?)")
    for chunk in stride(from: 0, to: fixes.count, by: 100_000) {
        try db.transaction {
            for f in fixes[chunk..<min(chunk + 100_000, fixes.count)] {
                try insert.bind([.integer(f.cell), .integer(f.device), .integer(f.ts), .integer(f.seq), .real(f.lon), .real(f.lat)])
                try insert.run()
                try history.bind([.integer(f.device), .integer(f.ts), .integer(f.seq), .integer(f.cell), .real(f.lon), .real(f.lat)])
                try history.run()
                try rtree.bind([.integer(f.seq), .real(f.lon), .real(f.lon), .real(f.lat), .real(f.lat), .integer(f.device), .integer(f.ts)])
                try rtree.run()
            }
        }
    }
    try db.run("UPDATE index_state SET merged_through = ?, last_seq = ?", [.int(fixes.count), .int(fixes.count)])
    try db.execute("ANALYZE")
    print(String(format: "built %d fixes (cell index + R*Tree) in %.1f s at %@", fixes.count, Date().timeIntervalSince(t0), directory))
} else {
    try db.forEachRow("SELECT cell, device_key, ts, seq, lon, lat FROM cell_index") { r in
        fixes.append((r.int64(0), r.int64(1), r.int64(2), r.int64(3), r.double(4), r.double(5)))
    }
    print("reusing \(fixes.count) fixes at \(directory)")
}

let service = GeoQueryService(index: backend, directory: backend)
let readable = Dictionary(uniqueKeysWithValues: try backend.sharedDevices(groupID: GroupID("g")).map { ($0.key, $0) })

// 3. Query sets.
func centers(_ n: Int) -> [(Double, Double)] { (0..<n).map { _ in let f = fixes[Int.random(in: 0..<fixes.count, using: &random)]; return (f.lon, f.lat) } }
let radiusCenters = centers(options.queries)
let nearCenters = centers(options.queries)
let countriesJSON = try JSONParser.parse(Array(FileManager.default.contents(atPath: options.countries) ?? Data()))
let countryFilters: [(String, GeoFilter)] = (countriesJSON["features"]?.arrayValue ?? []).compactMap { feature in
    guard let name = feature["properties"]?["name"]?.stringValue, let geometry = feature["geometry"],
          ["Switzerland", "Belgium", "Netherlands", "Denmark", "Austria", "Portugal", "Ireland", "Czechia", "Hungary",
           "Slovakia", "Israel", "Lebanon", "Jamaica", "Costa Rica", "Uruguay", "Sri Lanka", "Rwanda", "Slovenia",
           "Luxembourg", "Cyprus"].contains(name),
          let filter = try? GeoFilter.parse(["$geoWithin": ["$geometry": geometry]]) else { return nil }
    return (name, filter)
}

struct Measure { var ms: [Double] = []; var keys = 0; var results = 0 }
func time(_ body: () throws -> (keys: Int, results: Int)) rethrows -> (Double, Int, Int) {
    let t = DispatchTime.now().uptimeNanoseconds
    let (k, r) = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6, k, r)
}

func ours(_ filter: GeoFilter, limit: Int) throws -> (keys: Int, results: Int) {
    var explain = QueryExplain()
    let results = try service.queryHistory(filter, readable: readable, from: nil, to: nil, limit: limit, &explain)
    return (explain.keysExamined, results.count)
}

/// R*Tree: candidates in the region's lng/lat bounding rectangle, then the same exact test.
func rtree(_ filter: GeoFilter, limit: Int) throws -> (keys: Int, results: Int) {
    let rect = filter.region.rectBound
    let lo = rect.lngLo.degrees, hi = rect.lngHi.degrees
    let boxes: [(Double, Double)] = rect.hasFullLongitude ? [(-180.0, 180.0)] : (lo <= hi ? [(lo, hi)] : [(lo, 180.0), (-180.0, hi)])
    var keys = 0, results = 0
    try backend.read { db in
        let q = try db.prepare("SELECT min_lon, min_lat, device_key FROM fixes_rtree WHERE min_lon >= ? AND max_lon <= ? AND min_lat >= ? AND max_lat <= ?")
        defer { q.reset() }
        for (w, e) in boxes where results < limit {
            try q.bind([.real(w), .real(e), .real(rect.latLo.degrees), .real(rect.latHi.degrees)])
            while try q.step() {
                guard readable[DeviceKey(storeValue: q.int64(2))] != nil else { continue }
                keys += 1
                let lon = q.double(0), lat = q.double(1)
                if filter.matchesStored(longitude: lon, latitude: lat) { results += 1; if results >= limit { break } }
            }
            q.reset()
        }
    }
    return (keys, results)
}

/// R*Tree k nearest: boxes around the centre growing ×2 until k hits lie within the box's
/// inscribed circle; then sort those by distance.
func rtreeNear(_ lon: Double, _ lat: Double, k: Int) throws -> (keys: Int, results: Int) {
    var halfMeters = 1_000.0, keys = 0
    let center = LatLng(degreesLatitude: lat, longitude: lon).toPoint()
    while true {
        let dLat = halfMeters / 111_319.0 * 180 / .pi * .pi / 180
        let dLon = min(180, dLat / max(0.01, cos(lat * .pi / 180)))
        var distances: [Double] = []
        try backend.read { db in
            let q = try db.prepare("SELECT min_lon, min_lat, device_key FROM fixes_rtree WHERE min_lon >= ? AND max_lon <= ? AND min_lat >= ? AND max_lat <= ?")
            defer { q.reset() }
            try q.bind([.real(lon - dLon), .real(lon + dLon), .real(lat - dLat), .real(lat + dLat)])
            while try q.step() {
                guard readable[DeviceKey(storeValue: q.int64(2))] != nil else { continue }
                keys += 1
                distances.append(GeoDistance.meters(from: center, to: LatLng(degreesLatitude: q.double(1), longitude: q.double(0)).toPoint()))
            }
        }
        let inside = distances.filter { $0 <= halfMeters }
        if inside.count >= k || halfMeters > 20_000_000 { return (keys, min(k, inside.count)) }
        halfMeters *= 2
    }
}

func fullScan(_ matches: (Double, Double) -> Bool, limit: Int) throws -> (keys: Int, results: Int) {
    var keys = 0, results = 0
    try backend.read { db in
        try db.forEachRow("SELECT lon, lat, device_key FROM cell_index") { r in
            guard readable[DeviceKey(storeValue: r.int64(2))] != nil else { return }
            keys += 1
            if results < limit && matches(r.double(0), r.double(1)) { results += 1 }
        }
    }
    return (keys, results)
}

func report(_ name: String, _ rows: [(String, Measure)]) {
    // Timings of a method that answers differently mean nothing: the cell index and the R*Tree
    // apply the same exact filter to the same fixes, so their result counts must agree — up to
    // 1 in 10,000, the fixes the R*Tree's 32-bit boxes (rounded outwards) lose at the edges of
    // a query's bounding box.
    let counts = Dictionary(rows.map { ($0.0, $0.1.results) }, uniquingKeysWith: { a, _ in a })
    if let ours = counts["cell index"], let theirs = counts["R*Tree"], abs(ours - theirs) > theirs / 10_000 {
        print("\n== \(name): the cell index found \(ours) results, the R*Tree \(theirs): not comparable")
        exit(1)
    }
    print("\n== \(name)")
    print("method        p50 ms    p99 ms   keys/result   mean results")
    for (method, m) in rows {
        let perResult = m.results == 0 ? 0 : Double(m.keys) / Double(m.results)
        print(String(format: "%-11@ %8.3f  %8.3f  %12.2f  %12.1f", method as NSString, percentile(m.ms, 0.5), percentile(m.ms, 0.99), perResult,
                     Double(m.results) / Double(max(1, m.ms.count))))
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted(); return s.isEmpty ? 0 : s[min(s.count - 1, Int(Double(s.count - 1) * p))]
}

// Table layout: the clustered WITHOUT ROWID table (what the server uses) vs a rowid table with a
// secondary B-tree index on cell, same rows, same coverings, same exact filter.
if options.compareLayouts {
    let hasRowid = try db.firstRow("SELECT count(*) FROM sqlite_master WHERE name = 'fixes_rowid'") { $0.int(0) } ?? 0
    if hasRowid == 0 {
        let t = Date()
        try db.execute("CREATE TABLE fixes_rowid (cell INTEGER NOT NULL, device_key INTEGER NOT NULL, ts INTEGER NOT NULL, seq INTEGER NOT NULL, lon REAL NOT NULL, lat REAL NOT NULL)")
        try db.execute("INSERT INTO fixes_rowid SELECT cell, device_key, ts, seq, lon, lat FROM cell_index ORDER BY seq")
        try db.execute("CREATE INDEX fixes_rowid_by_cell ON fixes_rowid(cell)")
        print(String(format: "built the rowid + B-tree index layout in %.1f s", Date().timeIntervalSince(t)))
    }
    func scanLayout(_ table: String, _ filter: GeoFilter) throws -> (Double, Int, Int) {
        let ranges = RegionCoverer.ranges(of: GeoQueryService.defaultCoverer.covering(of: filter.region))
        let t = DispatchTime.now().uptimeNanoseconds
        var keys = 0, hits = 0
        try backend.read { db in
            let q = try db.prepare("SELECT lon, lat, device_key FROM \(table) WHERE cell BETWEEN ? AND ?")
            for range in ranges {
                try q.bind([.integer(range.lowerBound), .integer(range.upperBound)])
                while try q.step() {
                    guard readable[DeviceKey(storeValue: q.int64(2))] != nil else { continue }
                    keys += 1
                    if filter.matchesStored(longitude: q.double(0), latitude: q.double(1)) { hits += 1 }
                }
                q.reset()
            }
        }
        return (Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6, keys, hits)
    }
    var clustered: [Double] = [], secondary: [Double] = []
    for (lon, lat) in radiusCenters {
        let filter = try GeoFilter.parse(["$geoWithin": ["$centerSphere": [.array([.number(JSONNumber(lon)), .number(JSONNumber(lat))]), .number(JSONNumber(options.radius / 6_378_100.0))]]])
        let a = try scanLayout("cell_index", filter), b = try scanLayout("fixes_rowid", filter)
        precondition(a.2 == b.2, "layouts disagree")
        clustered.append(a.0); secondary.append(b.0)
    }
    print(String(format: "\n== table layout, radius %d m range scans: clustered WITHOUT ROWID p50 %.3f ms p99 %.3f ms | rowid + index on cell p50 %.3f ms p99 %.3f ms",
                 Int(options.radius), percentile(clustered, 0.5), percentile(clustered, 0.99), percentile(secondary, 0.5), percentile(secondary, 0.99)))
}

// Where the time goes: coverings alone.
if ProcessInfo.processInfo.environment["FOD_BENCH_PROFILE"] != nil {
    for (levels, cells) in [(22, 16), (16, 8), (18, 8), (20, 12), (16, 4)] {
        let coverer = RegionCoverer(minLevel: 2, maxLevel: levels, levelMod: 1, maxCells: cells)
        let t = DispatchTime.now().uptimeNanoseconds
        var n = 0, rangesTotal = 0
        for (lon, lat) in radiusCenters {
            let cap = Cap(center: LatLng(degreesLatitude: lat, longitude: lon).toPoint(), radius: Angle(radians: options.radius / 6_378_100.0))
            let cov = coverer.covering(of: cap)
            n += cov.count
            rangesTotal += RegionCoverer.ranges(of: cov).count
        }
        print(String(format: "covering maxLevel %d maxCells %d: %.1f µs each, %.1f cells, %.1f ranges", levels, cells,
                     Double(DispatchTime.now().uptimeNanoseconds - t) / 1e3 / Double(radiusCenters.count),
                     Double(n) / Double(radiusCenters.count), Double(rangesTotal) / Double(radiusCenters.count)))
    }
}

// 4. Run, interleaving methods per query so machine noise hits all alike.
var a = Measure(), b = Measure(), c = Measure()
let radiusAngle = options.radius / 6_378_100.0
for (i, (lon, lat)) in radiusCenters.enumerated() {
    let filter = try GeoFilter.parse(["$geoWithin": ["$centerSphere": [.array([.number(JSONNumber(lon)), .number(JSONNumber(lat))]), .number(JSONNumber(radiusAngle))]]])
    var (ms, k, r) = try time { try ours(filter, limit: 10_000) }; a.ms.append(ms); a.keys += k; a.results += r
    (ms, k, r) = try time { try rtree(filter, limit: 10_000) }; b.ms.append(ms); b.keys += k; b.results += r
    if i < options.scans { (ms, k, r) = try time { try fullScan({ filter.matchesStored(longitude: $0, latitude: $1) }, limit: 10_000) }; c.ms.append(ms); c.keys += k; c.results += r }
}
report("radius \(Int(options.radius)) m ($centerSphere), \(options.queries) queries at stored points", [("cell index", a), ("R*Tree", b), ("full scan", c)])

a = Measure(); b = Measure(); c = Measure()
for round in 0..<max(1, options.queries / max(1, countryFilters.count)) {
    for (_, filter) in countryFilters {
        var (ms, k, r) = try time { try ours(filter, limit: 10_000) }; a.ms.append(ms); a.keys += k; a.results += r
        (ms, k, r) = try time { try rtree(filter, limit: 10_000) }; b.ms.append(ms); b.keys += k; b.results += r
        if round == 0 && c.ms.count < options.scans { (ms, k, r) = try time { try fullScan({ filter.matchesStored(longitude: $0, latitude: $1) }, limit: 10_000) }; c.ms.append(ms); c.keys += k; c.results += r }
    }
}
report("country polygons ($geoWithin $geometry, \(countryFilters.count) countries, limit 10000)", [("cell index", a), ("R*Tree", b), ("full scan", c)])

a = Measure(); b = Measure(); c = Measure()
for (i, (lon, lat)) in nearCenters.enumerated() {
    let filter = try GeoFilter.parse(["$near": ["$geometry": ["type": "Point", "coordinates": .array([.number(JSONNumber(lon)), .number(JSONNumber(lat))])]]])
    var (ms, k, r) = try time { try ours(filter, limit: 10) }; a.ms.append(ms); a.keys += k; a.results += r
    (ms, k, r) = try time { try rtreeNear(lon, lat, k: 10) }; b.ms.append(ms); b.keys += k; b.results += r
    if i < options.scans {
        let center = LatLng(degreesLatitude: lat, longitude: lon).toPoint()
        (ms, k, r) = try time {
            var best: [Double] = []
            let (keys, _) = try fullScan({ lon, lat in
                best.append(GeoDistance.meters(from: center, to: LatLng(degreesLatitude: lat, longitude: lon).toPoint())); return false }, limit: Int.max)
            best.sort()
            return (keys, min(10, best.count))
        }
        c.ms.append(ms); c.keys += k; c.results += r
    }
}
report("$near k = 10, \(options.queries) queries at stored points", [("cell index", a), ("R*Tree", b), ("full scan", c)])
backend.close()
if options.keep == nil { try? FileManager.default.removeItem(atPath: directory) }
}

do { try runBenchmark() } catch { print("benchmark failed: \(error)"); exit(1) }
