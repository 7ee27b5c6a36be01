#if canImport(Glibc)
import Glibc
#endif
import GeoKit
import GeoQuery
import JSONCore
import TestRandom
import Testing
@testable import Tracking

/// `ContainmentShortcut` (which entries of a within-scan skip the exact test) and
/// `CoveringCache` (a group's prepared polygon coverings).
@Suite struct ContainmentShortcutTests {
    static func filter(_ text: String) throws -> GeoFilter {
        try GeoFilter.parse(JSONParser.parse(Array(text.utf8)))
    }

    /// A country-sized polygon with a hole, a small one, a circle and a flat `$polygon`.
    static let filters = [
        #"{"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[20, 36], [28, 36], [29, 41], [24, 42.5], [19.5, 40], [20, 36]], [[23, 38], [24, 38], [24, 39], [23, 38]]]}}}"#,
        #"{"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [[[23.70, 37.95], [23.78, 37.95], [23.78, 38.01], [23.70, 38.01], [23.70, 37.95]]]}}}"#,
        #"{"$geoWithin": {"$centerSphere": [[23.7, 37.98], 0.02]}}"#,
        #"{"$geoWithin": {"$polygon": [[20, 36], [28, 36], [29, 41], [24, 42.5], [19.5, 40]]}}"#,
    ]

