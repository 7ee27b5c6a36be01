import Foundation
import HTTPTestSupport
import ReceiverTestSupport
import Testing

/// Notifications on a cluster (API.md "Many nodes"): one node at a time attempts a delivery, and
/// when it dies mid-send another finishes it, with the same `webhook-id`.
@Suite("Cluster: notifications across nodes", postgresAvailable, .serialized)
struct CrossNodeNotificationTests {
    static let arguments = ["--notify-allow-private", "--notify-lease-seconds", "2", "--notify-backoff-ms", "100",
                            "--notify-catch-up-seconds", "0.5"]

    @Test func aKilledNodesDeliveryIsFinishedByAnother() throws {
        let receiver = try LocalReceiver()
        let gate = ReceiverGate()
        defer { gate.open(); receiver.close() }
        receiver.script([.init(status: 200, hold: gate)])
        let cluster = try Cluster(nodes: 3, arguments: Self.arguments)
        var extra: FodProcess?
        defer { cluster.stop(); extra?.stop() }
        let ann = try cluster.signUp("ann-\(UUID().uuidString.prefix(8))", on: 0)
        let phone = try cluster.addDevice(token: ann.token, on: 0)
        let client = try cluster.client(0)
        let group = try client.request("POST", "/v1/groups", token: ann.token, json: #"{"name":"Family","deviceId":"\#(phone.id)"}"#)
        let groupID = group.json["id"].string ?? ""
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(try cluster.post([(2.40, 48.85, now, nil)], device: phone, on: 1).status == 200)
        #expect(try client.request("POST", "/v1/groups/\(groupID)/places", token: ann.token,
                                   json: #"{"name":"School","geometry":{"type":"Point","coordinates":[2.35,48.85]},"radius":150}"#).status == 201)
        let channel = try cluster.client(1).request("POST", "/v1/me/channels", token: ann.token,
                                                    json: #"{"name":"hook","type":"webhook","url":"\#(receiver.url())"}"#)
        let channelID = channel.json["id"].string ?? ""
        #expect(try cluster.client(2).request("POST", "/v1/groups/\(groupID)/alerts", token: ann.token,
                                              json: #"{"channelId":"\#(channelID)","events":["enter"]}"#).status == 201)
        // The arrival, on node 2; one node leases the delivery and sends it; the receiver holds it.
        #expect(try cluster.post([(2.3501, 48.85, now + 1_000, nil)], device: phone, on: 2).status == 200)
        let first = try #require(receiver.next(timeout: 30))
        let id = try #require(first.header("webhook-id"))
        // Kill two nodes mid-send. If the sender was one of them, the third takes the delivery
        // over once its lease runs out; if it was the third, kill it too and a new node does.
        cluster.nodes[0].stop(signal: SIGKILL)
        cluster.nodes[1].stop(signal: SIGKILL)
        var again = receiver.next(timeout: 8)
        if again == nil {
            cluster.nodes[2].stop(signal: SIGKILL)
            extra = try FodProcess(dataDirectory: NSTemporaryDirectory() + "fod-cluster-" + UUID().uuidString,
                                   extraArguments: ["--database", cluster.databaseURL] + Self.arguments)
            again = receiver.next(timeout: 30)
        }
        let second = try #require(again)
        #expect(second.header("webhook-id") == id)
        #expect(second.body == first.body)
        // The log, read on a live node, says delivered.
        let live = try HTTPTestClient(port: extra?.port ?? cluster.nodes[2].port)
        var delivered = false
        for _ in 0..<200 where !delivered {
            let log = try live.get("/v1/me/channels/\(channelID)/deliveries", token: ann.token).json["deliveries"]
            delivered = log.count == 1 && log[0]["status"].string == "delivered" && log[0]["id"].string == id
            if !delivered { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(delivered)
    }
}
