import EventJSON
import JSONCore
import StoreTestSupport
import Testing
import Tracking

/// `HistoryImportStore`: quiet batches, then one summary per sharing group in one transaction.
@Suite("Store conformance: history imports")
struct HistoryImportConformance {
    @Test(arguments: StoreFactory.all)
    func quietBatchesThenOneSummaryPerGroupThatShares(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let other = try await Fixtures.group(store, members: [(world.owner.id, world.device.id, true)])
            let sharing = try store.sharingWindows(deviceID: world.device.id)
            #expect(sharing.map(\.groupID) == [world.group, other].sorted())
            #expect(sharing.allSatisfy { $0.userID == world.owner.id && $0.windows == HistoryWindows([Fixtures.t0...Int64.max]) })
            #expect(try store.sharingWindows(deviceID: world.viewerDevice.id).isEmpty)

            var tally = ImportEventTally(deviceID: world.device.id, sharing: sharing)
            for batch in 0..<3 {
                await store.awaitIngestCapacity()
                let fixes = (0..<10).map { Fixtures.fix(Int64(batch * 10 + $0) * 1_000, longitude: Double(batch * 10 + $0)) }
                let outcome = try await Fixtures.append(store, world.device.id, fixes, rule: .quiet)
                #expect(outcome.accepted == 10 && outcome.events.isEmpty)
                tally.add(outcome)
            }
            #expect(try Fixtures.events(store, world.group).isEmpty)
            // The member stops sharing in `other` before the import ends: only `world.group` hears of it.
            try await store.writeDirectory { tx in try tx.setSharing(groupID: other, userID: world.owner.id, share: false) }
            let logged = try await store.logImportEvents(tally)
            #expect(logged.map(\.groupID) == [world.group, world.group])
            #expect(logged.map(\.kind) == [.locations, .location])
            #expect(logged.first.map { EventJSON.data($0) }?["count"] == .number(JSONNumber(30)))
            #expect(logged.last.map { EventJSON.data($0) }?["latest"] == .bool(true))
            #expect(try Fixtures.events(store, world.group) == logged)
            #expect(try Fixtures.events(store, other).isEmpty)
        }
    }
}
