import EventJSON
import JSONCore
import StoreTestSupport
import Testing
import Tracking

/// `PlaceStore`: places in their group, presence set silently, arrivals logged on ingest.
@Suite("Store conformance: places")
struct PlaceStoreConformance {
    @Test(arguments: StoreFactory.all)
    func aDeviceArrivingAndLeavingLogsEnterAndExitAndPresenceFollows(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            // Already inside when the place is made: set silently, no event.
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000, longitude: 2.3500, latitude: 48.8500)])
            let home = Fixtures.circle(world.group, by: world.owner.id, longitude: 2.3500, latitude: 48.8500, name: "home")
            let shape = try home.shape()
            try await store.writePlaces { tx in try tx.insertPlace(home, shape: shape) }
            #expect(try store.readPlaces { try $0.places(groupID: world.group) } == [home])
            #expect(try store.readPlaces { try $0.placeCount(groupID: world.group) } == 1)
            #expect(try store.readPlaces { try $0.devicesInside(groupID: world.group) } == [home.id: [world.device.id]])
            let eventsBefore = try Fixtures.events(store, world.group).count
            // 2 km away: an exit; back: an enter.
            let away = try await Fixtures.append(store, world.device.id, [Fixtures.fix(2_000, longitude: 2.3800, latitude: 48.8500)])
            #expect(away.events.filter { $0.kind == .place }.map { EventJSON.data($0)["type"]?.stringValue } == ["exit"])
            #expect(try store.readPlaces { try $0.devicesInside(groupID: world.group) }.isEmpty)
            let back = try await Fixtures.append(store, world.device.id, [Fixtures.fix(3_000, longitude: 2.3501, latitude: 48.8500)])
            let enter = try #require(back.events.first { $0.kind == .place })
            #expect(EventJSON.data(enter)["type"]?.stringValue == "enter" && EventJSON.data(enter)["placeId"]?.stringValue == home.id.rawValue)
            #expect(try Fixtures.events(store, world.group).count == eventsBefore + 4)
            // Deleting the fixes redacts their place events too.
            _ = try await store.deleteHistory(deviceID: world.device.id, before: Fixtures.t0 + 10_000)
            #expect(try Fixtures.events(store, world.group).allSatisfy { $0.kind == .redacted })
            try await store.writePlaces { tx in try tx.deletePlace(id: home.id) }
            #expect(try store.readPlaces { try $0.places(groupID: world.group) }.isEmpty)
        }
    }
}
