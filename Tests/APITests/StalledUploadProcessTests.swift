import Foundation
import HTTPTestSupport
import Testing

/// Stalled and trickling uploads against the real `fod serve` (issue #47, finding 1): anonymous
/// uploads cost the server next to no memory, and a body that stalls or trickles loses its
/// connection (the flags of "Security and limits").
@Suite struct StalledUploadProcessTests {
    /// The resident memory of process `pid` (bytes; 0 when unknown).
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib * 1024
    }

    /// Sends a head announcing `length` bytes (and `headers`), then `sent` bytes of the body.
    static func upload(_ port: UInt16, _ target: String, headers: [String] = [], length: Int, sent: Int) throws -> HTTPTestClient {
        let client = try HTTPTestClient(port: port)
        let head = (["POST \(target) HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: \(length)"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n"
        try client.send(head)
        try? client.send([UInt8](repeating: UInt8(ascii: " "), count: sent))
        return client
    }

    /// Whether a sign-up announcing 16 KiB is refused for a full anonymous budget (503), rather
    /// than told to go on (`100 Continue`).
    static func anonymousBudgetIsFull(_ port: UInt16) throws -> Bool {
        let probe = try upload(port, "/v1/users", headers: ["Expect: 100-continue"], length: 16 * 1024, sent: 0)
        defer { probe.close() }
        return try probe.readReply(method: "POST").status == 503
    }

    @Test func manyStalledAnonymousUploadsHoldLittleMemoryWhileNormalClientsGoOn() throws {
        let served = try ServedStore("fod-stalled-")
        defer { served.remove() }
        let stalledSignUps = 200
        // The anonymous budget holds exactly the stalled sign-ups' buffers (16 KiB each).
        let server = try served.serve(["--anonymous-body-budget-kib", String(stalledSignUps * 16)])
        defer { server.stop() }
        let port = server.port
        let owner = try HTTPTestClient(port: port).request("POST", "/v1/users", json: #"{"email":"o@example.org","password":"password-o","displayName":"O"}"#)
        let token = try #require(owner.json["token"].string)
        let device = try HTTPTestClient(port: port).request("POST", "/v1/devices", token: token, json: #"{"name":"phone"}"#)
        let deviceID = try #require(device.json["device"]["id"].string), deviceToken = try #require(device.json["deviceToken"].string)
        let normal = try HTTPTestClient(port: port)
        func postFix(_ k: Int) throws -> Int {
            try normal.request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken,
                               json: #"{"location":[2.35,48.85],"timestamp":\#(1_700_000_000_000 + k * 1_000)}"#).status
        }
        for k in 0..<50 { #expect(try postFix(k) == 200) }
        let baseline = Self.residentBytes(server.process.processIdentifier)

        // Uploads to routes that need a credential, without one: 8 MiB announced, 128 KiB sent,
        // then silence. Each is answered at once and holds nothing.
        let targets = ["/v1/devices/\(deviceID)/locations", "/v1/ingest/overland", "/v1/devices/\(deviceID)/import"]
        var refused: [HTTPTestClient] = []
        for k in 0..<200 {
            let client = try Self.upload(port, targets[k % targets.count], length: 8 << 20, sent: 128 * 1024)
            #expect(try client.readReply(method: "POST").status == 401)
            refused.append(client)
        }
        // Sign-ups (no credential to check: anonymous bodies) that stop one byte short.
        var stalled: [HTTPTestClient] = []
        for _ in 0..<stalledSignUps {
            stalled.append(try Self.upload(port, "/v1/users", length: 16 * 1024, sent: 16 * 1024 - 1))
        }
        // Once the server holds all their buffers, the anonymous budget is full.
        #expect(try eventually(within: 30) { try Self.anonymousBudgetIsFull(port) })
        #expect(try postFix(1_000) == 200)
        let growth = Self.residentBytes(server.process.processIdentifier) - baseline
        // 200 × 16 KiB of bodies, plus connection pools and allocator slack.
        #expect(growth <= 16 << 20, "RSS grew by \(growth >> 10) KiB")
        #expect(stalled.count + refused.count == 400)
    }

    @Test func aBodyThatTricklesLosesItsConnection() throws {
        let served = try ServedStore("fod-trickle-")
        defer { served.remove() }
        // Any body slower than 1 GB/s from its first byte is too slow.
        let server = try served.serve(["--body-rate-grace", "0", "--body-min-rate", "1000000000"])
        defer { server.stop() }
        let trickle = try Self.upload(server.port, "/v1/users", length: 100, sent: 0)
        try trickle.send([UInt8(ascii: "{")])
        #expect(trickle.waitForClose())
    }

    @Test func aBodyThatStallsLosesItsConnection() throws {
        let served = try ServedStore("fod-stall-")
        defer { served.remove() }
        let server = try served.serve(["--body-timeout", "1"])
        defer { server.stop() }
        let silent = try Self.upload(server.port, "/v1/users", length: 100, sent: 0)
        #expect(silent.waitForClose())
    }
}
