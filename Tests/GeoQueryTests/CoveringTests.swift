#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GeoKit
import JSONCore
import Testing
@testable import GeoQuery

/// Coverings of `shape.region` never miss a point `shape.contains` accepts.
struct CoveringTests {
    /// Filters spanning every shape kind, including the antimeridian, poles, big and tiny shapes.
    static let filters: [String] = [
        #"{"$geoWithin": {"$geometry": \#(polygonJSON([(-60, 30), (60, 30), (60, 50), (-60, 50)]))}}"#,
        #"{"$geoWithin": {"$geometry": \#(polygonJSON([(170, -10), (-170, -10), (-170, 10), (170, 10)]))}}"#,
        #"{"$geoWithin": {"$geometry": \#(polygonJSON([(0, 80), (120, 80), (-120, 80)]))}}"#,
        #"{"$geoWithin": {"$geometry": \#(polygonJSON([(2.29, 48.85), (2.30, 48.85), (2.30, 48.86), (2.29, 48.86)]))}}"#,
        #"{"$geoWithin": {"$geometry": \#(polygonJSON([(10, 10), (0, 10), (0, 0), (10, 0)], crs: "urn:x-mongodb:crs:strictwinding:EPSG:4326"))}}"#,
        #"{"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [30, 0], [30, 30], [0, 30], [0, 0]], [[10, 10], [10, 20], [20, 20], [20, 10], [10, 10]]]}}}"#,
        #"{"$geoWithin": {"$geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[-100, -50], [-90, -50], [-90, -40], [-100, -50]]]]}}}"#,
        #"{"$geoWithin": {"$centerSphere": [[-88, 30], 0.0017]}}"#,
        #"{"$geoWithin": {"$centerSphere": [[180, 89], 0.3]}}"#,
        #"{"$geoWithin": {"$centerSphere": [[20, -10], 2.5]}}"#,
        #"{"$geoWithin": {"$box": [[-10, -10], [10, 10]]}}"#,
        #"{"$geoWithin": {"$box": [[170, 80], [180, 90]]}}"#,
        #"{"$geoWithin": {"$box": [[-180, -90], [-179.5, -89]]}}"#,
        #"{"$geoWithin": {"$box": [[-500, -100], [500, 100]]}}"#,
        #"{"$geoWithin": {"$polygon": [[-60, 30], [60, 30], [60, 50], [-60, 50]]}}"#,
        #"{"$geoWithin": {"$polygon": [[175, -5], [180, 0], [175, 5]]}}"#,
        #"{"$geoWithin": {"$polygon": [[0, 0], [10, 0], [10, 10], [6, 10], [6, 2], [4, 2], [4, 10], [0, 10]]}}"#,
        #"{"$geoWithin": {"$center": [[0, 85], 10]}}"#,
        #"{"$geoWithin": {"$center": [[-74, 40.74], 0.01]}}"#,
        #"{"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[-100, 50], [100, 50], [100, -50]]}}}"#,
        #"{"$geoIntersects": {"$geometry": {"type": "MultiLineString", "coordinates": [[[179, 0], [-179, 1]], [[0, 89], [90, 89]]]}}}"#,
        #"{"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [12.4924, 41.8902]}}}"#,
        #"{"$geoIntersects": {"$geometry": {"type": "MultiPoint", "coordinates": [[180, 0], [0, 90], [-45, -45]]}}}"#,
        #"{"$geoIntersects": {"$geometry": {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [100, 0]}, {"type": "LineString", "coordinates": [[101, 0], [102, 1]]}, {"type": "Polygon", "coordinates": [[[-5, -5], [5, -5], [5, 5], [-5, 5], [-5, -5]]]}]}}}"#,
        #"{"$near": {"$geometry": {"type": "Point", "coordinates": [2.2945, 48.8584]}, "$minDistance": 1000, "$maxDistance": 50000}}"#,
        #"{"$nearSphere": [179, -60], "$maxDistance": 0.2}"#,
    ]

    /// Candidate points: uniform, near the region's bounding cap, on the shape's vertices and
    /// edges, and exact lng/lat grid points (which hit flat boundaries exactly).
    static func samples(for filter: GeoFilter, _ rng: inout SeededGenerator) -> [S2Point] {
        var points: [S2Point] = []
        for _ in 0..<300 { points.append(rng.point()) }
        let cap = filter.region.capBound
        if !cap.isEmpty {
            for _ in 0..<700 {
                let r = Swift.min(Double.pi, cap.radius.radians * 1.1)
                points.append(rng.point(near: cap.center, distance: r * rng.uniform(0, 1).squareRoot()))
            }
        }
        switch filter {
        case .near(let query):
            for _ in 0..<200 {
                let d = query.units.angle(rng.uniform(query.minDistance ?? 0, query.maxDistance ?? 1)).radians
                points.append(rng.point(near: query.center, distance: d))
            }
        case .within(let shape), .intersects(let shape):
            points += boundarySamples(shape, &rng)
        }
        let rect = filter.region.rectBound
        if !rect.isEmpty {
            for _ in 0..<300 {
                let lat = Swift.max(-90, Swift.min(90, floor(rng.uniform(rect.latLo.degrees - 1, rect.latHi.degrees + 1))))
                let lng = floor(rng.uniform(-180, 180) * 2) / 2
                points.append(point(lng, lat))
            }
        }
        return points
    }

