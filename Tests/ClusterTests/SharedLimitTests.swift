import Foundation
import HTTPTestSupport
import Testing
import Timestamps

/// The abuse limits hold for the cluster, not per node: attempts spread over three nodes
/// are refused once they reach the configured limit together (API.md, "Deployment").
@Suite("Cluster: abuse limits count across nodes", postgresAvailable, .serialized)
struct SharedLimitTests {
    @Test func signInsInvitationsAndDeviceRequestsAreCountedForTheWholeCluster() throws {
        let cluster = try Cluster(nodes: 3, arguments: ["--sign-in-limit", "4", "--invitation-limit", "3",
                                                        "--device-request-rate", "0.01", "--device-request-burst", "5"])
        defer { cluster.stop() }
        let ann = try cluster.signUp("ann-\(UUID().uuidString.prefix(8))", on: 0)
        let email = try cluster.client(1).get("/v1/me", token: ann.token).json["email"].string ?? ""

        // Sign-in attempts with a wrong password, one node after the other: four in all are
        // checked; the fifth is refused on whichever node it reaches.
        var statuses: [Int] = []
        for attempt in 0..<6 {
            let reply = try cluster.client(attempt % 3).request("POST", "/v1/sessions",
                                                                json: #"{"email":"\#(email)","password":"wrong-password"}"#)
            statuses.append(reply.status)
            if reply.status == 429 { #expect(Int(reply.header("retry-after") ?? "") ?? 0 >= 1) }
        }
        #expect(statuses == [401, 401, 401, 401, 429, 429])

        // Invitations: three per user in all, whichever node sends them.
        let device = try cluster.addDevice(token: ann.token, on: 1)
        let group = try cluster.client(2).request("POST", "/v1/groups", token: ann.token,
                                                  json: #"{"name":"family","deviceId":"\#(device.id)"}"#)
        let groupID = try #require(group.json["id"].string, "group: \(group.text)")
        var invitations: [Int] = []
        for n in 0..<5 {
            let invitee = try cluster.signUp("invitee-\(n)-\(UUID().uuidString.prefix(6))", on: n % 3)
            let inviteeEmail = try cluster.client(0).get("/v1/me", token: invitee.token).json["email"].string ?? ""
            invitations.append(try cluster.client(n % 3).request("POST", "/v1/groups/\(groupID)/invitations", token: ann.token,
                                                                  json: #"{"email":"\#(inviteeEmail)"}"#).status)
        }
        #expect(invitations == [201, 201, 201, 429, 429])

        // Device requests: a bucket of five for the device, not five per node.
        let start = Timestamp.nowMilliseconds() - 60_000
        var posts: [Int] = []
        for n in 0..<8 {
            posts.append(try cluster.post([(lon: 1, lat: 1, ts: start + Int64(n) * 1_000, id: nil)], device: device, on: n % 3).status)
        }
        #expect(posts == [200, 200, 200, 200, 200, 429, 429, 429])
    }

    /// Failed sign-ins per account are counted for the whole cluster: guesses from twelve
    /// addresses spread over three nodes stop at the bound for unknown addresses (8 of 10), and
    /// the owner still signs in on any node from the address they signed up from.
    @Test func failedSignInsPerAccountAreCountedForTheWholeCluster() throws {
        let cluster = try Cluster(nodes: 3, arguments: ["--trusted-proxies", "127.0.0.1", "--sign-in-failures-per-day", "10",
                                                        "--sign-in-free-failures", "10"])
        defer { cluster.stop() }
        let name = "owner-\(UUID().uuidString.prefix(8).lowercased())"
        func request(_ node: Int, _ path: String, from address: String, _ json: String) throws -> HTTPTestClient.Reply {
            try cluster.client(node).request("POST", path, headers: ["X-Forwarded-For": address, "Content-Type": "application/json"],
                                             body: Array(json.utf8))
        }
        #expect(try request(0, "/v1/users", from: "198.51.100.7",
                            #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"Owner"}"#).status == 201)
        let statuses = try (0..<12).map { n in
            try request(n % 3, "/v1/sessions", from: "203.0.113.\(n + 1)", #"{"email":"\#(name)@example.org","password":"guess-\#(n)"}"#).status
        }
        #expect(statuses == Array(repeating: 401, count: 8) + Array(repeating: 429, count: 4))
        for node in 0..<3 {
            #expect(try request(node, "/v1/sessions", from: "192.0.2.\(node + 1)", #"{"email":"\#(name)@example.org","password":"password-\#(name)"}"#).status == 429)
        }
        #expect(try request(2, "/v1/sessions", from: "198.51.100.7", #"{"email":"\#(name)@example.org","password":"password-\#(name)"}"#).status == 200)
    }
}
