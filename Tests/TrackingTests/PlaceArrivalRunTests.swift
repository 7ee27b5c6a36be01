import EventJSON
import Foundation
import GeoKit
import JSONCore
import Testing
import TestRandom
@testable import Tracking

/// Arrivals evaluated run by run (each run of nearby fixes against the places the index finds for
/// it) give exactly what one evaluation of every fix against every place of the group gives.
@Suite struct PlaceArrivalRunTests {
    /// An in-memory ledger: presence, baseline and a place index built from the shapes' coverings.
    final class MemoryLedger: PlaceArrivalLedger {
        var places: [Int64: CachedPlace] = [:]
        var presence: [Int64: Bool] = [:]
        var baseline = false

        func groupHasPlaces(_ groupID: GroupID) throws -> Bool { !places.isEmpty }
        func hasBaseline(groupID: GroupID, device: DeviceKey) throws -> Bool { baseline }
        func presence(groupID: GroupID, device: DeviceKey) throws -> [Int64: Bool] { presence }
        func placeKeys(groupID: GroupID) throws -> Set<Int64> { Set(places.keys) }
        func placeKeys(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?) throws -> Set<Int64> {
            let wanted = Set(cells)
            return Set(places.filter { _, place in
                place.shape.covering.contains { wanted.contains($0.int64Key) || range?.contains($0.int64Key) == true }
            }.keys)
        }
        func place(key: Int64) throws -> CachedPlace? { places[key] }
        func places(groupID: GroupID, cells: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) throws -> [Int64: CachedPlace] {
            let keys = try placeKeys(groupID: groupID, cells: cells, range: range).union(including)
            return places.filter { keys.contains($0.key) }
        }
        func latestPositions(groupID: GroupID, baseline: Bool) throws -> [(device: DeviceKey, point: S2Point, accuracy: Double?)] { [] }
        func setPresence(groupID: GroupID, device: DeviceKey, placeKey: Int64, inside: Bool) throws { presence[placeKey] = inside }
        func setNotKnownIfAbsent(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws {
            if presence[placeKey] == nil { presence[placeKey] = false }
        }
        func removePresence(groupID: GroupID, device: DeviceKey, placeKey: Int64) throws { presence[placeKey] = nil }
        func setBaseline(groupID: GroupID, device: DeviceKey) throws { baseline = true }
    }

    /// The in-memory place index answers exactly what a scan of every place's cells answers.
    @Test func groupPlacesFindWhatAScanFinds() throws {
        var random = SplitMix64(seed: 7)
        let ledger = MemoryLedger()
        var cells: [(cell: Int64, placeKey: Int64)] = []
        for key in Int64(1)...40 {
            let region = try PlaceRegion.parse(geometry: .object(["type": .string("Point"), "coordinates": .array([
                .number(JSONNumber(2.30 + random.unit() * 0.1)), .number(JSONNumber(48.82 + random.unit() * 0.07))])]),
                radius: .number(JSONNumber(20 + random.unit() * 3_000)))
            let shape = PlaceShape(region: region)
            ledger.places[key] = CachedPlace(id: PlaceID("p\(key)"), name: "P\(key)", shape: shape)
            cells += shape.covering.map { ($0.int64Key, key) }
        }
        let group = GroupPlaces(version: 3, places: ledger.places, cells: cells.shuffled())
        for _ in 0..<300 {
            let leaves = (0..<Int(random.unit() * 4) + 1).map { _ in
                CellID(LatLng(degreesLatitude: 48.82 + random.unit() * 0.07, longitude: 2.30 + random.unit() * 0.1))
            }
            for lookup in PlaceArrivalRun.indexLookups(leaves: leaves) {
                #expect(group.keys(cells: lookup.cells, range: lookup.range)
                        == (try ledger.placeKeys(groupID: GroupID("g"), cells: lookup.cells, range: lookup.range)))
            }
        }
        let cache = PlaceIndexCache(capacity: 1_000)
        cache.keep([(GroupID("g"), group)])
        #expect(cache.places(groupID: GroupID("g"), version: 3) != nil && cache.places(groupID: GroupID("g"), version: 4) == nil)
        // A transaction's loads reach the cache only when its caller keeps them (after commit):
        // a rolled-back load could carry a version a later commit reuses for other places.
        let transaction = TransactionPlaces(cache: cache)
        let newer = transaction.places(groupID: GroupID("g"), version: { 4 }) { GroupPlaces(version: $0, places: ledger.places, cells: cells) }
        #expect(newer.version == 4 && cache.places(groupID: GroupID("g"), version: 4) == nil)
        #expect(transaction.places(groupID: GroupID("g"), version: { 5 }) { _ in group }.version == 4, "read once per transaction")
        cache.keep(transaction.loaded)
        #expect(cache.places(groupID: GroupID("g"), version: 4) != nil)
    }

