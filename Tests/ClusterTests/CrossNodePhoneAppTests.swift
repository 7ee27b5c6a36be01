import Foundation
import HTTPTestSupport
import Testing

/// What a phone app sends to one node — a heartbeat without a fix, a message that cannot be
/// stored, an encrypted message — is what every other node shows and answers.
@Suite("Cluster: phone apps across nodes", postgresAvailable, .serialized)
struct CrossNodePhoneAppTests {
    @Test func statusRejectionsAndTheSecretHoldOnEveryNode() throws {
        let cluster = try Cluster(nodes: 2)
        defer { cluster.stop() }
        let owner = try cluster.signUp("ann-\(UUID().uuidString.prefix(8))", on: 0)
        let device = try cluster.addDevice(token: owner.token, on: 0)
        let now = Int(Date().timeIntervalSince1970)
        // Traccar Client's heartbeat (no fix) on node 1: node 2 shows the phone alive with its battery.
        let heartbeat = try cluster.client(0).request("POST", "/v1/ingest/osmand", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                      body: Array("id=\(device.token)&timestamp=\(now)&batt=55&charge=false".utf8))
        #expect(heartbeat.status == 200 && heartbeat.json["accepted"].int == 0)
        let document = try cluster.client(1).get("/v1/devices/\(device.id)", token: owner.token).json
        #expect(document["battery"].double == 55 && document["lastSeenAt"].string != nil, "\(document)")
        // A fix from a clock that was never set, on node 2: recorded, read on node 1.
        let basic = "Basic " + Data("\(device.id):\(device.token)".utf8).base64EncodedString()
        let old = try cluster.client(1).request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                                body: Array(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":86400,"tid":"JD"}"#.utf8))
        #expect(old.status == 200 && old.text == "[]")
        let rejections = try cluster.client(0).get("/v1/devices/\(device.id)/rejections", token: owner.token).json["rejections"]
        #expect(rejections[0]["reason"].string == "timestamp_too_old", "\(rejections)")
        // A secret set on node 1 opens an encrypted message on node 2 (it does not open here:
        // another passphrase sealed it, which node 2 can only know from the database).
        #expect(try cluster.client(0).request("PATCH", "/v1/devices/\(device.id)", token: owner.token,
                                              json: #"{"owntracksSecret":"shared by the nodes"}"#).status == 200)
        let sealed = #"{"_type":"encrypted","data":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v"}"#
        #expect(try cluster.client(1).request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                              body: Array(sealed.utf8)).status == 200)
        let latest = try cluster.client(0).get("/v1/devices/\(device.id)/rejections", token: owner.token).json["rejections"]
        #expect(latest[0]["reason"].string == "decryption_failed", "\(latest)")
    }
}
