import LocationFormats
import StoreTestSupport
import Testing
import Tracking

/// `LocationStore`: dedupe, arrival order, the latest location, history pages, deletes.
@Suite("Store conformance: locations")
struct LocationStoreConformance {
    @Test(arguments: StoreFactory.all)
    func duplicatesAreFoundByClientIdElseByTimestampAgainstStoredAndBatch(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let first = try await Fixtures.append(store, world.device.id, [
                Fixtures.fix(1_000, id: "a"), Fixtures.fix(2_000, id: "b"), Fixtures.fix(3_000),
            ])
            #expect(first.accepted == 3 && first.duplicates == 0)
            let second = try await Fixtures.append(store, world.device.id, [
                Fixtures.fix(9_000, id: "a"),          // stored id
                Fixtures.fix(3_000),                   // stored timestamp, no id
                Fixtures.fix(3_000, id: "c"),          // same timestamp, but an id decides: new
                Fixtures.fix(4_000, id: "d"),
                Fixtures.fix(5_000, id: "d"),          // id earlier in this batch
                Fixtures.fix(6_000), Fixtures.fix(6_000),  // timestamp earlier in this batch
            ])
            #expect(second.accepted == 3 && second.duplicates == 4)
            #expect(second.stored.map(\.fix.clientID) == ["c", "d", nil])
            // Another device may reuse the same ids and times.
            let other = try await Fixtures.append(store, world.viewerDevice.id, [Fixtures.fix(1_000, id: "a"), Fixtures.fix(3_000)])
            #expect(other.accepted == 2)
            let history = try store.history(deviceID: world.device.id, from: nil, to: nil, after: nil, limit: 100)
            #expect(history.fixes.map(\.fix.timestamp) == [1_000, 2_000, 3_000, 3_000, 4_000, 6_000].map { Fixtures.t0 + $0 })
        }
    }

    /// An import gives each point without an id one derived from its format, time and position
    /// (`ImportPointID`); the SQLite store keeps such ids in history only. Whichever way an id
    /// string first arrived — derived by an import, or chosen by a client (even one naming
    /// another point) — sending it again is a duplicate, and the same point from another format
    /// is a different id.
    @Test(arguments: StoreFactory.all)
    func anImportsDerivedIdsAreDuplicatesHoweverTheyWereSent(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            func imported(_ offset: Int64, longitude: Double = 2.35, format: ImportFormat = .googleRecords) -> Fix {
                var fix = Fixtures.fix(offset, longitude: longitude)
                fix.clientID = ImportPointID.make(for: fix, format: format)
                return fix
            }
            let points = (0..<5).map { imported(Int64($0) * 1_000, longitude: 2.35 + Double($0) * 1e-4) }
            #expect(try await Fixtures.append(store, world.device.id, points).accepted == 5)
            let again = try await Fixtures.append(store, world.device.id, points + [points[2]])
            #expect(again.accepted == 0 && again.duplicates == 6)
            // A client that sends an import's id for another fix of its own: already sent.
            var chosen = Fixtures.fix(50_000, id: points[1].clientID)
            #expect(try await Fixtures.append(store, world.device.id, [chosen]).duplicates == 1)
            // A client's own id that names a point not imported yet; the import of that point
            // then finds the id sent (before and after the store indexed it).
            let later = imported(60_000)
            chosen = Fixtures.fix(55_000, id: later.clientID)
            #expect(try await Fixtures.append(store, world.device.id, [chosen]).accepted == 1)
            #expect(try await Fixtures.append(store, world.device.id, [later]).duplicates == 1)
            // The same time and place from another format is another id: stored.
            #expect(try await Fixtures.append(store, world.device.id, [imported(0, format: .gpx)]).accepted == 1)
            let history = try store.history(deviceID: world.device.id, from: nil, to: nil, after: nil, limit: 100)
            #expect(history.fixes.count == 7)
            #expect(Set(history.fixes.compactMap(\.fix.clientID)).count == 7)
        }
    }

    @Test(arguments: StoreFactory.all)
    func theSameBatchPostedConcurrentlyIsStoredOnce(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let batch = (0..<50).map { Fixtures.fix(Int64($0) * 1_000, id: "fix-\($0)") }
            let outcomes = try await withThrowingTaskGroup(of: IngestOutcome.self) { tasks in
                for _ in 0..<3 { tasks.addTask { try await Fixtures.append(store, world.device.id, batch) } }
                return try await tasks.reduce(into: [IngestOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.map(\.accepted).reduce(0, +) == 50)
            #expect(outcomes.map(\.duplicates).reduce(0, +) == 100)
            let history = try store.history(deviceID: world.device.id, from: nil, to: nil, after: nil, limit: 1_000)
            #expect(history.fixes.count == 50)
        }
    }

    /// A batch sent again with one new fix, newest of all (every fix has a client id, so the
    /// stored ids are found by the unique index refusing the insert): the new fix is stored,
    /// becomes the latest and is logged once; nothing of the repeats is.
    @Test(arguments: StoreFactory.all)
    func aResentBatchWithANewNewestFixStoresAndLogsOnlyThatFix(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let sent = [Fixtures.fix(1_000, longitude: 1, id: "a"), Fixtures.fix(2_000, longitude: 2, id: "b")]
            #expect(try await Fixtures.append(store, world.device.id, sent).accepted == 2)
            let before = try Fixtures.events(store, world.group).count
            let again = try await Fixtures.append(store, world.device.id, sent + [Fixtures.fix(3_000, longitude: 3, id: "c")])
            #expect(again.accepted == 1 && again.duplicates == 2)
            #expect(again.stored.map(\.fix.clientID) == ["c"])
            #expect(again.newLatestSequence == again.stored.first?.sequence)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.lastLocation
                    == LastLocation(longitude: 3, latitude: 48.85, timestamp: Fixtures.time(Fixtures.t0 + 3_000)))
            let logged = try Fixtures.events(store, world.group).dropFirst(before)
            #expect(logged.map(\.kind) == [.location])
            #expect(again.events.map(\.id) == logged.map(\.id))
            let history = try store.history(deviceID: world.device.id, from: nil, to: nil, after: nil, limit: 100)
            #expect(history.fixes.map(\.fix.clientID) == ["a", "b", "c"])
        }
    }

    @Test(arguments: StoreFactory.all)
    func sequencesIncreaseInArrivalOrderAcrossDevices(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            var sequences: [Int64] = []
            for round in 0..<5 {
                for device in [world.device.id, world.viewerDevice.id] {
                    let outcome = try await Fixtures.append(store, device, [Fixtures.fix(Int64(round) * 10), Fixtures.fix(Int64(round) * 10 + 1)])
                    sequences += outcome.stored.map(\.sequence)
                }
            }
            #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
        }
    }

    @Test(arguments: StoreFactory.all)
    func theLatestLocationIsTheNewestByTimestampNotByArrival(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let newest = try await Fixtures.append(store, world.device.id, [Fixtures.fix(5_000, longitude: 5), Fixtures.fix(4_000, longitude: 4)])
            #expect(newest.newLatestSequence == newest.stored.first?.sequence)
            let late = try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000, longitude: 1)])
            #expect(late.newLatestSequence == nil)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.lastLocation
                    == LastLocation(longitude: 5, latitude: 48.85, timestamp: Fixtures.time(Fixtures.t0 + 5_000)))
            // Concurrent appends of one device, newest timestamp in a random one: it wins.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for offset in (10..<30).shuffled() {
                    tasks.addTask {
                        try await Fixtures.append(store, world.device.id, [Fixtures.fix(Int64(offset) * 1_000, longitude: Double(offset))])
                    }
                }
                try await tasks.waitForAll()
            }
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.lastLocation
                    == LastLocation(longitude: 29, latitude: 48.85, timestamp: Fixtures.time(Fixtures.t0 + 29_000)))
            #expect(try store.sharedDevices(groupID: world.group).first?.last?.longitude == 29)
        }
    }

    @Test(arguments: StoreFactory.all)
    func historyPagesAreOrderedByTimeThenArrivalAndClippedToTheRange(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            // Equal timestamps with ids: both kept, in arrival order.
            var fixes = (0..<25).map { Fixtures.fix(Int64(24 - $0) * 100) }
            fixes.append(Fixtures.fix(1_200, id: "same-time"))
            try await Fixtures.append(store, world.device.id, fixes)
            var pages: [[StoredFix]] = []
            var cursor: HistoryCursor?
            repeat {
                let page = try store.history(deviceID: world.device.id, from: Fixtures.t0 + 300, to: Fixtures.t0 + 2_000,
                                             after: cursor, limit: 4)
                pages.append(page.fixes)
                cursor = page.next
            } while cursor != nil && pages.count < 20
            let all = pages.flatMap { $0 }
            #expect(pages.dropLast().allSatisfy { $0.count == 4 })
            #expect(all.map(\.fix.timestamp) == ([300, 400, 500, 600, 700, 800, 900, 1_000, 1_100, 1_200, 1_200]
                + stride(from: 1_300, through: 2_000, by: 100).map { $0 }).map { Fixtures.t0 + Int64($0) })
            let ties = all.filter { $0.fix.timestamp == Fixtures.t0 + 1_200 }
            #expect(ties.map(\.fix.clientID) == [nil, "same-time"] && ties[0].sequence < ties[1].sequence)
            #expect(all.first?.fix == fixes[21])
            #expect(throws: TrackingError.self) {
                _ = try store.history(deviceID: .generate(), from: nil, to: nil, after: nil, limit: 10)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func deletingHistoryRemovesFixesRedactsTheirEventsAndRecomputesTheLatest(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await Fixtures.append(store, world.device.id, (1...5).map { Fixtures.fix(Int64($0) * 1_000, longitude: Double($0)) })
            #expect(try await store.deleteHistory(deviceID: world.device.id, before: Fixtures.t0 + 3_000) == 2)
            let left = try store.history(deviceID: world.device.id, from: nil, to: nil, after: nil, limit: 10).fixes
            #expect(left.map(\.fix.longitude) == [3, 4, 5])
            #expect(try Fixtures.events(store, world.group).map(\.kind) == [.redacted, .redacted, .location, .location, .location])
            // Everything up to the newest: the latest location falls back to none.
            #expect(try await store.deleteHistory(deviceID: world.device.id, before: Fixtures.t0 + 10_000) == 3)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.lastLocation == nil)
            // A deleted timestamp or client id may be stored again.
            let again = try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000)])
            #expect(again.accepted == 1)
        }
    }

    @Test(arguments: StoreFactory.all)
    func deletingTheNewestFixesRecomputesTheLatestFromWhatIsLeft(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            // Timestamps out of order; all old but one retained.
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(3_000, longitude: 3), Fixtures.fix(9_000, longitude: 9)])
            #expect(try await store.purge(before: Fixtures.t0 + 5_000, batch: 1) == 1)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.lastLocation?.longitude == 9)
            try await Fixtures.append(store, world.viewerDevice.id, (1...7).map { Fixtures.fix(Int64($0) * 100) })
            // Purge works through every device, `batch` rows a commit.
            #expect(try await store.purge(before: Fixtures.t0 + 10_000, batch: 2) == 8)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.lastLocation == nil)
            #expect(try store.withReader { try Scan.all($0, CellRange.world) }.isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func anUnknownDeviceIsNotFoundAndStoresNothing(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let error = await #expect(throws: TrackingError.self) {
                try await Fixtures.append(store, .generate(), [Fixtures.fix(0)])
            }
            #expect(error?.kind == .notFound)
        }
    }
}
