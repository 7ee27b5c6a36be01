import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Testing

/// Suites that need Patroni and etcd carry this trait: without them they are skipped, saying why
/// (`scripts/install-deps.sh` installs both for the tests).
let patroniAvailable = ConditionTrait.enabled(if: PatroniTestCluster.isAvailable, Comment(rawValue: PatroniTestCluster.unavailableReason))

/// Two nodes under ingest on a Patroni-run primary and synchronous standby (etcd as Patroni's
/// store, the nodes on libpq's multi-host URL): the primary's postmaster is killed, Patroni
/// promotes the standby by itself, and the nodes serve again — having answered only 503
/// meanwhile — with every acknowledged fix on the new primary.
@Suite("Cluster: Patroni fails over by itself", patroniAvailable, postgresAvailable)
struct PatroniFailoverTests {
    @Test func nodesServeAgainAfterThePrimaryIsKilledAndNothingAcknowledgedIsLost() throws {
        let database = try PatroniTestCluster.start()
        defer { database.stop() }
        let cluster = try Cluster(nodes: 2, databaseURL: database.url)
        defer { cluster.stop() }
        let watch = try LiveWatch(cluster, streamOn: 1)
        // A failover may also meet a member that is read-only for a moment: 503 `read_only`.
        let load = try IngestLoad.start(on: cluster, threads: 4, allowedUnavailableCodes: ["storage_unavailable", "read_only"])
        #expect(load.serving(since: Date()) != nil)

        let killed = Date()
        let old = try database.killPrimary()
        // Polls (bounded) until Patroni names another primary.
        var promoted: Date?
        while promoted == nil && Date().timeIntervalSince(killed) < 60 {
            if let now = try? database.primary(), now != old { promoted = Date() }
        }
        let promotion = try #require(promoted, "Patroni promoted no other member within 60 s")
        let resumed = load.serving(since: promotion)
        let outcome = load.stop()
        if let resumed {
            let total = promotion.timeIntervalSince(killed) + resumed
            print("PatroniFailoverTests: the nodes served writes and reads again \(String(format: "%.2f", total)) s after the "
                  + "primary's postmaster was killed (Patroni promoted the standby after \(String(format: "%.2f", promotion.timeIntervalSince(killed))) s; "
                  + "\(outcome.requests) requests, \(outcome.unavailable) answered 503)")
        }
        #expect(resumed != nil, "the nodes did not serve again within 60 s of the promotion")
        #expect(outcome.unexpected.isEmpty, "\(outcome.unexpected.prefix(10))")
        #expect(try load.missing(from: outcome).isEmpty)
        #expect(outcome.acknowledged.values.map(\.count).reduce(0, +) > 0)
        #expect(try database.primary() != old)
        try watch.expectFixPostedNow(on: 0)
    }
}