    static func boundarySamples(_ shape: GeoShape, _ rng: inout SeededGenerator) -> [S2Point] {
        var points: [S2Point] = []
        func edges(_ vertices: [S2Point], closed: Bool) {
            let n = vertices.count
            for i in 0..<(closed ? n : n - 1) {
                for _ in 0..<20 {
                    points.append(interpolate(vertices[i], vertices[(i + 1) % n], rng.uniform(0, 1)))
                }
            }
            points += vertices
        }
        func geometry(_ g: GeoJSONGeometry) {
            switch g {
            case .point(let p): points.append(p)
            case .multiPoint(let ps): points += ps
            case .lineString(let line): edges(line.vertices, closed: false)
            case .multiLineString(let lines): for line in lines { edges(line.vertices, closed: false) }
            case .polygon(let polygon): for loop in [polygon.shell] + polygon.holes { edges(loop.vertices, closed: true) }
            case .multiPolygon(let multi):
                for polygon in multi.polygons { for loop in [polygon.shell] + polygon.holes { edges(loop.vertices, closed: true) } }
            case .geometryCollection(let members): for member in members { geometry(member) }
            }
        }
        func flatEdges(_ vertices: [FlatPoint]) {
            let n = vertices.count
            for i in 0..<n {
                let a = vertices[i], b = vertices[(i + 1) % n]
                for _ in 0..<20 {
                    let t = rng.uniform(0, 1)
                    let x = a.x + t * (b.x - a.x), y = a.y + t * (b.y - a.y)
                    if Swift.abs(x) <= 180 && Swift.abs(y) <= 90 { points.append(point(x, y)) }
                }
                if Swift.abs(a.x) <= 180 && Swift.abs(a.y) <= 90 { points.append(point(a.x, a.y)) }
            }
        }
        switch shape {
        case .geometry(let g):
            geometry(g)
        case .centerSphere(let center, let radius):
            for _ in 0..<50 { points.append(rng.point(near: center, distance: radius.radians)) }
        case .box(let box):
            flatEdges([box.min, FlatPoint(x: box.max.x, y: box.min.y), box.max, FlatPoint(x: box.min.x, y: box.max.y)])
        case .polygon(let polygon):
            flatEdges(polygon.vertices)
        case .center(let circle):
            for _ in 0..<50 {
                let a = rng.uniform(0, 2 * Double.pi)
                let x = circle.center.x + circle.radius * cos(a), y = circle.center.y + circle.radius * sin(a)
                if Swift.abs(x) <= 180 && Swift.abs(y) <= 90 { points.append(point(x, y)) }
            }
        }
        return points
    }

