import Foundation
import HTTPTestSupport
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing
import Timestamps

/// Suites that start `fod` nodes on PostgreSQL carry this trait: without the server programs
/// they are skipped, saying why.
let postgresAvailable = ConditionTrait.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason))

/// `count` real `fod` processes on one fresh database, and helpers to drive them over HTTP.
final class Cluster: @unchecked Sendable {
    let nodes: [FodProcess]
    let databaseURL: String

    private static let counter = Atomic<Int>(0)

    /// A new database on the process's shared test server.
    static func freshDatabase() throws -> String {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_cluster_\(ProcessInfo.processInfo.processIdentifier)_\(counter.add(1, ordering: .relaxed).newValue)"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        return server.url(database: name)
    }

    /// - Parameter arguments: more flags for every node's `fod serve` (later flags win).
    init(nodes count: Int, databaseURL: String? = nil, arguments: [String] = []) throws {
        let url = try databaseURL ?? Self.freshDatabase()
        self.databaseURL = url
        var nodes: [FodProcess] = []
        for _ in 0..<count {
            nodes.append(try FodProcess(dataDirectory: NSTemporaryDirectory() + "fod-cluster-" + UUID().uuidString,
                                        extraArguments: ["--database", url] + arguments))
        }
        self.nodes = nodes
    }

    func stop() { for node in nodes { node.stop() } }

    func client(_ node: Int) throws -> HTTPTestClient { try HTTPTestClient(port: nodes[node].port) }

    /// Signs up on `node`; returns (user id, token).
    func signUp(_ name: String, on node: Int) throws -> (id: String, token: String) {
        let reply = try client(node).request("POST", "/v1/users", json: #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"}"#)
        guard reply.status == 201 else { throw TestFailure("sign-up on node \(node): \(reply.status) \(reply.text)") }
        return (reply.json["user"]["id"].string ?? "", reply.json["token"].string ?? "")
    }

    /// Adds a device on `node`; returns (device id, device token).
    func addDevice(token: String, on node: Int) throws -> (id: String, token: String) {
        let reply = try client(node).request("POST", "/v1/devices", token: token, json: #"{"name":"phone"}"#)
        guard reply.status == 201 else { throw TestFailure("device on node \(node): \(reply.status) \(reply.text)") }
        return (reply.json["device"]["id"].string ?? "", reply.json["deviceToken"].string ?? "")
    }

    /// Posts fixes `{location, timestamp, id?}` as one batch on `node`; returns the reply.
    func post(_ fixes: [(lon: Double, lat: Double, ts: Int64, id: String?)], device: (id: String, token: String),
              on node: Int) throws -> HTTPTestClient.Reply {
        let body = fixes.map { fix in
            let id = fix.id.map { #","id":"\#($0)""# } ?? ""
            return #"{"location":[\#(fix.lon),\#(fix.lat)],"timestamp":\#(fix.ts)\#(id)}"#
        }
        return try client(node).request("POST", "/v1/devices/\(device.id)/locations", token: device.token,
                                        json: #"{"locations":[\#(body.joined(separator: ","))]}"#)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
