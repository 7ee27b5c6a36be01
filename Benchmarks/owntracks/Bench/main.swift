// The OwnTracks friends reply: `POST /v1/ingest/owntracks` latency for a device whose group has
// 50 other sharing members (goal: p99 ≤ 2 ms), side by side with the same request from a device
// that did not opt in (reply `[]`) in the same run, on the same server.
//
// In one process: the real server on a loopback port (SQLite in a temp directory, synchronous
// FULL unless --sync normal) and one keep-alive client sending requests back to back.
//   fod-owntracks-bench [--friends 50] [--requests 5000] [--sync full|normal]
// Two bodies: `lwt` (no fix stored: the reply alone) and `location` (a fix stored, then the reply).
import API
import Foundation
import HTTPServer
import HTTPTestSupport
import SQLiteStore
import Storage
import Tracking

struct Options {
    var friends = 50
    var requests = 5_000
    var synchronous = Database.Synchronous.full

    init(_ arguments: [String]) throws {
        var i = 1
        func value() throws -> String {
            i += 1
            guard i < arguments.count else { throw BenchError("\(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--friends": friends = try Self.count(value())
            case "--requests": requests = try Self.count(value())
            case "--sync": synchronous = try value() == "normal" ? .normal : .full
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 1
        }
    }

    static func count(_ text: String) throws -> Int {
        guard let n = Int(text), n > 0 else { throw BenchError("not a positive count: \(text)") }
        return n
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func json(_ reply: HTTPTestClient.Reply) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any] else { throw BenchError("not an object: \(reply.text)") }
    return object
}

func expect(_ reply: HTTPTestClient.Reply, _ status: Int) throws -> [String: Any] {
    guard reply.status == status else { throw BenchError("expected \(status), got \(reply.status): \(reply.text)") }
    return reply.body.isEmpty ? [:] : try json(reply)
}

/// Signs up a user with a device; returns (user token, device id, device token).
func member(_ client: HTTPTestClient, _ name: String) throws -> (user: String, device: String, deviceToken: String) {
    let user = try expect(client.request("POST", "/v1/users", json: #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"}"#), 201)
    let token = user["token"] as? String ?? ""
    let device = try expect(client.request("POST", "/v1/devices", token: token, json: #"{"name":"\#(name) phone"}"#), 201)
    return (token, (device["device"] as? [String: Any])?["id"] as? String ?? "", device["deviceToken"] as? String ?? "")
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[rank]
}

/// Sends `count` requests for `device` back to back; returns the sorted latencies (ms) and the last reply.
func measure(_ client: HTTPTestClient, device: (id: String, token: String), count: Int, body: (Int) -> String) throws -> ([Double], HTTPTestClient.Reply?) {
    let basic = "Basic " + Data("\(device.id):\(device.token)".utf8).base64EncodedString()
    var latencies: [Double] = []
    latencies.reserveCapacity(count)
    var last: HTTPTestClient.Reply?
    for i in 0..<count {
        let bytes = Array(body(i).utf8)
        let start = DispatchTime.now().uptimeNanoseconds
        let reply = try client.request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"], body: bytes)
        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        guard reply.status == 200 else { throw BenchError("reply \(reply.status): \(reply.text)") }
        last = reply
    }
    return (latencies.sorted(), last)
}

func run() throws {
    let options = try Options(CommandLine.arguments)
    let directory = NSTemporaryDirectory() + "fod-owntracks-bench-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let backend = try SQLiteBackend.open(directory: directory, synchronous: options.synchronous)
    defer { backend.close() }
    var settings = Services.Configuration()
    settings.accounts.passwordCost = .minimal
    settings.accounts.signUpsPerAddressPerHour = 100_000
    settings.accounts.signUp = .open
    settings.groups.invitationsPerUserPerHour = 100_000
    settings.deviceRequests = .none
    let logger = Logger(level: .error)
    let services = try Services(store: backend, configuration: settings, logger: logger)
    let errors = ErrorMapper(logger: logger)
    var configuration = HTTPServer.Configuration()
    configuration.bindAddress = "127.0.0.1"
    configuration.port = 0
    let server = HTTPServer(configuration: configuration, router: API.router(services), logger: logger) { errors.response(for: $0, request: $1) }
    try server.start()
    defer { server.shutdown() }
    let client = try HTTPTestClient(port: server.port)

    // The receiver (opted in), a peer (not opted in), and `friends` sharing members with a fix each.
    let receiver = try member(client, "receiver"), peer = try member(client, "peer")
    let group = try expect(client.request("POST", "/v1/groups", token: receiver.user, json: #"{"name":"Family","deviceId":"\#(receiver.device)"}"#), 201)
    let groupID = group["id"] as? String ?? ""
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    for (index, name) in (["peer"] + (0..<options.friends).map { "friend\($0)" }).enumerated() {
        let m = try name == "peer" ? peer : member(client, name)
        _ = try expect(client.request("POST", "/v1/groups/\(groupID)/invitations", token: receiver.user, json: #"{"email":"\#(name)@example.org"}"#), 201)
        _ = try expect(client.request("POST", "/v1/invitations/\(groupID)/accept", token: m.user, json: #"{"deviceId":"\#(m.device)"}"#), 200)
        if name != "peer" {
            // Timestamped after joining: a fix from before would be hidden (history visibility).
            let joined = Int64(Date().timeIntervalSince1970 * 1000)
            let fix = #"{"location":[\#(-74.0 + Double(index) * 0.001),40.7],"timestamp":\#(joined + 1),"accuracy":10}"#
            _ = try expect(client.request("POST", "/v1/devices/\(m.device)/locations", token: m.deviceToken, json: fix), 200)
        }
    }
    // The peer is a member who does not share: not one of the receiver's 50 friends.
    _ = try expect(client.request("PUT", "/v1/groups/\(groupID)/sharing", token: peer.user, json: #"{"shareLocation":false}"#), 200)
    _ = try expect(client.request("PATCH", "/v1/devices/\(receiver.device)", token: receiver.user, json: #"{"receiveGroupLocations":true}"#), 200)

    let lwt: (Int) -> String = { _ in #"{"_type":"lwt","tst":1700000000}"# }
    let base = now / 1000 + 10
    func location(_ i: Int) -> String { #"{"_type":"location","lat":40.71,"lon":-74.01,"tst":\#(base + Int64(i)),"acc":5,"tid":"rv"}"# }
    // Warm up both paths, then measure, interleaving rounds so load changes hit both alike.
    _ = try measure(client, device: (receiver.device, receiver.deviceToken), count: 200, body: lwt)
    _ = try measure(client, device: (peer.device, peer.deviceToken), count: 200, body: lwt)
    let rounds = 5, perRound = max(1, options.requests / rounds)
    var results: [String: [Double]] = [:]
    var replyBytes = 0, messages = 0
    for round in 0..<rounds {
        let (friendsLWT, last) = try measure(client, device: (receiver.device, receiver.deviceToken), count: perRound, body: lwt)
        let (peerLWT, _) = try measure(client, device: (peer.device, peer.deviceToken), count: perRound, body: lwt)
        let (friendsFix, _) = try measure(client, device: (receiver.device, receiver.deviceToken), count: perRound) { location(round * perRound + $0) }
        let (peerFix, _) = try measure(client, device: (peer.device, peer.deviceToken), count: perRound) { location(round * perRound + $0) }
        results["reply only, \(options.friends) friends", default: []] += friendsLWT
        results["reply only, not opted in ([])", default: []] += peerLWT
        results["fix stored + reply, \(options.friends) friends", default: []] += friendsFix
        results["fix stored + reply, not opted in ([])", default: []] += peerFix
        if let last {
            replyBytes = last.body.count
            messages = (try JSONSerialization.jsonObject(with: Data(last.body)) as? [Any])?.count ?? 0
        }
    }
    // The domain and store part alone (no HTTP, no JSON): one snapshot read and the rule.
    let credential = Credential.device(deviceID: DeviceID(receiver.device), ownerID: UserID(""))
    var service: [Double] = []
    for _ in 0..<(perRound * rounds) {
        let start = DispatchTime.now().uptimeNanoseconds
        guard try services.friends.friends(for: credential).count == options.friends else { throw BenchError("wrong friend count") }
        service.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    results["FriendsService alone (read + rule), \(options.friends) friends"] = service
    print("OwnTracks reply: \(messages) messages (\(replyBytes) bytes) for \(options.friends) friends; synchronous=\(options.synchronous == .full ? "FULL" : "NORMAL"); \(perRound * rounds) requests each")
    print("case                                               p50 ms   p90 ms   p99 ms   max ms")
    for name in results.keys.sorted() {
        let sorted = (results[name] ?? []).sorted()
        let row = [0.5, 0.9, 0.99, 1.0].map { String(format: "%8.3f", percentile(sorted, $0)) }.joined(separator: " ")
        print(name.padding(toLength: 49, withPad: " ", startingAt: 0) + " " + row)
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("fod-owntracks-bench: \(error)\n".utf8))
    exit(1)
}
