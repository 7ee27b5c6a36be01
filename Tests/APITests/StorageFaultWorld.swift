import Foundation
import Testing
import HTTPTestSupport

/// One user with one device sharing in one group, on a running `fod serve`, and the fixes it
/// posted: what storage-fault tests post, read and check. Fix `i` has id `f<i>`, timestamp
/// `base + i` seconds and a position near (10.5, 50.05).
struct StorageFaultWorld {
    var userToken = "", deviceID = "", deviceToken = "", groupID = ""
    static let base: Int64 = 1_700_000_000

    /// Signs up, adds the device and a group on `port`.
    static func setUp(port: UInt16) throws -> StorageFaultWorld {
        let client = try HTTPTestClient(port: port)
        var world = StorageFaultWorld()
        world.userToken = try client.request("POST", "/v1/users", json: #"{"email":"f@example.org","password":"password-f","displayName":"F"}"#).json["token"].string ?? ""
        let device = try client.request("POST", "/v1/devices", token: world.userToken, json: #"{"name":"tracker"}"#)
        world.deviceID = device.json["device"]["id"].string ?? ""
        world.deviceToken = device.json["deviceToken"].string ?? ""
        world.groupID = try client.request("POST", "/v1/groups", token: world.userToken,
                                           json: #"{"name":"G","deviceId":"\#(world.deviceID)"}"#).json["id"].string ?? ""
        return world
    }

    static func fix(_ i: Int, withID: Bool = true) -> String {
        let position = "[\(10 + Double(i % 1000) / 1000),\(50 + Double(i / 1000 % 100) / 1000)]"
        return #"{"location":\#(position),"timestamp":\#((base + Int64(i)) * 1000)\#(withID ? #","id":"f\#(i)""# : "")}"#
    }

    /// Posts fixes `range` as one native batch.
    func post(_ range: Range<Int>, withIDs: Bool = true, port: UInt16) throws -> HTTPTestClient.Reply {
        try HTTPTestClient(port: port).request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken,
                                               json: #"{"locations":[\#(range.map { Self.fix($0, withID: withIDs) }.joined(separator: ","))]}"#)
    }

    /// Posts fix `i` as an OwnTracks location message (HTTP Basic auth, `tst` in seconds).
    func postOwnTracks(_ i: Int, port: UInt16) throws -> HTTPTestClient.Reply {
        let credentials = Data("\(deviceID):\(deviceToken)".utf8).base64EncodedString()
        let body = #"{"_type":"location","lat":50.2,"lon":10.2,"tst":\#(Self.base + Int64(i))}"#
        return try HTTPTestClient(port: port).request("POST", "/v1/ingest/owntracks",
                                                      headers: ["Authorization": "Basic \(credentials)", "Content-Type": "application/json"],
                                                      body: Array(body.utf8))
    }

    /// The device's history, as fix timestamps (seconds) → how many times each is stored.
    func history(port: UInt16) throws -> [Int64: Int] {
        let client = try HTTPTestClient(port: port)
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var counts: [Int64: Int] = [:]
        var cursor: String?
        repeat {
            let page = try client.get("/v1/devices/\(deviceID)/locations?limit=10000" + (cursor.map { "&cursor=\($0)" } ?? ""), token: userToken)
            guard page.status == 200 else { throw ProcessFailure("history: \(page.status) \(page.text)") }
            for fix in page.json["locations"].array {
                if let text = fix["timestamp"].string, let date = dates.date(from: text) {
                    counts[Int64(date.timeIntervalSince1970), default: 0] += 1
                }
            }
            cursor = page.json["nextCursor"].string
        } while cursor != nil
        return counts
    }

    /// How many fixes a `scope: history` geo query over the whole area finds, summed over
    /// windows of 5,000 seconds (each under the query limit). It reads the cell index and the
    /// in-memory mirror of unmerged fixes, so it equals the history count only if the mirror
    /// follows exactly what was committed.
    func geoCount(upTo count: Int, port: UInt16) throws -> Int {
        let client = try HTTPTestClient(port: port)
        var total = 0
        for start in stride(from: 0, to: count, by: 5_000) {
            let from = (Self.base + Int64(start)) * 1000, to = (Self.base + Int64(start + 5_000)) * 1000 - 1
            let reply = try client.request("POST", "/v1/groups/\(groupID)/query", token: userToken, json: """
                {"filter": {"location": {"$geoWithin": {"$box": [[9, 49], [12, 51]]}}}, "scope": "history",
                 "from": \(from), "to": \(to), "limit": 10000}
                """)
            guard reply.status == 200 else { throw ProcessFailure("query: \(reply.status) \(reply.text)") }
            total += reply.json["results"].count
        }
        return total
    }

    /// Checks the reads a member makes: the group, the device list, the profile (all 200).
    func readsWork(port: UInt16) throws -> Bool {
        let client = try HTTPTestClient(port: port)
        return try [client.get("/v1/groups/\(groupID)", token: userToken), client.get("/v1/devices", token: userToken),
                    client.get("/v1/me", token: userToken), client.get("/healthz")].allSatisfy { $0.status == 200 }
    }

    /// A metric's value from `/metrics`.
    static func metric(_ name: String, port: UInt16) throws -> Double? {
        let text = try HTTPTestClient(port: port).get("/metrics", token: FodProcess.metricsToken).text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}

/// A reply is the storage fault `code`: 503, the API error shape, a message and `Retry-After`.
func isStorageFault(_ reply: HTTPTestClient.Reply, _ code: String) -> Bool {
    reply.status == 503 && reply.errorCode == code && !(reply.json["error"]["message"].string ?? "").isEmpty
        && Int(reply.header("Retry-After") ?? "") != nil
}

/// Polls `condition` until it holds or `seconds` pass; returns whether it held. Liveness, not
/// timing: the deadline only keeps a broken background task from hanging the suite.
func eventually(within seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}
