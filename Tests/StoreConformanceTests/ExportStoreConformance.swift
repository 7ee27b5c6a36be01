import StoreTestSupport
import Testing
import Tracking

/// `ExportStore`: who an export is of, and their positions in pages.
@Suite("Store conformance: exports")
struct ExportStoreConformance {
    @Test(arguments: StoreFactory.all)
    func subjectsAreTheSharersInDeviceIdOrderWithTheirWindows(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store, viewerShares: true)
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000, longitude: 1)])
            let subjects = try store.exportSubjects(groupID: world.group)
            #expect(subjects.map(\.deviceID) == [world.device.id, world.viewerDevice.id].sorted())
            let owner = try #require(subjects.first { $0.deviceID == world.device.id })
            #expect(owner.userID == world.owner.id && owner.displayName == "ann" && owner.deviceName == "phone")
            #expect(owner.last == LastLocation(longitude: 1, latitude: 48.85, timestamp: Fixtures.time(Fixtures.t0 + 1_000)))
            #expect(owner.windows == HistoryWindows([Fixtures.t0...Int64.max]))
            let viewer = try #require(subjects.first { $0.deviceID == world.viewerDevice.id })
            #expect(viewer.windows == HistoryWindows([(Fixtures.t0 + 1)...Int64.max]))
            let single = try #require(try store.exportSubject(deviceID: world.device.id))
            #expect(single.deviceKey == owner.deviceKey && single.windows == .all)
            #expect(try store.exportSubject(deviceID: .generate()) == nil)
            try await store.writeDirectory { tx in try tx.setSharing(groupID: world.group, userID: world.viewer.id, share: false) }
            #expect(try store.exportSubjects(groupID: world.group).map(\.deviceID) == [world.device.id])
        }
    }

    @Test(arguments: StoreFactory.all)
    func rowsComeInPagesOrderedByTimeAndCountedInTheRange(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let fixes = (0..<12).map { n in
                var fix = Fixtures.fix(Int64(11 - n) * 100, longitude: Double(11 - n))
                fix.altitude = n % 2 == 0 ? Double(n) : nil
                return fix
            }
            try await Fixtures.append(store, world.device.id, fixes)
            let key = try #require(try store.exportSubject(deviceID: world.device.id)).deviceKey
            #expect(try store.countRows(deviceKey: key, from: nil, to: nil) == 12)
            #expect(try store.countRows(deviceKey: key, from: Fixtures.t0 + 200, to: Fixtures.t0 + 500) == 4)
            var rows: [ExportRow] = []
            var cursor: HistoryCursor?
            while true {
                let page = try store.exportRows(deviceKey: key, from: Fixtures.t0 + 100, to: nil, after: cursor, limit: 5, detail: .positions)
                rows += page
                guard let last = page.last, page.count == 5 else { break }
                cursor = HistoryCursor(timestamp: last.timestamp, sequence: last.sequence)
            }
            #expect(rows.map(\.longitude) == (1...11).map(Double.init))
            #expect(rows.map(\.altitude) == fixes.prefix(11).reversed().map(\.altitude))
        }
    }

    @Test(arguments: StoreFactory.all)
    func rowsCarryEveryStoredFieldWhenAsked(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            var full = Fixtures.fix(100, longitude: 1.234_567_890_123)
            full.accuracy = 3.25
            full.altitude = -12.5
            full.speed = 12.0 * 1000 / 3600
            full.heading = 359.9
            full.battery = 55.5
            full.clientID = "phone-1"
            var bare = Fixtures.fix(200, longitude: 2)
            bare.accuracy = nil
            try await Fixtures.append(store, world.device.id, [full, bare])
            let key = try #require(try store.exportSubject(deviceID: world.device.id)).deviceKey
            let rows = try store.exportRows(deviceKey: key, from: nil, to: nil, after: nil, limit: 10, detail: .everything)
            try #require(rows.count == 2)
            let positions = try store.exportRows(deviceKey: key, from: nil, to: nil, after: nil, limit: 10, detail: .positions)
            #expect(positions.map(\.altitude) == [-12.5, nil] && positions.allSatisfy { $0.clientID == nil && $0.accuracy == nil })
            #expect(rows[0].longitude == full.longitude && rows[0].latitude == full.latitude && rows[0].timestamp == full.timestamp)
            #expect(rows[0].accuracy == 3.25 && rows[0].altitude == -12.5 && rows[0].speed == full.speed)
            #expect(rows[0].heading == 359.9 && rows[0].battery == 55.5 && rows[0].clientID == "phone-1")
            #expect(rows[1].accuracy == nil && rows[1].altitude == nil && rows[1].speed == nil && rows[1].heading == nil
                    && rows[1].battery == nil && rows[1].clientID == nil)
        }
    }
}
