import Foundation
import PostgresClient
import PostgresStore
import PostgresTestSupport
import StoreTestSupport
import Testing
import Tracking

/// `fod db check --database`: a consistent database passes; a stale latest location, a gap in
/// a group's event ids and a fix filed under the wrong cell are each found.
@Suite("PostgreSQL consistency check", .enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
struct PostgresConsistencyTests {
    @Test func eachBrokenPromiseIsFound() async throws {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_check_\(UUID().uuidString.prefix(8).lowercased())"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        defer { _ = try? Connection(server.url).execute("DROP DATABASE \(name) WITH (FORCE)") }
        let store = try PostgresStore.open(server.url(database: name), readerCount: 2)
        defer { store.close() }
        let world = try await SharingWorld.make(store, viewerShares: true)
        try await Fixtures.append(store, world.device.id, (1...30).map { Fixtures.fix(Int64($0) * 1_000) })
        try await Fixtures.append(store, world.viewerDevice.id, (1...5).map { Fixtures.fix(Int64($0) * 1_000, longitude: 13.4, latitude: 52.5) })
        let clean = try store.consistency(pageSize: 7)
        #expect(clean.problems == [])
        #expect(clean.fixes == 35 && clean.schemaVersion == PostgresStore.knownSchemaVersion)

        let sql = try Connection(server.url(database: name))
        try sql.execute("UPDATE devices SET last_ts = last_ts - 1000 WHERE key = (SELECT min(key) FROM devices WHERE last_ts IS NOT NULL)")
        try sql.execute("DELETE FROM events WHERE (group_id, id) = (SELECT group_id, min(id) + 1 FROM events GROUP BY group_id LIMIT 1)")
        try sql.execute("UPDATE fixes SET cell = cell + 2 WHERE (device_key, ts) = (SELECT device_key, max(ts) FROM fixes GROUP BY device_key LIMIT 1)")
        let broken = try store.consistency(pageSize: 7)
        #expect(broken.problems.count == 3, "\(broken.problems)")
        #expect(broken.problems.contains { $0.contains("latest location") })
        #expect(broken.problems.contains { $0.contains("a gap") })
        #expect(broken.problems.contains { $0.hasPrefix("1 fixes whose cell") })
    }
}
