import GeoKit
import GeoQuery
import JSONCore
import LocationFormats
import TestRandom
import StoreTestSupport
import Testing
import Tracking

/// Ranges of signed leaf-cell keys, as the geo queries' coverings give them.
enum CellRange {
    /// Every key.
    static let world = Int64.min...Int64.max

    /// The keys of the cell at `level` containing (`latitude`, `longitude`).
    static func around(latitude: Double, longitude: Double, level: Int) -> ClosedRange<Int64> {
        let cell = CellID(LatLng(degreesLatitude: latitude, longitude: longitude)).parent(level: level)
        return cell.rangeMin.int64Key...cell.rangeMax.int64Key
    }
}

enum Scan {
    /// Every entry a reader yields for `range` (and [from, to]), in a stable order.
    static func all(_ reader: any GeoIndexReader, _ range: ClosedRange<Int64>, from: Int64? = nil, to: Int64? = nil) throws -> [IndexEntry] {
        var entries: [IndexEntry] = []
        _ = try reader.scan(range, from: from, to: to) { entries.append($0); return true }
        return entries.sorted { $0.sequence < $1.sequence }
    }
}

/// `GeoIndex`: the cell-keyed index of fixes, read in range scans over one snapshot.
@Suite("Store conformance: geo index")
struct GeoIndexConformance {
    static let paris = (latitude: 48.8566, longitude: 2.3522)
    static let tokyo = (latitude: 35.6762, longitude: 139.6503)
    /// A point in the southern hemisphere, west: its leaf key is negative (faces 4 and 5).
    static let santiago = (latitude: -33.4489, longitude: -70.6693)

    @Test(arguments: StoreFactory.all)
    func rangeScansYieldEachFixInTheirCellsOnceWithItsKeyAndTime(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            var fixes: [(Double, Double)] = []
            for step in 0..<10 { fixes.append((Self.paris.longitude + Double(step) * 1e-4, Self.paris.latitude)) }
            fixes.append((Self.tokyo.longitude, Self.tokyo.latitude))
            fixes.append((Self.santiago.longitude, Self.santiago.latitude))
            let outcome = try await Fixtures.append(store, world.device.id, fixes.enumerated().map { offset, point in
                Fixtures.fix(Int64(offset) * 1_000, longitude: point.0, latitude: point.1)
            })
            let key = try #require(try store.sharedDevices(groupID: world.group).first { $0.deviceID == world.device.id }?.key)
            let parisRange = CellRange.around(latitude: Self.paris.latitude, longitude: Self.paris.longitude, level: 8)
            try store.withReader { reader in
                let all = try Scan.all(reader, CellRange.world)
                #expect(all.map(\.sequence) == outcome.stored.map(\.sequence))
                #expect(all.allSatisfy { $0.deviceKey == key })
                for (entry, stored) in zip(all, outcome.stored) {
                    #expect(entry.cell == CellID(LatLng(degreesLatitude: stored.fix.latitude, longitude: stored.fix.longitude)).int64Key)
                    #expect(entry.timestamp == stored.fix.timestamp)
                    #expect(entry.longitude == stored.fix.longitude && entry.latitude == stored.fix.latitude)
                }
                #expect(all.last?.cell ?? 0 < 0)
                let inParis = try Scan.all(reader, parisRange)
                #expect(inParis.count == 10)
                // Time bounds are inclusive.
                let window = try Scan.all(reader, parisRange, from: Fixtures.t0 + 2_000, to: Fixtures.t0 + 4_000)
                #expect(window.map(\.timestamp) == [2_000, 3_000, 4_000].map { Fixtures.t0 + $0 })
                #expect(try reader.hasEntries(in: parisRange, from: nil, to: nil))
                #expect(try !reader.hasEntries(in: parisRange, from: Fixtures.t0 + 20_000, to: nil))
                let santiagoRange = CellRange.around(latitude: Self.santiago.latitude, longitude: Self.santiago.longitude, level: 20)
                #expect(try Scan.all(reader, santiagoRange).map(\.timestamp) == [Fixtures.t0 + 11_000])
                let empty = CellRange.around(latitude: -10, longitude: 20, level: 8)
                #expect(try !reader.hasEntries(in: empty, from: nil, to: nil))
                // A body that stops ends the scan early.
                var visited = 0
                let finished = try reader.scan(parisRange, from: nil, to: nil) { _ in visited += 1; return visited < 3 }
                #expect(!finished && visited == 3)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func sharedDevicesAreTheSharersWithTheirLatestAndWindows(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            #expect(try store.sharedDevices(groupID: world.group).map(\.last) == [nil])
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000, longitude: 3)])
            try await Fixtures.append(store, world.viewerDevice.id, [Fixtures.fix(1_000)])
            let shared = try store.sharedDevices(groupID: world.group)
            #expect(shared.map(\.deviceID) == [world.device.id])
            #expect(shared.first?.userID == world.owner.id)
            #expect(shared.first?.last == LastLocation(longitude: 3, latitude: 48.85, timestamp: Fixtures.time(Fixtures.t0 + 1_000)))
            #expect(shared.first?.windows == HistoryWindows([Fixtures.t0...Int64.max]))
        }
    }

    @Test(arguments: StoreFactory.all)
    func aNewReaderSeesEveryCommittedAppend(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000)])
            // An append is in the index once it returned (queued merges included).
            let before = try store.withReader { reader in try Scan.all(reader, CellRange.world).count }
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(2_000)])
            let after = try store.withReader { reader in try Scan.all(reader, CellRange.world).count }
            #expect(before == 1 && after == 2)
        }
    }
}

