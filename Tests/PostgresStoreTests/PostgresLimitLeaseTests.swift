import Foundation
import PostgresClient
import PostgresStore
import PostgresTestSupport
import Testing
import Tracking

/// Two nodes on one database share a device's token bucket although each takes several tokens
/// at a time: requests alternating between them are admitted exactly as often as the bucket
/// holds tokens, never more.
@Suite("PostgreSQL token buckets across nodes", .enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
struct PostgresLimitLeaseTests {
    @Test func twoNodesAlternatingNeverGetMoreThanTheBucket() throws {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_lease_\(UUID().uuidString.prefix(8).lowercased())"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        defer { _ = try? Connection(server.url).execute("DROP DATABASE \(name) WITH (FORCE)") }
        let nodes = try (0..<2).map { _ in try PostgresStore.open(server.url(database: name), readerCount: 1, writerCount: 1) }
        defer { for node in nodes { node.close() } }
        let limit = BucketLimit(scope: "device-requests", perSecond: 0.001, burst: 40)
        let now: Int64 = 1_793_491_200_000
        var admitted = [0, 0]
        for attempt in 0..<90 where try nodes[attempt % 2].limitCounters.take(limit, key: "dev_1", now: now) == nil {
            admitted[attempt % 2] += 1
        }
        #expect(admitted[0] + admitted[1] == 40, "\(admitted)")
        #expect(admitted[0] > 0 && admitted[1] > 0)
    }
}
