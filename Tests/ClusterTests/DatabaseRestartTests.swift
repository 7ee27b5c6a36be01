import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Testing
import Timestamps

/// Two nodes under ingest while their database restarts or crashes: meanwhile they answer 503
/// `storage_unavailable` (never a 500, never a hang), afterwards they serve again by themselves
/// — writes, reads and the live feed — and every acknowledged fix is in the database.
@Suite("Cluster: the database restarts or crashes under ingest", postgresAvailable, .serialized)
struct DatabaseRestartTests {
    @Test func nodesServeAgainAfterTheDatabaseRestarts() throws {
        try checkOutage("fast restart") { server in try server.restart() }
    }

    @Test func nodesServeAgainAfterThePostmasterIsKilled() throws {
        try checkOutage("kill -9 of the postmaster") { server in
            try server.crash()
            try server.resume()
        }
    }

    /// A node idle through the restart finds its connections dead before it uses them: the
    /// first write and the first read afterwards succeed (no 503 for a database that is back).
    @Test(arguments: ["restart", "crash"])
    func theFirstRequestsAfterTheDatabaseIsBackSucceed(outage: String) throws {
        let server = try PostgresTestServer.start()
        defer { server.stop() }
        let cluster = try Cluster(nodes: 1, databaseURL: server.url)
        defer { cluster.stop() }
        let ann = try cluster.signUp("ann", on: 0)
        let device = try cluster.addDevice(token: ann.token, on: 0)
        let now = Timestamp.nowMilliseconds()
        #expect(try cluster.post([(lon: 1, lat: 1, ts: now, id: "before")], device: device, on: 0).status == 200)
        if outage == "restart" { try server.restart() } else {
            try server.crash()
            try server.resume()
        }
        let write = try cluster.post([(lon: 1, lat: 2, ts: now + 1_000, id: "after")], device: device, on: 0)
        #expect(write.status == 200, "\(write.text)")
        let read = try cluster.client(0).get("/v1/devices/\(device.id)/locations", token: ann.token)
        #expect(read.status == 200, "\(read.text)")
        #expect(read.json["locations"].count == 2)
    }

    /// Runs ingest, does `outage` (which returns once the database accepts connections again),
    /// and checks the cluster through it.
    private func checkOutage(_ name: String, _ outage: (PostgresTestServer) throws -> Void) throws {
        let server = try PostgresTestServer.start()
        defer { server.stop() }
        let cluster = try Cluster(nodes: 2, databaseURL: server.url(parameters: ["connect_timeout": "5"]))
        defer { cluster.stop() }
        let watch = try LiveWatch(cluster, streamOn: 1)
        let load = try IngestLoad.start(on: cluster, threads: 4)
        // Some ingest before: every client has succeeded once.
        #expect(load.serving(since: Date()) != nil)

        try outage(server)
        let accepting = Date()
        let resumed = load.serving(since: accepting)
        let outcome = load.stop()
        if let resumed {
            print("DatabaseRestartTests: after a \(name), the nodes served writes and reads again "
                  + "\(String(format: "%.2f", resumed)) s after the database accepted connections "
                  + "(\(outcome.requests) requests, \(outcome.unavailable) answered 503)")
        }
        #expect(resumed != nil, "the nodes did not serve again within 60 s of the database accepting connections")
        #expect(outcome.unexpected.isEmpty, "\(outcome.unexpected.prefix(10))")
        #expect(try load.missing(from: outcome).isEmpty)
        #expect(outcome.acknowledged.values.map(\.count).reduce(0, +) > 0)
        // The live feed on the other node carries a fix posted after the outage.
        try watch.expectFixPostedNow(on: 0)
    }
}

/// A group's live feed, watched on one node, that must carry a fix posted on another after an
/// outage: the stream either keeps going or ends so that the client resumes (`Last-Event-ID`).
final class LiveWatch {
    let cluster: Cluster
    let node: Int
    let owner: (id: String, token: String)
    let device: (id: String, token: String)
    let group: String
    private var reader: SSEReader
    private var lastEventID: String?

    init(_ cluster: Cluster, streamOn node: Int) throws {
        self.cluster = cluster
        self.node = node
        owner = try cluster.signUp("watch-\(UUID().uuidString.prefix(8))", on: 0)
        device = try cluster.addDevice(token: owner.token, on: 0)
        let made = try cluster.client(0).request("POST", "/v1/groups", token: owner.token,
                                                 json: #"{"name":"watched","deviceId":"\#(device.id)"}"#)
        guard made.status == 201, let id = made.json["id"].string else { throw TestFailure("group: \(made.text)") }
        group = id
        reader = try Self.open(cluster, node: node, group: group, token: owner.token, after: nil)
    }

    private static func open(_ cluster: Cluster, node: Int, group: String, token: String, after: String?) throws -> SSEReader {
        let client = try cluster.client(node)
        var headers = ["Authorization": "Bearer \(token)"]
        if let after { headers["Last-Event-ID"] = after }
        let head = try client.openStream("/v1/groups/\(group)/live", headers: headers)
        guard head.status == 200 else { throw TestFailure("live stream on node \(node): \(head.status)") }
        return SSEReader(client: client)
    }

    /// Posts a fix on `postNode` (trying again while the node answers 503, at most 60 s) and
    /// reads the stream until it arrives, resuming the stream when the node ended it.
    func expectFixPostedNow(on postNode: Int) throws {
        let marker = 42.25
        let deadline = Date().addingTimeInterval(60)
        var posted = false
        while !posted && Date() < deadline {
            let reply = try cluster.post([(lon: marker, lat: 1, ts: Timestamp.nowMilliseconds(), id: nil)], device: device, on: postNode)
            if reply.status == 200 { posted = true } else { #expect(reply.status == 503, "\(reply.text)") }
        }
        #expect(posted)
        var received = false
        while !received && Date() < deadline {
            let next: SSEReader.Event?
            do { next = try reader.nextEvent() } catch HTTPTestClient.ClientError.timeout {
                break  // nothing, not even a heartbeat or the end of the stream, for the client's timeout
            }
            guard let event = next else {
                reader = try Self.open(cluster, node: node, group: group, token: owner.token, after: lastEventID)
                continue
            }
            if let id = event.id { lastEventID = id }
            if event.name == "location", event.json["location"][0].double == marker { received = true }
        }
        #expect(received, "the live stream on node \(node) did not carry the fix posted after the outage (nor ended for a resume)")
    }
}
