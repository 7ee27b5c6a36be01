// Why one file of ~500 lines: one suite for the index merger's contract (merged and unmerged
// fixes answer alike, at every point of a merge cycle); its cases share the fixtures below.

@testable import SQLiteStore
import Foundation
import GeoKit
import GeoQuery
import JSONCore
import LocationFormats
import Synchronization
import Testing
import TestRandom
@testable import Tracking
import Storage
import HTTPServer
import StoreTestSupport
import TrackingTestSupport

/// The ingest path stores fixes in `locations` and `index_queue`; merges move them into
/// `cell_index` / `client_ids` later. Whatever the mix of merged and unmerged fixes — and across
/// restarts, deletions and duplicates — geo queries, history and dedupe must answer exactly as
/// if every fix were in one table. A seeded random sequence of operations is checked against a
/// plain in-memory model after every step.
/// The SQLite store's two-stage index (index_queue merged into cell_index later); PostgreSQL
/// indexes each fix in its append's transaction.
@Suite struct IndexMergeTests {
    /// Runs awaited work off the cooperative pool, for a test thread that blocks on it.
    static let waitExecutor = HandlerExecutor(label: "fod.test.merge-wait")

    /// One stored fix in the model.
    struct ModelFix: Hashable {
        let deviceKey: DeviceKey
        let clientID: String?
        let timestamp: Int64
        let longitude: Double
        let latitude: Double
    }

    /// A backend with merging under the test's control, reopened on demand (a restart).
    final class World {
        let directory = NSTemporaryDirectory() + "fod-merge-" + UUID().uuidString
        var backend: SQLiteBackend
        var deviceIDs: [DeviceID] = []
        var keys: [DeviceID: DeviceKey] = [:]

        init(devices: Int) async throws {
            backend = try SQLiteBackend.open(directory: directory, synchronous: .normal, merging: .manual)
            let user = try await Fixtures.user(backend, "model")
            for i in 0..<devices {
                deviceIDs.append(try await Fixtures.device(backend, owner: user.id, name: "d\(i)").id)
            }
            keys = try backend.read { db in
                Dictionary(uniqueKeysWithValues: try db.rows("SELECT id, key FROM devices", []) { (DeviceID($0.string(0)), DeviceKey(storeValue: $0.int64(1))) })
            }
        }

        func restart() throws {
            backend.close()
            backend = try SQLiteBackend.open(directory: directory, synchronous: .normal, merging: .manual)
        }

        func close() {
            backend.close()
            try? FileManager.default.removeItem(atPath: directory)
        }

        var readable: [DeviceKey: SharedDevice] {
            Dictionary(uniqueKeysWithValues: deviceIDs.map { id in
                (keys[id]!, SharedDevice(key: keys[id]!, deviceID: id, userID: "u", last: nil))
            })
        }
    }

