import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Testing
import Timestamps

/// A node on a primary with a synchronous streaming replica, reached through libpq's
/// multi-host URI: the primary dies, the node answers 503 (never a 500, never a crash), the
/// replica is promoted, the node follows it, and every acknowledged fix is there.
@Suite("Cluster: primary failover", postgresAvailable)
struct FailoverTests {
    @Test func noAcknowledgedFixIsLostWhenTheSynchronousReplicaTakesOver() throws {
        let primary = try PostgresTestServer.start()
        defer { primary.stop() }
        let replica = try primary.startReplica(name: "standby", synchronous: true)
        defer { replica.stop() }
        let url = "postgresql://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(replica.port)/postgres"
            + "?target_session_attrs=read-write&connect_timeout=5"
        let cluster = try Cluster(nodes: 1, databaseURL: url)
        defer { cluster.stop() }
        let ann = try cluster.signUp("ann", on: 0)
        let device = try cluster.addDevice(token: ann.token, on: 0)
        let start = Timestamp.nowMilliseconds() - 1_000_000
        var acknowledged: Set<String> = []
        for n in 0..<40 {
            let reply = try cluster.post([(lon: 1, lat: Double(n) / 10, ts: start + Int64(n) * 1_000, id: "f\(n)")], device: device, on: 0)
            if reply.status == 200 { acknowledged.insert("f\(n)") }
        }
        #expect(acknowledged.count == 40)

        primary.stop()
        // No writable server now: a clear 503, for writes and for reads.
        let refused = try cluster.post([(lon: 1, lat: 1, ts: start + 100_000, id: "during")], device: device, on: 0)
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.json["error"]["code"].string == "storage_unavailable")
        let read = try cluster.client(0).get("/v1/me", token: ann.token)
        #expect(read.status == 503, "\(read.text)")

        try replica.promote()
        // The node follows the promoted replica: the next requests work (each reconnects).
        var resumed = false
        for attempt in 0..<50 where !resumed {
            let reply = try cluster.post([(lon: 1, lat: 1, ts: start + 200_000 + Int64(attempt), id: "after")], device: device, on: 0)
            if reply.status == 200 { resumed = true } else { #expect(reply.status == 503, "\(reply.text)") }
        }
        #expect(resumed)
        let history = try cluster.client(0).get("/v1/devices/\(device.id)/locations?limit=1000", token: ann.token)
        #expect(history.status == 200)
        let stored = Set((0..<history.json["locations"].count).compactMap { history.json["locations"][$0]["id"].string })
        #expect(acknowledged.isSubset(of: stored))
        #expect(stored.contains("after"))
    }
}