    /// Entries in key order, clustered like people (towns of ~30 fixes within ~1 km, some
    /// astride the boundaries): every verdict agrees with the exact test, and outside the
    /// covering's interior cells some entries are decided without it.
    @Test(arguments: filters)
    func verdictsAgreeWithTheExactTest(_ text: String) throws {
        let filter = try Self.filter(text)
        let shape = try #require(filter.shape)
        let region = filter.region
        let covering = PreparedCovering(cells: RegionCoverer(minLevel: 0, maxLevel: 30, maxCells: 20).covering(of: region),
                                        filter: filter)
        var rng = SplitMix64(seed: 0xC0FFEE)
        var entries: [(key: Int64, lon: Double, lat: Double)] = []
        let cap = region.capBound
        for _ in 0..<300 {
            let town = rng.point(near: cap.center, distance: cap.radius.radians * 1.2 * rng.unit().squareRoot())
            for _ in 0..<30 {
                let p = LatLng(rng.point(near: town, distance: 1.5e-4 * rng.unit()))
                let stored = LatLng(degreesLatitude: p.lat.degrees, longitude: p.lng.degrees)
                entries.append((CellID(stored.toPoint()).int64Key, p.lng.degrees, p.lat.degrees))
            }
        }
        let walk = Self.checkVerdicts(entries, covering: covering, shape: shape, in: text)
        #expect(walk.matched > 0)
        if shape.isSpherical { #expect(walk.classified > 0) }
    }

    /// Walks `entries` in key order through a shortcut over `covering`, expecting every verdict
    /// to agree with the shape's exact test; returns the entries the exact test matched, those
    /// a verdict decided, and those a verdict decided outside the covering's interior cells
    /// (decided by a classified cell).
    static func checkVerdicts(_ entries: [(key: Int64, lon: Double, lat: Double)], covering: PreparedCovering,
                              shape: GeoShape, in context: String) -> (matched: Int, decided: Int, classified: Int) {
        var shortcut = ContainmentShortcut(covering, shape: shape)
        var matched = 0, decided = 0, classified = 0
        for entry in entries.sorted(by: { $0.key < $1.key }) where covering.ranges.contains(where: { $0.contains(entry.key) }) {
            let exact = shape.contains(longitude: entry.lon, latitude: entry.lat)
            if exact { matched += 1 }
            let verdict = shortcut.verdict(forKey: entry.key)
            switch verdict {
            case .matches: #expect(exact, "\(entry) taken as a match in \(context)")
            case .fails: #expect(!exact, "\(entry) taken as no match in \(context)")
            case .needsTest: continue
            }
            decided += 1
            if !covering.interior.contains(where: { $0.contains(entry.key) }) { classified += 1 }
        }
        return (matched, decided, classified)
    }

    /// Random star-shaped polygons (5 to 40 vertices, 2 to 400 km across, every third with a
    /// hole) and coverings of 8 to 118 cells over clustered entries, some on the polygons' own
    /// edges: every verdict agrees with the exact test, and some entries are decided by one.
    @Test(arguments: 0..<12)
    func randomPolygonsAnswerAsTheExactTest(_ seed: Int) throws {
        var rng = SplitMix64(seed: 0x5EED_0000 &+ UInt64(seed))
        let center = LatLng(rng.point())
        let lat = max(-80, min(80, center.lat.degrees)), lon = max(-160, min(160, center.lng.degrees))
        let radiusDegrees = rng.uniform(0.01, 2.0)
        let count = 5 + Int(rng.next() % 36)
        func ring(_ scale: Double) -> [(Double, Double)] {
            (0..<count).map { k in
                let angle = 2 * Double.pi * Double(k) / Double(count)
                let r = radiusDegrees * scale * rng.uniform(0.4, 1.0)
                return (lon + r * cos(angle) / max(0.2, cos(lat * .pi / 180)), lat + r * sin(angle))
            }
        }
        func text(_ ring: [(Double, Double)]) -> String {
            "[" + (ring + [ring[0]]).map { "[\($0.0), \($0.1)]" }.joined(separator: ", ") + "]"
        }
        let shell = ring(1)
        let hole = seed % 3 == 0 ? ", " + text([(lon - radiusDegrees * 0.1, lat - radiusDegrees * 0.1), (lon + radiusDegrees * 0.1, lat - radiusDegrees * 0.1),
                                               (lon, lat + radiusDegrees * 0.1)]) : ""
        let body = #"{"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [\#(text(shell))\#(hole)]}}}"#
        let filter = try Self.filter(body)
        let shape = try #require(filter.shape)
        let region = filter.region
        let covering = PreparedCovering(cells: RegionCoverer(minLevel: 2, maxLevel: 16, maxCells: 8 + seed * 10).covering(of: region),
                                        filter: filter)
        var entries: [(key: Int64, lon: Double, lat: Double)] = []
        func add(_ p: S2Point) {
            let stored = LatLng(p)
            let point = LatLng(degreesLatitude: stored.lat.degrees, longitude: stored.lng.degrees).toPoint()
            entries.append((CellID(point).int64Key, stored.lng.degrees, stored.lat.degrees))
        }
        let cap = region.capBound
        for _ in 0..<200 {
            let town = rng.point(near: cap.center, distance: cap.radius.radians * 1.2 * rng.unit().squareRoot())
            for _ in 0..<(1 + Int(rng.next() % 40)) { add(rng.point(near: town, distance: cap.radius.radians * 0.02 * rng.unit())) }
        }
        for (a, b) in zip(shell, shell.dropFirst() + [shell[0]]) {
            for t in stride(from: 0.0, through: 1.0, by: 0.125) {
                add(LatLng(degreesLatitude: a.1 + (b.1 - a.1) * t, longitude: a.0 + (b.0 - a.0) * t).toPoint())
            }
        }
        let walk = Self.checkVerdicts(entries, covering: covering, shape: shape, in: body)
        #expect(walk.matched > 0 && walk.decided > 0)
    }

    /// Covering cells grow with the region's radius; wide polygons of few edges take more,
    /// polygons of very many edges fewer (a covering costs about cells × edges).
    @Test func coveringCellsFollowRadiusAndEdges() {
        let tuning = GeoQueryService.Tuning()
        let km = 1_000 / 6_378_100.0
        #expect(tuning.maxCells(radius: 1 * km, edges: nil) == 8)
        #expect(tuning.maxCells(radius: 20 * km, edges: nil) == 32)
        #expect(tuning.maxCells(radius: 40 * km, edges: 4) == 64)
        #expect(tuning.maxCells(radius: 100 * km, edges: nil) == 96)
        #expect(tuning.maxCells(radius: 500 * km, edges: nil) == 128)
        #expect(tuning.maxCells(radius: 500 * km, edges: 44) == 192)
        #expect(tuning.maxCells(radius: 500 * km, edges: 5_000) == 128)
        #expect(tuning.maxCells(radius: 500 * km, edges: 99_000) == 48)
        #expect(tuning.maxCells(radius: 1 * km, edges: 99_000) == 8)
    }

    /// The cache prepares a polygon's covering once per scope (a group's sharing devices),
    /// keeps at most `capacity` coverings, the least recently used leaving first, and never
    /// keeps the cheap shapes.
    @Test func theCacheKeepsPolygonsPerScopeAndDropsTheLeastRecentlyUsed() throws {
        let cache = CoveringCache()
        var prepared = 0
        func covering(_ filter: GeoFilter, scope: [UInt8] = [1]) -> PreparedCovering {
            cache.covering(of: filter, scope: scope) {
                prepared += 1
                return PreparedCovering(cells: RegionCoverer().covering(of: filter.region), filter: filter)
            }
        }
        func square(_ west: Double) throws -> GeoFilter {
            try Self.filter(#"{"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[\#(west), 0], [\#(west + 0.01), 0], [\#(west + 0.01), 0.01], [\#(west), 0.01], [\#(west), 0]]]}}}"#)
        }
        let first = try square(0)
        let cells = covering(first).cells
        #expect(covering(try square(0)).cells == cells)
        #expect(prepared == 1)
        _ = covering(first, scope: [2])
        #expect(prepared == 2, "another group's scope prepares its own")
        // Fill the cache, using the first square now and then so that it stays.
        for index in 1...CoveringCache.capacity {
            _ = covering(try square(Double(index) * 0.1))
            if index % 64 == 0 { _ = covering(first) }
        }
        #expect(cache.count == CoveringCache.capacity)
        let beforeRevisits = prepared
        _ = covering(first)
        #expect(prepared == beforeRevisits, "the recently used polygon stayed")
        _ = covering(first, scope: [2])
        #expect(prepared == beforeRevisits + 1, "the least recently used one left")
        let circle = try Self.filter(#"{"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}"#)
        _ = covering(circle)
        _ = covering(circle)
        #expect(prepared == beforeRevisits + 3)
        #expect(cache.count == CoveringCache.capacity)
    }
}