    static let centers = [(lon: 2.35, lat: 48.85), (lon: -74.0, lat: 40.7), (lon: 139.7, lat: 35.7)]

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func queriesHistoryAndDedupeMatchAModelThroughMergesRestartsAndDeletes(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let world = try await World(devices: 4)
        defer { world.close() }
        var model: [ModelFix] = []
        var nextID = 0
        /// A merge cycle in progress: its chunks commit between the other operations.
        var cycle: MergeStepper?

        for step in 0..<120 {
            let roll = random.unit()
            if roll < 0.55 {
                // Append a batch: new fixes, resent fixes (same id), id-less fixes on used timestamps.
                let device = world.deviceIDs[Int(random.next() % 4)]
                let key = world.keys[device]!
                var batch: [Fix] = []
                for _ in 0..<(1 + Int(random.next() % 40)) {
                    let reuse = random.unit()
                    let old = model.filter { $0.deviceKey == key }
                    if reuse < 0.15, let again = old.randomElement(using: &random), again.clientID != nil {
                        batch.append(Fix(longitude: again.longitude, latitude: again.latitude, timestamp: again.timestamp + 1,
                                         clientID: again.clientID))
                        continue
                    }
                    let center = Self.centers[Int(random.next() % 3)]
                    let p = LatLng(random.pointNear(LatLng(degreesLatitude: center.lat, longitude: center.lon).toPoint(),
                                                    within: 0.003))
                    let timestamp = 1_700_000_000_000 + Int64(random.next() % 400) * 1_000
                    let clientID: String? = random.unit() < 0.6 ? { nextID += 1; return "c\(nextID)" }() : nil
                    batch.append(Fix(longitude: p.lng.degrees, latitude: p.lat.degrees, timestamp: timestamp, clientID: clientID))
                }
                var expectedAccepted = 0
                for fix in batch {
                    let mine = model.filter { $0.deviceKey == key }
                    let duplicate = fix.clientID.map { id in mine.contains { $0.clientID == id } }
                        ?? mine.contains { $0.timestamp == fix.timestamp }
                    if !duplicate {
                        expectedAccepted += 1
                        model.append(ModelFix(deviceKey: key, clientID: fix.clientID, timestamp: fix.timestamp,
                                              longitude: fix.longitude, latitude: fix.latitude))
                    }
                }
                let outcome = try await world.backend.append(deviceID: device, fixes: batch, events: .standard) { _ in }
                #expect(outcome.accepted == expectedAccepted, "step \(step): accepted")
                #expect(outcome.duplicates == batch.count - expectedAccepted, "step \(step): duplicates")
            } else if roll < 0.75 {
                if cycle == nil {
                    cycle = try world.backend.beginMerge(batch: 1 + Int(random.next() % 120), chunk: 1 + Int(random.next() % 25))
                }
                // One chunk a commit, or several (the merger's commits while ingest runs).
                if let running = cycle, try await !running.step(pieces: 1 + Int(random.next() % 3)) { cycle = nil }
            } else if roll < 0.85 {
                let device = world.deviceIDs[Int(random.next() % 4)]
                let key = world.keys[device]!
                let before = 1_700_000_000_000 + Int64(random.next() % 150) * 1_000
                let deleted = try await world.backend.deleteHistory(deviceID: device, before: before)
                let gone = model.filter { $0.deviceKey == key && $0.timestamp < before }
                model.removeAll { $0.deviceKey == key && $0.timestamp < before }
                #expect(deleted == gone.count, "step \(step): deleted")
            } else if roll < 0.92 {
                cycle = nil   // interrupted: the next cycle starts again from the stored merge point
                try world.restart()
            } else {
                cycle = nil
                try await world.backend.drainIndex(batch: 1 + Int(random.next() % 500), chunk: 1 + Int(random.next() % 100))
                #expect(world.backend.unmergedCount == 0)
            }
            try check(world, model, &random, step: step)
        }
        try await world.backend.drainIndex()
        try check(world, model, &random, step: -1)
        let counts = try world.backend.read { db in
            try ["locations", "cell_index", "index_queue"].map { table in
                try db.firstRow("SELECT count(*) FROM \(table)", []) { $0.int(0) } ?? -1
            }
        }
        #expect(counts == [model.count, model.count, 0])
    }

    /// History per device, a cap query and a `$near` query against the model; `fod db check`'s
    /// index consistency.
    func check(_ world: World, _ model: [ModelFix], _ random: inout SplitMix64, step: Int) throws {
        let consistency = try world.backend.read { try IndexConsistency.check($0) }
        #expect(consistency.isConsistent && consistency.history == model.count, "step \(step): \(consistency)")
        for device in world.deviceIDs {
            let key = world.keys[device]!
            let page = try world.backend.history(deviceID: device, from: nil, to: nil, after: nil, limit: 10_000)
            let expected = model.filter { $0.deviceKey == key }.map { [$0.timestamp] }.sorted { $0[0] < $1[0] }
            #expect(page.fixes.map { [$0.fix.timestamp] } == expected, "step \(step): history of \(device)")
        }
        let center = Self.centers[Int(random.next() % 3)]
        let radiusMeters = random.uniform(50, 400)
        let within = try GeoFilter.parse(JSONParser.parse(Array("""
            {"$geoWithin":{"$centerSphere":[[\(center.lon),\(center.lat)],\(radiusMeters / 6_378_100)]}}
            """.utf8)))
        let service = GeoQueryService(index: world.backend, directory: world.backend)
        var explain = QueryExplain()
        let found = try service.queryHistory(within, readable: world.readable, from: nil, to: nil, limit: 10_000, &explain)
        let expectedWithin = model.filter { within.matchesStored(longitude: $0.longitude, latitude: $0.latitude) }
        #expect(found.map { "\($0.deviceID)@\($0.timestamp)/\($0.longitude),\($0.latitude)" }.sorted()
                == expectedWithin.map { fix in
                    "\(world.keys.first { $0.value == fix.deviceKey }!.key)@\(fix.timestamp)/\(fix.longitude),\(fix.latitude)"
                }.sorted(), "step \(step): $geoWithin")

