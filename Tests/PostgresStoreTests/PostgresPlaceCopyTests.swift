import EventJSON
import Foundation
import PostgresClient
import PostgresStore
import PostgresTestSupport
import StoreTestSupport
import Testing
import Tracking

/// Each node keeps a copy of a group's places for its appends, by version (`place_versions`):
/// a rename, a reshape or a deletion on another node counts from the very next fix.
@Suite("PostgreSQL places across nodes", .enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
struct PostgresPlaceCopyTests {
    @Test func aPlaceChangedOnOneNodeCountsOnTheOtherFromTheNextFix() async throws {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_places_\(UUID().uuidString.prefix(8).lowercased())"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        defer { _ = try? Connection(server.url).execute("DROP DATABASE \(name) WITH (FORCE)") }
        let nodeA = try PostgresStore.open(server.url(database: name), readerCount: 2)
        defer { nodeA.close() }
        let nodeB = try PostgresStore.open(server.url(database: name), readerCount: 2)
        defer { nodeB.close() }
        let world = try await SharingWorld.make(nodeA)
        let home = Fixtures.circle(world.group, by: world.owner.id, longitude: 2.3500, latitude: 48.8500, name: "home")
        let shape = try home.shape()
        try await nodeA.writePlaces { tx in try tx.insertPlace(home, shape: shape) }
        func placeEvents(_ outcome: IngestOutcome) -> [String] {
            outcome.events.filter { $0.kind == .place }.map { "\(EventJSON.data($0)["type"]?.stringValue ?? "?") \(EventJSON.data($0)["placeName"]?.stringValue ?? "?")" }
        }
        // Node B reads the group's places (its first fix there sets the state silently), then uses its copy.
        #expect(placeEvents(try await Fixtures.append(nodeB, world.device.id, [Fixtures.fix(1_000)])) == [])
        #expect(placeEvents(try await Fixtures.append(nodeB, world.device.id, [Fixtures.fix(2_000, longitude: 2.3800)])) == ["exit home"])
        #expect(placeEvents(try await Fixtures.append(nodeB, world.device.id, [Fixtures.fix(3_000)])) == ["enter home"])
        // Renamed on node A: node B's next exit names it anew.
        let renamed = Place(id: home.id, groupID: home.groupID, name: "school", geometry: home.geometry, radiusMeters: home.radiusMeters,
                            createdBy: home.createdBy, createdAt: home.createdAt, updatedAt: home.updatedAt)
        try await nodeA.writePlaces { tx in try tx.updatePlace(renamed, shape: nil) }
        #expect(placeEvents(try await Fixtures.append(nodeB, world.device.id, [Fixtures.fix(4_000, longitude: 2.3800)])) == ["exit school"])
        // Deleted on node A: coming back logs nothing on node B.
        try await nodeA.writePlaces { tx in try tx.deletePlace(id: renamed.id) }
        #expect(placeEvents(try await Fixtures.append(nodeB, world.device.id, [Fixtures.fix(5_000)])) == [])
    }
}
