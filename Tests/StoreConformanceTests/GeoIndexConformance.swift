import GeoKit
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
            func sharing() throws -> Set<DeviceID> { Set(try store.sharingDevices(groupID: world.group).byKey.values.map(\.deviceID)) }
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