/// `sharingDevices` may answer from a cache, but never misses a committed change of
/// memberships or sharing periods.
@Suite("Store conformance: the sharing devices of the history path")
struct SharingDevicesConformance {
    @Test(arguments: StoreFactory.all)
    func everyCommittedChangeIsSeenAtOnce(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let world = try await SharingWorld.make(store, viewerShares: true)
            /// The devices as the query path reads them with its snapshot (first, so that it
            /// is the one that fills or checks a cache), which must equal `sharingDevices`.
            func sharing() throws -> Set<DeviceID> {
                let inSnapshot = try store.withReader(sharingDevicesOf: world.group) { devices, _ in Set(devices.byKey.values.map(\.deviceID)) }
                let direct = Set(try store.sharingDevices(groupID: world.group).byKey.values.map(\.deviceID))
                #expect(inSnapshot == direct)
                return inSnapshot
            }
            #expect(try sharing() == [world.device.id, world.viewerDevice.id])
            #expect(try sharing() == [world.device.id, world.viewerDevice.id])  // from the cache, where there is one
            try await store.writeDirectory { tx in try tx.setSharing(groupID: world.group, userID: world.viewer.id, share: false) }
            #expect(try sharing() == [world.device.id])
            try await store.writeDirectory { tx in try tx.deleteMembership(groupID: world.group, userID: world.owner.id) }
            #expect(try sharing() == [])
            try await store.writeDirectory { tx in try tx.setSharing(groupID: world.group, userID: world.viewer.id, share: true) }
            #expect(try sharing() == [world.viewerDevice.id])
        }
    }
}