    @Test(arguments: filters)
    func coveringNeverMisses(_ text: String) throws {
        let filter = try GeoFilter.parse(json(text))
        let coverer = RegionCoverer.mongoDB
        let covering = coverer.covering(of: filter.region)
        #expect(!covering.isEmpty)
        // At most maxCells, unless the region meets more cells than that at minLevel (level 2).
        let floor = RegionCoverer(minLevel: 2, maxLevel: 2, maxCells: 1000).covering(of: filter.region).count
        #expect(covering.count <= Swift.max(coverer.maxCells, floor), "\(covering.count) cells")
        let ranges = RegionCoverer.ranges(of: covering)
        var rng = SeededGenerator(seed: UInt64(truncatingIfNeeded: text.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }))
        var matched = 0, misses = 0
        for p in Self.samples(for: filter, &rng) where filter.matches(p) {
            matched += 1
            #expect(filter.region.contains(p), "region misses \(LatLng(p))")
            let leaf = CellID(p)
            let inCells = covering.contains { $0.contains(leaf) }
            let inRanges = ranges.contains { $0.contains(leaf.int64Key) }
            if !inCells || !inRanges {
                misses += 1
                if misses <= 3 { Issue.record("covering misses \(LatLng(p)) leaf \(leaf.token)") }
            }
        }
        #expect(misses == 0)
        #expect(matched > 0, "no sample matched; the test would prove nothing")
    }

    /// Entries in covering cells a filter matches entirely skip the exact test, so every stored
    /// point the index files under such a cell must match: checked on the usual samples and on
    /// points just inside each such cell's corners (a cell's nearest points to a boundary), each
    /// stored as lng/lat degrees and filed by its leaf cell as the index does. Flat shapes,
    /// lines, points and `$near` never claim a cell.
    @Test(arguments: filters)
    func cellsMatchedEntirelyHoldOnlyMatches(_ text: String) throws {
        let filter = try GeoFilter.parse(json(text))
        let covering = RegionCoverer(minLevel: 2, maxLevel: 16, maxCells: 64).covering(of: filter.region)
        let entire = covering.filter { id in Cell(id).map(filter.matchesEntirely) ?? false }
        let spherical = filter.shape?.isSpherical ?? false
        if !spherical { #expect(entire.isEmpty) }
        if text.contains("[20, -10], 2.5") || text.contains("(-60, 30), (60, 30)") { #expect(!entire.isEmpty) }
        var rng = SeededGenerator(seed: UInt64(truncatingIfNeeded: text.utf8.reduce(7) { ($0 &* 31) &+ Int($1) }))
        var points = Self.samples(for: filter, &rng)
        for id in entire {
            guard let cell = Cell(id) else { continue }
            for k in 0..<4 {
                for inward in [1e-15, 1e-13, 1e-11, 1e-9, 1e-6] {
                    points.append((cell.vertex(k) + (cell.center - cell.vertex(k)) * inward).normalized)
                }
            }
        }
        var checked = 0
        for p in points {
            let stored = LatLng(p)
            let point = LatLng(degreesLatitude: stored.lat.degrees, longitude: stored.lng.degrees).toPoint()
            let leaf = CellID(point)
            guard entire.contains(where: { $0.contains(leaf) }) else { continue }
            checked += 1
            #expect(filter.matches(point), "\(stored) in a cell matched entirely but not by the exact test")
        }
        if !entire.isEmpty { #expect(checked > 0) }
    }


    /// A cell the filter's region cannot meet (`mayIntersect` false, the covering's own test)
    /// holds no stored point the exact test accepts, at every level: scans may drop the entries
    /// of such a cell untested.
    @Test(arguments: filters)
    func cellsTheRegionCannotMeetHoldNoMatches(_ text: String) throws {
        let filter = try GeoFilter.parse(json(text))
        guard let shape = filter.shape else { return }
        var rng = SeededGenerator(seed: UInt64(truncatingIfNeeded: text.utf8.reduce(11) { ($0 &* 31) &+ Int($1) }))
        var checked = 0
        for p in Self.samples(for: filter, &rng) {
            let stored = LatLng(p)
            let point = LatLng(degreesLatitude: stored.lat.degrees, longitude: stored.lng.degrees).toPoint()
            guard shape.contains(longitude: stored.lng.degrees, latitude: stored.lat.degrees) else { continue }
            checked += 1
            let leaf = CellID(point)
            for level in stride(from: 2, through: 24, by: 2) {
                guard let cell = Cell(leaf.parent(level: level)) else { continue }
                #expect(filter.region.mayIntersect(cell), "\(stored) matches, but its level-\(level) cell is ruled out")
            }
        }
        #expect(checked > 0)
    }

    /// The prepared point test of a shape answers as `contains(longitude:latitude:)`.
    @Test(arguments: filters)
    func storedPointTestAgreesWithContains(_ text: String) throws {
        let filter = try GeoFilter.parse(json(text))
        guard let shape = filter.shape else { return }
        let test = shape.storedPointTest
        var rng = SeededGenerator(seed: UInt64(truncatingIfNeeded: text.utf8.reduce(13) { ($0 &* 31) &+ Int($1) }))
        var matched = 0
        for p in Self.samples(for: filter, &rng) {
            let stored = LatLng(p)
            let expected = shape.contains(longitude: stored.lng.degrees, latitude: stored.lat.degrees)
            #expect(test(stored.lng.degrees, stored.lat.degrees) == expected, "\(stored)")
            if expected { matched += 1 }
        }
        #expect(matched > 0)
    }

    /// Fingerprints tell polygons apart by operator and by every bit of every vertex, and only
    /// the polygon shapes (whose coverings cost work) have one.
    @Test func coveringFingerprintsIdentifyPolygonsExactly() throws {
        let square = polygonJSON([(0, 0), (1, 0), (1, 1), (0, 1)])
        let within = try GeoFilter.parse(json(#"{"$geoWithin": {"$geometry": \#(square)}}"#))
        let again = try GeoFilter.parse(json(#"{"$geoWithin": {"$geometry": \#(square)}}"#))
        let intersects = try GeoFilter.parse(json(#"{"$geoIntersects": {"$geometry": \#(square)}}"#))
        let nudged = try GeoFilter.parse(json(#"{"$geoWithin": {"$geometry": \#(polygonJSON([(0, 0), (1, 0), (1, 1.0000000000000002), (0, 1)]))}}"#))
        let flat = try GeoFilter.parse(json(#"{"$geoWithin": {"$polygon": [[0, 0], [1, 0], [1, 1], [0, 1]]}}"#))
        let multi = try GeoFilter.parse(json(#"{"$geoWithin": {"$geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]]}}}"#))
        let prints = [within, intersects, nudged, flat, multi].map(\.coveringFingerprint)
        #expect(prints.allSatisfy { $0 != nil })
        #expect(Set(prints.compactMap { $0 }).count == prints.count)
        #expect(within.coveringFingerprint == again.coveringFingerprint)
        for cheap in [#"{"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}"#, #"{"$geoWithin": {"$box": [[0, 0], [1, 1]]}}"#,
                      #"{"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}"#,
                      #"{"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}"#] {
            #expect(try GeoFilter.parse(json(cheap)).coveringFingerprint == nil, "\(cheap)")
        }
    }
}
