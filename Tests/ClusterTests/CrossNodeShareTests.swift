import Foundation
import HTTPTestSupport
import Testing
import Timestamps

/// Share links across nodes: a link's live stream on one node shows fixes posted to any node,
/// exactly once after its snapshot, and ends at once when the link is revoked, or its device
/// deleted, on another node.
@Suite("Cluster: share-link streams across nodes", postgresAvailable, .serialized)
struct CrossNodeShareTests {
    /// Ann with a device (both made on node 1) and a share link of it made on `node`.
    struct SharedDevice {
        let ann: (id: String, token: String)
        let device: (id: String, token: String)
        let link: (id: String, token: String)

        init(_ cluster: Cluster, linkOn node: Int) throws {
            ann = try cluster.signUp("ann-\(UUID().uuidString.prefix(8))", on: 0)
            device = try cluster.addDevice(token: ann.token, on: 0)
            let reply = try cluster.client(node).request("POST", "/v1/devices/\(device.id)/shares", token: ann.token, json: #"{"expiresIn":3600}"#)
            guard reply.status == 201, let id = reply.json["id"].string, let token = reply.json["token"].string else {
                throw TestFailure("share on node \(node): \(reply.status) \(reply.text)")
            }
            link = (id, token)
        }
    }

    @Test func aShareStreamOnOneNodeShowsFixesFromEveryNodeAndEndsWhenRevokedElsewhere() throws {
        let cluster = try Cluster(nodes: 3)
        defer { cluster.stop() }
        let shared = try SharedDevice(cluster, linkOn: 0)
        let (ann, device, link) = (shared.ann, shared.device, shared.link)
        let start = Timestamp.nowMilliseconds()
        #expect(try cluster.post([(lon: 0, lat: 1, ts: start, id: "fix-0")], device: device, on: 1).status == 200)

        // The holder watches on node 3; the snapshot holds fix 0.
        let watcher = try cluster.client(2)
        #expect(try watcher.openStream("/v1/shared/\(link.token)/live").status == 200)
        let events = SSEReader(client: watcher)
        let snapshot = try #require(try events.nextEvent())
        #expect(snapshot.name == "snapshot")
        #expect(snapshot.json["location"]["coordinates"][0].double == 0)

        // Fixes posted on node 2 and node 1 arrive once each, in order, after the snapshot.
        for n in 1...3 {
            let reply = try cluster.post([(lon: Double(n), lat: 1, ts: start + Int64(n) * 1_000, id: "fix-\(n)")], device: device, on: n % 2 == 1 ? 1 : 0)
            #expect(reply.status == 200, "\(reply.text)")
        }
        var longitudes: [Double] = []
        while longitudes.count < 3 {
            let event = try #require(try events.nextEvent())
            guard event.name == "location" else { continue }
            longitudes.append(event.json["location"][0].double ?? -1)
            #expect(event.json["latest"].bool == true)
        }
        #expect(longitudes == [1, 2, 3])

        // Revoked on node 2: the stream on node 3 ends at once, saying why.
        let revoke = try cluster.client(1).request("DELETE", "/v1/devices/\(device.id)/shares/\(link.id)",
                                                   headers: ["Authorization": "Bearer \(ann.token)"])
        #expect(revoke.status == 204)
        var end: SSEReader.Event?
        while let event = try events.nextEvent() {
            if event.name == "end" { end = event; break }
            #expect(event.name == "location", "only location events before the end, not \(event.name)")
        }
        #expect(end?.json["reason"].string == "revoked")
    }

    @Test func deletingTheDeviceOnOneNodeEndsItsShareStreamsOnAnother() throws {
        let cluster = try Cluster(nodes: 2)
        defer { cluster.stop() }
        let shared = try SharedDevice(cluster, linkOn: 1)
        let (ann, device, link) = (shared.ann, shared.device, shared.link)
        let watcher = try cluster.client(0)
        #expect(try watcher.openStream("/v1/shared/\(link.token)/live").status == 200)
        let events = SSEReader(client: watcher)
        #expect(try events.nextEvent()?.name == "snapshot")
        let deleted = try cluster.client(1).request("DELETE", "/v1/devices/\(device.id)", headers: ["Authorization": "Bearer \(ann.token)"])
        #expect(deleted.status == 204)
        let end = try #require(try events.nextEvent())
        #expect(end.name == "end" && end.json["reason"].string == "revoked")
        #expect(try cluster.client(0).get("/v1/shared/\(link.token)").status == 404)
    }
}
