import Foundation
import HTTPTestSupport
import Testing
import Timestamps

/// Three `fod` nodes on one PostgreSQL database: what API.md's "Deployment" promises holds
/// across them — live feeds, resumption on any node, duplicates, sharing changes at once.
@Suite("Cluster: three nodes on one database", postgresAvailable, .serialized)
struct CrossNodeTests {
    /// A group of ann (device A) and bob (device B), made across the nodes.
    struct Family {
        let ann: (id: String, token: String)
        let bob: (id: String, token: String)
        let annDevice: (id: String, token: String)
        let bobDevice: (id: String, token: String)
        let group: String

        init(_ cluster: Cluster) throws {
            ann = try cluster.signUp("ann-\(UUID().uuidString.prefix(8))", on: 0)
            bob = try cluster.signUp("bob-\(UUID().uuidString.prefix(8))", on: 1)
            annDevice = try cluster.addDevice(token: ann.token, on: 2)
            bobDevice = try cluster.addDevice(token: bob.token, on: 0)
            let made = try cluster.client(1).request("POST", "/v1/groups", token: ann.token,
                                                     json: #"{"name":"family","deviceId":"\#(annDevice.id)"}"#)
            guard made.status == 201, let id = made.json["id"].string else { throw TestFailure("group: \(made.text)") }
            group = id
            let bobEmail = try cluster.client(2).get("/v1/me", token: bob.token).json["email"].string ?? ""
            let invite = try cluster.client(2).request("POST", "/v1/groups/\(group)/invitations", token: ann.token,
                                                       json: #"{"email":"\#(bobEmail)"}"#)
            guard invite.status == 201 else { throw TestFailure("invite: \(invite.text)") }
            let accept = try cluster.client(0).request("POST", "/v1/invitations/\(group)/accept", token: bob.token,
                                                       json: #"{"deviceId":"\#(bobDevice.id)"}"#)
            guard accept.status == 200 else { throw TestFailure("accept: \(accept.text)") }
        }
    }

    @Test func aFixPostedOnOneNodeReachesStreamsOnAnotherAndResumesOnAThird() throws {
        let cluster = try Cluster(nodes: 3)
        defer { cluster.stop() }
        let family = try Family(cluster)
        // Bob watches on node 3.
        let watcher = try cluster.client(2)
        let head = try watcher.openStream("/v1/groups/\(family.group)/live", headers: ["Authorization": "Bearer \(family.bob.token)"])
        #expect(head.status == 200)
        let events = SSEReader(client: watcher)
        let snapshot = try #require(try events.nextEvent())
        #expect(snapshot.name == "snapshot")
        // Ann's device posts on node 1, three times (after she joined: her history from then on
        // is the group's).
        let start = Timestamp.nowMilliseconds() + 1
        for n in 0..<3 {
            let reply = try cluster.post([(lon: Double(n), lat: 1, ts: start + Int64(n) * 1_000, id: "fix-\(n)")],
                                         device: family.annDevice, on: 0)
            #expect(reply.status == 200, "\(reply.text)")
        }
        var seen: [(id: String, lon: Double)] = []
        while seen.count < 3 {
            let event = try #require(try events.nextEvent())
            guard event.name == "location" else { continue }
            seen.append((event.id ?? "", event.json["location"][0].double ?? -1))
        }
        #expect(seen.map(\.lon) == [0, 1, 2])
        // Resume on node 2 after the first: exactly the two missed, in order.
        let resumer = try cluster.client(1)
        _ = try resumer.openStream("/v1/groups/\(family.group)/live",
                                   headers: ["Authorization": "Bearer \(family.bob.token)", "Last-Event-ID": seen[0].id])
        let resumed = SSEReader(client: resumer)
        var replayed: [String] = []
        while replayed.count < 2 {
            let event = try #require(try resumed.nextEvent())
            if event.name == "location" { replayed.append(event.id ?? "") }
        }
        #expect(replayed == [seen[1].id, seen[2].id])
        // The changes endpoint on node 1 has the same log.
        let changes = try cluster.client(0).get("/v1/groups/\(family.group)/changes?since=0", token: family.bob.token)
        #expect(changes.status == 200)
        let logged = (0..<changes.json["events"].count).compactMap { changes.json["events"][$0]["id"].int }.map(String.init)
        #expect(seen.allSatisfy { logged.contains($0.id) })
    }

    @Test func theSameBatchAtThreeNodesAtOnceIsStoredOnce() throws {
        let cluster = try Cluster(nodes: 3)
        defer { cluster.stop() }
        let family = try Family(cluster)
        let start = Timestamp.nowMilliseconds() - 100_000
        let batch = (0..<100).map { (lon: Double($0) / 100, lat: 2.0, ts: start + Int64($0) * 100, id: Optional("b-\($0)")) }
        let accepted = ConcurrentCounter()
        DispatchQueue.concurrentPerform(iterations: 3) { node in
            if let reply = try? cluster.post(batch, device: family.annDevice, on: node), reply.status == 200 {
                accepted.add(reply.json["accepted"].int ?? 0)
            }
        }
        #expect(accepted.value == 100)
        let history = try cluster.client(1).get("/v1/devices/\(family.annDevice.id)/locations?limit=1000", token: family.ann.token)
        #expect(history.json["locations"].count == 100)
    }

    @Test func aSharingChangeOnOneNodeHidesTheMemberOnAnotherAtOnce() throws {
        let cluster = try Cluster(nodes: 3)
        defer { cluster.stop() }
        let family = try Family(cluster)
        let reply = try cluster.post([(lon: 5, lat: 5, ts: Timestamp.nowMilliseconds(), id: nil)], device: family.annDevice, on: 2)
        #expect(reply.status == 200)
        func annLocation(on node: Int) throws -> Bool {
            let group = try cluster.client(node).get("/v1/groups/\(family.group)", token: family.bob.token).json
            let members = (0..<group["members"].count).map { group["members"][$0] }
            return members.contains { member in
                member["userId"].string == family.ann.id && member["location"].value != nil && !(member["location"].value is NSNull)
            }
        }
        #expect(try annLocation(on: 1))
        // A history query on node 2 (its cache of the group's sharing devices now warm) finds
        // Ann's fix until she stops sharing on node 1, and not a moment after.
        func annInHistory(on node: Int) throws -> Bool {
            let reply = try cluster.client(node).request("POST", "/v1/groups/\(family.group)/query", token: family.bob.token, json: """
                {"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[5,5]},"$maxDistance":1000}}},"scope":"history","limit":10}
                """)
            guard reply.status == 200 else { throw TestFailure("query on node \(node): \(reply.status) \(reply.text)") }
            return reply.json["results"].count > 0
        }
        #expect(try annInHistory(on: 1))
        #expect(try annInHistory(on: 1))
        let off = try cluster.client(0).request("PUT", "/v1/groups/\(family.group)/sharing", token: family.ann.token,
                                                json: #"{"shareLocation":false}"#)
        #expect(off.status == 200)
        #expect(try !annLocation(on: 1))
        #expect(try !annInHistory(on: 1))
        #expect(try cluster.client(2).get("/v1/devices/\(family.annDevice.id)/locations", token: family.bob.token).status == 404)
        // A session signed out on one node is refused on every node.
        #expect(try cluster.client(1).request("DELETE", "/v1/sessions/current", headers: ["Authorization": "Bearer \(family.bob.token)"]).status == 204)
        #expect(try cluster.client(2).get("/v1/me", token: family.bob.token).status == 401)
    }
}

/// A thread-safe sum.
final class ConcurrentCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ n: Int) { lock.lock(); total += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return total }
}