        let near = try GeoFilter.parse(JSONParser.parse(Array("""
            {"$near":{"$geometry":{"type":"Point","coordinates":[\(center.lon),\(center.lat)]}}}
            """.utf8)))
        guard case .near(let nearQuery) = near else { Issue.record("not a $near filter"); return }
        let k = 1 + Int(random.next() % 20)
        let nearest = try service.queryHistory(near, readable: world.readable, from: nil, to: nil, limit: k, &explain)
        let expectedDistances = model.map { nearQuery.distance(to: LatLng(degreesLatitude: $0.latitude, longitude: $0.longitude).toPoint()) }
            .sorted().prefix(k)
        #expect(nearest.map { $0.distance ?? -1 } == Array(expectedDistances), "step \(step): $near k=\(k)")
    }

    /// `firstCell` (what `$near`'s probes ask) finds the least accepted key whether it is in
    /// `cell_index` or among the unmerged fixes, which a scan yields after the merged ones.
    @Test func firstCellSeesMergedAndUnmergedFixesInKeyOrder() async throws {
        let world = try await World(devices: 2)
        defer { world.close() }
        let places = [(lon: 2.35, lat: 48.85), (lon: 2.36, lat: 48.86)].map { place in
            (place, CellID(LatLng(degreesLatitude: place.lat, longitude: place.lon)).int64Key)
        }.sorted { $0.1 < $1.1 }
        let (low, high) = (places[0], places[1])
        let (merged, unmerged) = (world.deviceIDs[0], world.deviceIDs[1])
        // The greater key is merged into cell_index, the lesser stays unmerged.
        _ = try await world.backend.append(deviceID: merged, fixes: [Fix(longitude: high.0.lon, latitude: high.0.lat, timestamp: 1_000)],
                                           events: .standard) { _ in }
        try await world.backend.drainIndex()
        _ = try await world.backend.append(deviceID: unmerged, fixes: [Fix(longitude: low.0.lon, latitude: low.0.lat, timestamp: 2_000)],
                                           events: .standard) { _ in }
        #expect(world.backend.unmergedCount == 1)
        let everything = Int64.min...Int64.max
        let unmergedKey = world.keys[unmerged]!
        let (any, mergedOnly, none, below) = try world.backend.withReader { reader in
            (try reader.firstCell(in: everything, from: nil, to: nil) { _ in true },
             try reader.firstCell(in: everything, from: nil, to: nil) { $0.deviceKey != unmergedKey },
             try reader.firstCell(in: everything, from: nil, to: nil) { _ in false },
             try reader.firstCell(in: everything, from: nil, to: 1_500) { _ in true })
        }
        #expect(any == low.1)
        #expect(mergedOnly == high.1)
        #expect(none == nil)
        #expect(below == high.1)
    }

    @Test func unmergedFixesSurviveARestartAndStillDeduplicate() async throws {
        let world = try await World(devices: 1)
        defer { world.close() }
        let device = world.deviceIDs[0]
        let fixes = (0..<5).map { Fix(longitude: 2.35 + Double($0) * 1e-4, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64($0), clientID: "r\($0)") }
        let first = try await world.backend.append(deviceID: device, fixes: fixes, events: .standard) { _ in }
        #expect(first.accepted == 5)
        #expect(world.backend.unmergedCount == 5)
        try world.restart()
        #expect(world.backend.unmergedCount == 5)
        let again = try await world.backend.append(deviceID: device, fixes: fixes, events: .standard) { _ in }
        #expect(again.accepted == 0 && again.duplicates == 5)
        try await world.backend.drainIndex()
        let third = try await world.backend.append(deviceID: device, fixes: fixes, events: .standard) { _ in }
        #expect(third.accepted == 0 && third.duplicates == 5)
        // New fixes after the restart continue the sequence (never reuse a stored fix's number).
        let more = try await world.backend.append(deviceID: device, fixes: [Fix(longitude: 2.36, latitude: 48.85, timestamp: 1_700_000_001_000)], events: .standard) { _ in }
        #expect(more.stored.map(\.sequence) == [first.stored.map(\.sequence).max()! + 1])
    }

    /// Idle-triggered (ingest paused) and age-triggered (idle never reached) merging.
    /// With `quietChunk` below `chunk` (the last two), the idle-triggered cycle commits a piece at
    /// a time and the age-triggered one several (appends within `idleMilliseconds`).
    @Test(arguments: [MergePolicy(idleMilliseconds: 1, cycleBatch: 7, chunk: 3),
                      MergePolicy(idleMilliseconds: 86_400_000, maxAgeSeconds: 0.001, cycleBatch: 7, chunk: 3),
                      MergePolicy(idleMilliseconds: 1, cycleBatch: 7, chunk: 4, quietChunk: 2),
                      MergePolicy(idleMilliseconds: 86_400_000, maxAgeSeconds: 0.001, cycleBatch: 7, chunk: 4, quietChunk: 2)])
    func automaticMergingCatchesUp(policy: MergePolicy) async throws {
        let directory = NSTemporaryDirectory() + "fod-merge-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal, merging: policy)
        defer { backend.close() }
        let user = try await Fixtures.user(backend, "auto")
        let device = try await Fixtures.device(backend, owner: user.id, name: "d")
        for batch in 0..<3 {
            let fixes = (0..<10).map { Fix(longitude: 1, latitude: 2, timestamp: 1_700_000_000_000 + Int64(batch * 10 + $0), clientID: "a\(batch)-\($0)") }
            _ = try await backend.append(deviceID: device.id, fixes: fixes, events: .standard) { _ in }
        }
        // Liveness, not timing: the deadline only keeps a broken merger from hanging the suite.
        #expect(backend.waitUntilAllMerged(deadline: Date().addingTimeInterval(60)))
        let merged = try backend.read { db in try db.firstRow("SELECT count(*) FROM cell_index", []) { $0.int(0) } }
        #expect(merged == 30)
    }

    /// A cycle that replaces an interrupted one finishes that one's batch first: a bigger batch
    /// would commit lower cells first, and its merge point would stop covering what the
    /// interrupted cycle had merged, which a restart would then load into the mirror again (a
    /// query would find those fixes twice).
    @Test func aCycleReplacingAnInterruptedOneNeverUncoversWhatThatOneMerged() async throws {
        let world = try await World(devices: 1)
        defer { world.close() }
        let device = world.deviceIDs[0]
        // Twenty points along a street; the first append gets the ten with the highest cells.
        let points = (0..<20).map { LatLng(degreesLatitude: 48.85, longitude: 2.35 + Double($0) * 1e-4) }
            .sorted { CellID($0).int64Key > CellID($1).int64Key }
        func fixes(_ range: Range<Int>, from start: Int64) -> [Fix] {
            range.map { i in Fix(longitude: points[i].lng.degrees, latitude: points[i].lat.degrees, timestamp: start + Int64(i), clientID: "p\(i)") }
        }
        _ = try await world.backend.append(deviceID: device, fixes: fixes(0..<10, from: 1_700_000_000_000), events: .standard) { _ in }
        let first = try #require(try world.backend.beginMerge(batch: 100, chunk: 3))
        #expect(try await first.step())   // the three lowest cells of the batch merged; then a crash
        _ = try await world.backend.append(deviceID: device, fixes: fixes(10..<20, from: 1_700_000_001_000), events: .standard) { _ in }
        try world.restart()
        let second = try #require(try world.backend.beginMerge(batch: 100, chunk: 3))
        #expect(try await second.step())
        try world.restart()
        // Every fix once: in the cell index or in the mirror, never in both.
        let indexed = try world.backend.read { db in try db.firstRow("SELECT count(*) FROM cell_index", []) { $0.int(0) } ?? -1 }
        #expect(indexed + world.backend.unmergedCount == 20)
        let service = GeoQueryService(index: world.backend, directory: world.backend)
        var explain = QueryExplain()
        let street = try GeoFilter.parse(JSONParser.parse(Array(#"{"$geoWithin":{"$centerSphere":[[2.351,48.85],0.0002]}}"#.utf8)))
        let found = try service.queryHistory(street, readable: world.readable, from: nil, to: nil, limit: 100, &explain)
        #expect(found.count == 20 && Set(found.map(\.timestamp)).count == 20)
        let model = (fixes(0..<10, from: 1_700_000_000_000) + fixes(10..<20, from: 1_700_000_001_000)).map {
            ModelFix(deviceKey: world.keys[device]!, clientID: $0.clientID, timestamp: $0.timestamp, longitude: $0.longitude, latitude: $0.latitude)
        }
        var random = SplitMix64(seed: 7)
        try check(world, model, &random, step: 0)
        try await world.backend.drainIndex()
        try check(world, model, &random, step: 1)
    }

    @Test func aCycleInterruptedAfterItsCellPhaseIsFinishedAfterARestart() async throws {
        let world = try await World(devices: 1)
        defer { world.close() }
        let fixes = (0..<20).map { Fix(longitude: 2.35 + Double($0) * 1e-3, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64($0), clientID: "i\($0)") }
        _ = try await world.backend.append(deviceID: world.deviceIDs[0], fixes: fixes, events: .standard) { _ in }
        let cycle = try #require(try world.backend.beginMerge(batch: 100, chunk: 8))
        while world.backend.unmergedCount > 0 { #expect(try await cycle.step()) }
        // Cells merged, client ids not yet: stop here, as a crash would.
        world.backend.close()
        world.backend = try SQLiteBackend.open(directory: world.directory, synchronous: .normal,
                                               merging: MergePolicy(idleMilliseconds: 1, maxAgeSeconds: 0.001))
        #expect(world.backend.unmergedCount == 0)
        #expect(world.backend.waitUntilAllMerged(deadline: Date().addingTimeInterval(60)))
        let counts = try world.backend.read { db in
            try ["cell_index", "client_ids", "index_queue"].map { table in try db.firstRow("SELECT count(*) FROM \(table)", []) { $0.int(0) } ?? -1 }
        }
        #expect(counts == [20, 20, 0])
        let again = try await world.backend.append(deviceID: world.deviceIDs[0], fixes: fixes, events: .standard) { _ in }
        #expect(again.duplicates == 20)
    }

    /// Queries racing appends and continuous merge commits: every fix committed before a query
    /// began is found, and none twice (in the cell index and in the mirror at once).
    @Test func queriesDuringMergesSeeEveryCommittedFixOnce() async throws {
        let directory = NSTemporaryDirectory() + "fod-race-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal,
                                             merging: MergePolicy(idleMilliseconds: 1, maxAgeSeconds: 0, cycleBatch: 60, chunk: 5))
        defer { backend.close() }
        let user = try await Fixtures.user(backend, "race")
        let device = try await Fixtures.device(backend, owner: user.id, name: "d")
        let key = try backend.read { db in try db.firstRow("SELECT key FROM devices WHERE id = ?", [.text(device.id.rawValue)]) { DeviceKey(storeValue: $0.int64(0)) } }!
        let readable = [key: SharedDevice(key: key, deviceID: device.id, userID: user.id, last: nil)]
        let within = try GeoFilter.parse(JSONParser.parse(Array(#"{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.001]}}"#.utf8)))
        let service = GeoQueryService(index: backend, directory: backend)
        let committed = Mutex<Set<Int64>>([])
        let writer = Task {
            for batch in 0..<80 {
                let fixes = (0..<15).map { i in
                    Fix(longitude: 2.35 + Double(i) * 1e-4, latitude: 48.85 + Double(batch) * 1e-5,
                        timestamp: 1_700_000_000_000 + Int64(batch * 15 + i), clientID: i % 2 == 0 ? "r\(batch)-\(i)" : nil)
                }
                _ = try await backend.append(deviceID: device.id, fixes: fixes, events: .standard) { _ in }
                committed.withLock { $0.formUnion(fixes.map(\.timestamp)) }
            }
        }
        var queries = 0
        while true {
            let finished = writer.isCancelled || committed.withLock { $0.count } == 80 * 15
            let before = committed.withLock { $0 }
            var explain = QueryExplain()
            let found = try service.queryHistory(within, readable: readable, from: nil, to: nil, limit: 10_000, &explain).map(\.timestamp)
            #expect(found.count == Set(found).count, "a fix appears twice")
            #expect(before.isSubset(of: Set(found)), "a committed fix is missing")
            queries += 1
            if finished { break }
            await Task.yield()
        }
        try await writer.value
        #expect(queries > 1)
    }

    /// A merge that commits after a query's snapshot began but before it took the mirror: the
    /// mirror no longer has the merged fixes and the snapshot does not have them indexed, so
    /// the query must take a new snapshot rather than miss them. `joined`: inside a request's
    /// joined read transaction (`readingTogether`, begun before the merge by an earlier read),
    /// whose snapshot never advances, so the retry takes one of its own (it looped on the
    /// joined one forever, spinning the request's thread).
    @Test(arguments: [false, true])
    func aQueryOverlappingAMergeCommitRetriesWithANewSnapshot(joined: Bool) async throws {
        let world = try await World(devices: 1)
        defer { world.close() }
        let fixes = (0..<30).map { Fix(longitude: 2.35 + Double($0) * 1e-4, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64($0)) }
        _ = try await world.backend.append(deviceID: world.deviceIDs[0], fixes: fixes, events: .standard) { _ in }
        let backend = world.backend
        backend.readerTestHook.withLock { $0 = {
            let merged = DispatchSemaphore(value: 0)
            // Not on the cooperative pool: this thread, blocked below, may be one of its two.
            Task(executorPreference: Self.waitExecutor) { try await backend.drainIndex(); merged.signal() }
            merged.wait()
        } }
        let within = try GeoFilter.parse(JSONParser.parse(Array(#"{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.001]}}"#.utf8)))
        let readable = world.readable
        func query() throws -> [GeoQueryResult] {
            var explain = QueryExplain()
            return try GeoQueryService(index: backend, directory: backend)
                .queryHistory(within, readable: readable, from: nil, to: nil, limit: 100, &explain)
        }
        let found = joined
            ? try backend.readingTogether {
                // The joined transaction's snapshot begins here, before the merge.
                _ = try backend.read { db in try db.firstRow("SELECT count(*) FROM cell_index", []) { $0.int(0) } }
                return try query()
            }
            : try query()
        #expect(backend.unmergedCount == 0)
        #expect(found.count == 30)
    }

    @Test func aRolledBackJobWithdrawsItsClientIDsAndEntries() {
        let mirror = UnmergedFixes()
        let key = UnmergedFixes.ClientKey(deviceKey: 1, clientID: "a")
        let entry = IndexEntry(cell: 5, deviceKey: DeviceKey(storeValue: 1), timestamp: 0, sequence: 1, longitude: 0, latitude: 0)
        mirror.jobWillRun()
        mirror.add([entry])
        _ = mirror.stageClientIDIfAbsent(key)
        #expect(mirror.containsClientID(key))   // later jobs of the same transaction see it
        mirror.jobRolledBack()
        #expect(!mirror.containsClientID(key))
        mirror.transactionCommitted()
        #expect(mirror.count == 0)

        mirror.jobWillRun()
        mirror.add([entry])
        _ = mirror.stageClientIDIfAbsent(key)
        #expect(mirror.count == 0)              // not visible to readers before the commit
        mirror.transactionRolledBack()
        #expect(!mirror.containsClientID(key) && mirror.count == 0)

        mirror.jobWillRun()
        mirror.add([entry])
        _ = mirror.stageClientIDIfAbsent(key)
        mirror.transactionCommitted()
        #expect(mirror.containsClientID(key) && mirror.count == 1)
        let merged = MergePoint(mergedThrough: 1, cycleThrough: 1, cycleCell: .min, progress: 0)
        #expect(!mirror.snapshot().hasEntries(in: 0...10, from: .min, to: .max, point: merged))
        #expect(!mirror.snapshot().hasEntries(in: 0...10, from: .min, to: .max,
                                               point: MergePoint(mergedThrough: 0, cycleThrough: 1, cycleCell: 6, progress: 0)))
        #expect(mirror.snapshot().hasEntries(in: 0...10, from: .min, to: .max,
                                              point: MergePoint(mergedThrough: 0, cycleThrough: 1, cycleCell: 5, progress: 0)))
        #expect(mirror.snapshot().hasEntries(in: 0...10, from: .min, to: .max, point: .start))
    }
}

/// Of `fod db check`'s consistency check of the SQLite store's cell index against its history.
@Suite
struct IndexConsistencyTests {
    @Test func findsIndexedFixesMissingFromHistoryAndMergedFixesMissingFromTheIndex() async throws {
        let world = try await IndexMergeTests.World(devices: 1)
        defer { world.close() }
        let fixes = (0..<6).map { Fix(longitude: 2.35 + Double($0) * 1e-3, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64($0)) }
        _ = try await world.backend.append(deviceID: world.deviceIDs[0], fixes: Array(fixes[0..<4]), events: .standard) { _ in }
        try await world.backend.drainIndex()
        _ = try await world.backend.append(deviceID: world.deviceIDs[0], fixes: Array(fixes[4...]), events: .standard) { _ in }
        let sound = try world.backend.read { try IndexConsistency.check($0) }
        #expect(sound == IndexConsistency(history: 6, indexed: 4, queued: 2, orphans: 0, missing: 0))
        try await world.backend.write { db in
            try db.run("INSERT INTO cell_index (cell, device_key, ts, seq, lon, lat) VALUES (1, 99, 0, 0, 0, 0)")
            try db.run("DELETE FROM cell_index WHERE seq = (SELECT min(seq) FROM cell_index WHERE device_key <> 99)")
        }
        let broken = try world.backend.read { try IndexConsistency.check($0) }
        #expect(broken.orphans == 1 && broken.missing == 1 && !broken.isConsistent)
    }
}

/// A database written by the one-table layout (schema 4) moves to history + merged cell index.
/// Of a migration of the SQLite schema (schema 4's one table to history + cell index), which PostgreSQL never had.
@Suite
struct LocationLayoutMigrationTests {
    @Test func fixesOfSchemaFourBecomeMergedHistory() async throws {
        let directory = NSTemporaryDirectory() + "fod-migrate-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let db = try Database(path: directory + "/fod.sqlite")
            _ = try Migrator(Array(Schema.migrator.migrations.prefix(4))).migrate(db)
            try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES ('u', 'u@x', 'u', '!', 0)")
            try db.run("""
                INSERT INTO devices (key, id, owner_id, name, token_hash, created_at, last_lon, last_lat, last_ts)
                VALUES (7, 'd', 'u', 'd', 'h', 0, 2.352, 48.85, 1002)
                """)
            for (i, id) in ["a", nil, "c"].enumerated() {
                let cell = CellID(LatLng(degreesLatitude: 48.85, longitude: 2.35 + Double(i) * 1e-3)).int64Key
                try db.run("INSERT INTO fixes (cell, device_key, ts, seq, lon, lat, client_id) VALUES (?, 7, ?, ?, ?, 48.85, ?)",
                           [.integer(cell), .integer(1_000 + Int64(i)), .integer(10 + Int64(i)), .real(2.35 + Double(i) * 1e-3), .optional(id)])
            }
        }
        let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal, merging: .manual)
        defer { backend.close() }
        let counts = try backend.read { db in
            try ["locations", "cell_index", "client_ids", "index_queue"].map { table in
                try db.firstRow("SELECT count(*) FROM \(table)", []) { $0.int(0) } ?? -1
            }
        }
        #expect(counts == [3, 3, 2, 0])
        #expect(backend.unmergedCount == 0)
        let page = try backend.history(deviceID: "d", from: nil, to: nil, after: nil, limit: 10)
        #expect(page.fixes.map(\.sequence) == [10, 11, 12])
        // Dedupe sees the migrated client ids; new fixes continue the sequence.
        let again = try await backend.append(deviceID: "d", fixes: [Fix(longitude: 2.35, latitude: 48.85, timestamp: 5_000, clientID: "a"),
                                                                    Fix(longitude: 2.35, latitude: 48.85, timestamp: 1_001)], events: .standard) { _ in }
        #expect(again.accepted == 0 && again.duplicates == 2)
        let more = try await backend.append(deviceID: "d", fixes: [Fix(longitude: 2.36, latitude: 48.85, timestamp: 6_000)], events: .standard) { _ in }
        #expect(more.stored.map(\.sequence) == [13])
    }
}