    /// A device remembered inside that leaves and comes back within one append is still inside
    /// after it: the next append inside logs nothing, the next one outside logs its exit.
    @Test func leavingAndComingBackWithinOneAppendStaysInside() throws {
        let ledger = MemoryLedger()
        let region = try PlaceRegion.parse(geometry: .object(["type": .string("Point"), "coordinates": .array([
            .number(JSONNumber(2.35)), .number(JSONNumber(48.85))])]), radius: .number(JSONNumber(100)))
        ledger.places[1] = CachedPlace(id: PlaceID("p1"), name: "P1", shape: PlaceShape(region: region))
        ledger.baseline = true
        ledger.presence[1] = true
        let membership = DeviceSharing(groupID: GroupID("g"), userID: UserID("u"), windows: .all)
        func append(_ metersEast: [Double], at start: Int64) throws -> [String] {
            let positions = metersEast.enumerated().map { i, meters in
                PlaceArrivals.Position(longitude: 2.35 + meters / 73_300, latitude: 48.85, accuracyMeters: 5, timestamp: start + Int64(i) * 1_000)
            }
            return try PlaceArrivalRun.evaluate(positions, deviceID: DeviceID("d"), device: DeviceKey(storeValue: 1),
                                                membership: membership, ledger: ledger).map { EventJSON.data($0.payload, groupID: "g")["type"]?.stringValue ?? "?" }
        }
        #expect(try append([10, 400, 20], at: 1_000) == ["exit", "enter"])
        #expect(ledger.presence[1] == true)
        #expect(try append([30], at: 10_000) == [])
        #expect(try append([500], at: 20_000) == ["exit"])
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func runByRunMatchesEveryFixAgainstEveryPlace(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let ledger = MemoryLedger()
        // 60 circles of 30–400 m within ~8 km of a centre.
        for key in Int64(1)...60 {
            let lon = 2.30 + random.unit() * 0.10, lat = 48.82 + random.unit() * 0.07
            let region = try PlaceRegion.parse(geometry: .object(["type": .string("Point"), "coordinates": .array([
                .number(JSONNumber(lon)), .number(JSONNumber(lat))])]), radius: .number(JSONNumber(30 + random.unit() * 370)))
            ledger.places[key] = CachedPlace(id: PlaceID("p\(key)"), name: "P\(key)", shape: PlaceShape(region: region))
        }
        // The brute-force model: presence carried fix by fix against every place.
        var model: [Int64: PlacePresence?] = [:]
        var lon = 2.35, lat = 48.85, time: Int64 = 1_700_000_000_000
        var crossings = 0
        let membership = DeviceSharing(groupID: GroupID("g"), userID: UserID("u"), windows: .all)
        for append in 0..<12 {
            // A walk of 100 fixes, ~40 m apart (some inaccurate), in long straight stretches.
            var positions: [PlaceArrivals.Position] = []
            var heading = random.unit() * 2 * .pi
            for _ in 0..<100 {
                if random.unit() < 0.1 { heading = random.unit() * 2 * .pi }
                lon = min(2.42, max(2.28, lon + cos(heading) * 40 / 73_000))
                lat = min(48.90, max(48.80, lat + sin(heading) * 40 / 111_000))
                time += 5_000
                let accuracy = random.unit() < 0.1 ? 2_000 : random.unit() * 60
                positions.append(PlaceArrivals.Position(longitude: lon, latitude: lat, accuracyMeters: accuracy, timestamp: time))
            }
            let runs = PlaceArrivalRun.runs(of: positions)
            #expect(runs.flatMap { $0 } == Array(positions.indices) && runs.count > 1, "runs partition the walk in order")
            let expected: PlaceArrivals.Outcome<Int64>
            let baselineBefore = ledger.baseline
            let candidates = ledger.places.keys.sorted().map { key in
                PlaceArrivals.Candidate(key: key, shape: ledger.places[key]!.shape,
                                        remembered: baselineBefore ? (model[key] ?? .outside) : nil)
            }
            expected = PlaceArrivals.evaluate(positions, candidates: candidates)
            let entries = try PlaceArrivalRun.evaluate(positions, deviceID: DeviceID("d"), device: DeviceKey(storeValue: 1),
                                                       membership: membership, ledger: ledger)
            let expectedEvents = expected.crossings.map { "\($0.crossing) P\($0.key) @\(positions[$0.position].timestamp)" }
            let events = entries.map { entry in
                "\(EventJSON.data(entry.payload, groupID: "g")["type"]?.stringValue ?? "?") \(EventJSON.data(entry.payload, groupID: "g")["placeName"]?.stringValue ?? "?") @\(entry.fix?.timestamp ?? 0)"
            }
            #expect(events == expectedEvents, "append \(append)")
            crossings += events.count
            // Model update: as the store applies an outcome (inside kept, otherwise forgotten).
            for (key, presence) in expected.presence { model[key] = presence == .inside ? .some(.inside) : nil }
            if !baselineBefore {
                for candidate in candidates where expected.presence[candidate.key] == nil { model[candidate.key] = .some(nil) }
            }
            let stored = ledger.presence.mapValues { $0 ? PlacePresence.inside : nil }
            #expect(stored == model, "append \(append)")
        }
        #expect(crossings >= 10, "the walk crosses places (\(crossings) crossings)")
    }
}