/// Reading several ranges in one call (`leadingEntries`), and `$near` on top of it: a reader
/// that batches its probes and reads scan cells ahead answers exactly as one read when reached.
@Suite("Store conformance: batched reads and $near")
struct BatchedReadConformance {
    @Test(arguments: StoreFactory.all)
    func leadingEntriesReadsEachRangeUpToItsCount(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let paris = GeoIndexConformance.paris, santiago = GeoIndexConformance.santiago
            var fixes = (0..<10).map { Fixtures.fix(Int64($0) * 1_000, longitude: paris.longitude + Double($0) * 1e-4, latitude: paris.latitude) }
            fixes.append(Fixtures.fix(10_000, longitude: santiago.longitude, latitude: santiago.latitude))
            try await Fixtures.append(store, world.device.id, fixes)
            let parisRange = CellRange.around(latitude: paris.latitude, longitude: paris.longitude, level: 8)
            let santiagoRange = CellRange.around(latitude: santiago.latitude, longitude: santiago.longitude, level: 8)
            let empty = CellRange.around(latitude: -10, longitude: 20, level: 8)
            try store.withReader { reader in
                let allParis = Set(try Scan.all(reader, parisRange).map(\.sequence))
                let few = try reader.leadingEntries(of: [parisRange, empty, santiagoRange, CellRange.world], from: nil, to: nil, count: 3)
                #expect(few.map(\.count) == [3, 0, 1, 3])
                #expect(Set(few[0].map(\.sequence)).isSubset(of: allParis))
                #expect(few[2].first?.timestamp == Fixtures.t0 + 10_000)
                let all = try reader.leadingEntries(of: [parisRange, CellRange.world], from: nil, to: nil, count: 20)
                #expect(Set(all[0].map(\.sequence)) == allParis && all[1].count == 11)
                let window = try reader.leadingEntries(of: [parisRange], from: Fixtures.t0 + 2_000, to: Fixtures.t0 + 4_000, count: 20)
                #expect(window.first?.map(\.timestamp).sorted() == [2_000, 3_000, 4_000].map { Fixtures.t0 + $0 })
                #expect(try reader.leadingEntries(of: [], from: nil, to: nil, count: 5).isEmpty)
            }
        }
    }

    /// Several ranges scanned in one call yield what scanning each yields, whatever the
    /// number of entries per range (batched readers read a first page of each at once and go
    /// on where it was full), and a stop ends the whole scan.
    @Test(arguments: StoreFactory.all)
    func scanOfSeveralRangesYieldsEachRangesEntries(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let paris = GeoIndexConformance.paris, santiago = GeoIndexConformance.santiago
            // 150 fixes in one level-8 cell of Paris (several pages), 3 in Santiago's.
            var fixes = (0..<150).map { Fixtures.fix(Int64($0) * 1_000, longitude: paris.longitude + Double($0 % 30) * 1e-4,
                                                      latitude: paris.latitude + Double($0 / 30) * 1e-4) }
            fixes += (0..<3).map { Fixtures.fix(200_000 + Int64($0) * 1_000, longitude: santiago.longitude, latitude: santiago.latitude) }
            try await Fixtures.append(store, world.device.id, fixes)
            let ranges = [CellRange.around(latitude: paris.latitude, longitude: paris.longitude, level: 8),
                          CellRange.around(latitude: -10, longitude: 20, level: 8),
                          CellRange.around(latitude: santiago.latitude, longitude: santiago.longitude, level: 8)]
            try store.withReader { reader in
                for (from, to) in [(nil, nil), (Fixtures.t0 + 40_000, Fixtures.t0 + 120_000), (Fixtures.t0 + 149_000, nil)] as [(Int64?, Int64?)] {
                    var together: [IndexEntry] = []
                    #expect(try reader.scan(ranges: ranges, from: from, to: to) { together.append($0); return true })
                    let each = try ranges.map { try Scan.all(reader, $0, from: from, to: to).map(\.sequence) }
                    // Each range's entries come before the next range's.
                    var rest = together[...]
                    for expected in each {
                        #expect(Set(rest.prefix(expected.count).map(\.sequence)) == Set(expected) && expected.count == Set(expected).count)
                        rest = rest.dropFirst(expected.count)
                    }
                    #expect(rest.isEmpty)
                }
                #expect(try Scan.all(reader, ranges[0]).count == 150)
                var seen = 0
                #expect(try !reader.scan(ranges: ranges, from: nil, to: nil) { _ in seen += 1; return seen < 70 })
                #expect(seen == 70)
            }
        }
    }

    /// `$geoWithin` finds exactly the readable fixes the region holds (its own exact test on
    /// every fix, brute force), however the covering's ranges split them, and other groups'
    /// fixes in the same cells change neither the answer nor its explain.
    @Test(arguments: StoreFactory.all)
    func withinAnswersEveryReadableFixInTheRegion(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            var random = SplitMix64(seed: 0x2545_F491_4F6C_DD1D)
            var mine: [Fix] = [], hidden: [Fix] = []
            for i in 0..<1_600 {
                let spread = i % 4 == 0 ? 0.05 : 2.0
                let lon = 22.0 + random.uniform(-0.5, 0.5) * spread, lat = 38.5 + random.uniform(-0.5, 0.5) * spread
                mine.append(Fixtures.fix(Int64(i) * 1_000, longitude: lon, latitude: lat))
                hidden.append(Fixtures.fix(Int64(i) * 1_000, longitude: lon + 1e-5, latitude: lat))
            }
            for start in stride(from: 0, to: mine.count, by: 400) {
                try await Fixtures.append(store, world.device.id, Array(mine[start..<start + 400]))
            }
            let readable = Dictionary(uniqueKeysWithValues: try store.sharedDevices(groupID: world.group).map { ($0.key, $0) })
            let service = GeoQueryService(index: store, directory: store)
            // Radians: ~640 m, ~6 km, ~64 km, ~120 km; centres in the dense core and off it. Then
            // polygons: one around the dense core with a hole in it (so that cells of many
            // fixes are classified on the way, see ContainmentShortcut), a flat one and a
            // MultiPolygon astride the core's edge.
            let bodies = [(0.0001, 22.0, 38.5), (0.001, 22.01, 38.49), (0.01, 21.7, 38.9), (0.019, 22.3, 38.2)].map { radians, lon, lat in
                #"{"$geoWithin":{"$centerSphere":[[\#(lon),\#(lat)],\#(radians)]}}"#
            } + [
                #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[21.2,37.7],[22.9,37.8],[22.6,39.3],[21.4,39.1],[21.2,37.7]],[[21.99,38.49],[22.005,38.49],[22.005,38.51],[21.99,38.49]]]}}}"#,
                #"{"$geoWithin":{"$polygon":[[21.98,38.48],[22.02,38.48],[22.02,38.52],[21.98,38.52]]}}"#,
                #"{"$geoIntersects":{"$geometry":{"type":"MultiPolygon","coordinates":[[[[21.9,38.4],[22.0,38.4],[22.0,38.5],[21.9,38.5],[21.9,38.4]]],[[[22.01,38.51],[23,38.51],[23,39],[22.01,38.51]]]]}}}"#,
            ]
            func answers() throws -> [[Int64]] {
                try bodies.map { body in
                    let filter = try GeoFilter.parse(JSONParser.parse(Array(body.utf8)))
                    var explain = QueryExplain()
                    let found = try service.queryHistory(filter, readable: readable, from: nil, to: nil, limit: 10_000, &explain)
                    return found.map(\.timestamp).sorted() + [Int64(explain.docsExamined), Int64(explain.ranges)]
                }
            }
            let alone = try answers()
            for (index, body) in bodies.enumerated() {
                let filter = try GeoFilter.parse(JSONParser.parse(Array(body.utf8)))
                let expected = mine.filter { filter.matchesStored(longitude: $0.longitude, latitude: $0.latitude) }.map(\.timestamp).sorted()
                #expect(Array(alone[index].dropLast(2)) == expected, "\(body)")
                #expect(expected.count > 0)
            }
            // Through the group's sharing devices, whose cache keeps the polygons' coverings: the
            // same answers and explains, prepared and then cached.
            let sharing = SharingDevices(try store.sharedDevices(groupID: world.group))
            for _ in 0..<2 {
                let viaGroup = try bodies.map { body in
                    let filter = try GeoFilter.parse(JSONParser.parse(Array(body.utf8)))
                    var explain = QueryExplain()
                    let found = try service.queryHistory(filter, sharing: sharing, caller: nil, limit: 10_000, &explain)
                    return found.map(\.timestamp).sorted() + [Int64(explain.docsExamined), Int64(explain.ranges)]
                }
                #expect(viaGroup == alone)
            }
            for start in stride(from: 0, to: hidden.count, by: 400) {
                try await Fixtures.append(store, world.viewerDevice.id, Array(hidden[start..<start + 400]))
            }
            #expect(try answers() == alone)
        }
    }

    /// `$near` finds the nearest readable fixes, and other groups' fixes around them change
    /// neither the answer nor its explain.
    @Test(arguments: StoreFactory.all)
    func nearAnswersTheNearestReadableFixes(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            func uniform() -> Double {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Double(state >> 11) / Double(UInt64(1) << 53)
            }
            // Readable fixes scattered over ~70 km around Paris, denser near its centre; twice as
            // many of a member who does not share: one a metre away from each, one anywhere in
            // the area (so that some cells start with, or hold only, unreadable entries).
            var mine: [Fix] = [], hidden: [Fix] = []
            for i in 0..<1_200 {
                let spread = i % 3 == 0 ? 0.02 : 0.5
                let lon = 2.35 + (uniform() - 0.5) * spread, lat = 48.85 + (uniform() - 0.5) * spread * 0.6
                mine.append(Fixtures.fix(Int64(i) * 1_000, longitude: lon, latitude: lat))
                hidden.append(Fixtures.fix(Int64(i) * 2_000, longitude: lon + 1e-5, latitude: lat))
                hidden.append(Fixtures.fix(Int64(i) * 2_000 + 1_000, longitude: 2.35 + (uniform() - 0.5) * 0.5,
                                           latitude: 48.85 + (uniform() - 0.5) * 0.3))
            }
            for start in stride(from: 0, to: mine.count, by: 400) {
                try await Fixtures.append(store, world.device.id, Array(mine[start..<start + 400]))
            }
            let readable = Dictionary(uniqueKeysWithValues: try store.sharedDevices(groupID: world.group).map { ($0.key, $0) })
            let service = GeoQueryService(index: store, directory: store)
            let queries = [(1, 2.35, 48.85), (10, 2.1, 48.7), (100, 2.6, 49.0), (10, 5.0, 45.0), (300, 2.35, 48.85)]
            /// Each query's answer (timestamps) and what its explain says of the cells.
            func answers() throws -> [[Int64]] {
                try queries.map { limit, lon, lat in
                    let body = #"{"$near":{"$geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}}"#
                    let filter = try GeoFilter.parse(JSONParser.parse(Array(body.utf8)))
                    var explain = QueryExplain()
                    let found = try service.queryHistory(filter, readable: readable, from: nil, to: nil, limit: limit, &explain)
                    return found.map(\.timestamp) + [Int64(explain.cellsProbed), Int64(explain.cellsInCovering), Int64(explain.docsExamined)]
                        + explain.coveringCells.map { $0.int64Key }
                }
            }
            let alone = try answers()
            for (index, (limit, lon, lat)) in queries.enumerated() {
                let centre = LatLng(degreesLatitude: lat, longitude: lon).toPoint()
                let expected = mine.enumerated().map { index, fix in
                    (chord: ChordAngle(between: centre, LatLng(degreesLatitude: fix.latitude, longitude: fix.longitude).toPoint()).length2,
                     index: index, timestamp: fix.timestamp)
                }.sorted { ($0.chord, $0.index) < ($1.chord, $1.index) }.prefix(limit).map(\.timestamp)
                #expect(Array(alone[index].prefix(limit)) == Array(expected), "limit \(limit) at \(lon), \(lat)")
            }
            // The unreadable fixes change neither an answer nor its explain.
            for start in stride(from: 0, to: hidden.count, by: 400) {
                try await Fixtures.append(store, world.viewerDevice.id, Array(hidden[start..<start + 400]))
            }
            #expect(try answers() == alone)
        }
    }
}
