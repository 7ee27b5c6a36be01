import Foundation
import HTTPTestSupport

/// Ann's family on Liberty Island: Ann owns group G with phone A1, Bob shares B1, Cat is a
/// member who does not share (C1). Positions are given in meters east of the island's centre.
struct PlaceWorld {
    static let center = (lon: -74.0445, lat: 40.6892)
    let app: TestApp
    var users: [String: (id: String, token: String)] = [:]
    var devices: [String: (id: String, token: String)] = [:]
    var groupID = ""
    /// A time (ms) inside everyone's sharing period; fixes are timestamped from here on.
    var start: Int64 = 0

    init(app: TestApp) throws {
        self.app = app
        let client = try app.client()
        let suffix = "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        for name in ["ann", "bob", "cat"] { users[name] = try app.signUp(name + suffix) }
        for (user, device) in [("ann", "A1"), ("bob", "B1"), ("cat", "C1")] {
            let reply = try client.request("POST", "/v1/devices", token: users[user]!.token, json: #"{"name":"\#(device)"}"#)
            devices[device] = (reply.json["device"]["id"].string ?? "", reply.json["deviceToken"].string ?? "")
        }
        groupID = try client.request("POST", "/v1/groups", token: users["ann"]!.token,
                                     json: #"{"name":"Family","deviceId":"\#(devices["A1"]!.id)"}"#).json["id"].string ?? ""
        for (user, device) in [("bob", "B1"), ("cat", "C1")] {
            _ = try client.request("POST", "/v1/groups/\(groupID)/invitations", token: users["ann"]!.token, json: #"{"email":"\#(user)\#(suffix)@example.org"}"#)
            let accepted = try client.request("POST", "/v1/invitations/\(groupID)/accept", token: users[user]!.token,
                                              json: #"{"deviceId":"\#(devices[device]!.id)"}"#)
            guard accepted.status == 200 else { throw TestFailure("accept: \(accepted.text)") }
        }
        _ = try client.request("PUT", "/v1/groups/\(groupID)/sharing", token: users["cat"]!.token, json: #"{"shareLocation":false}"#)
        start = Int64(Date().timeIntervalSince1970 * 1000) + 1
    }

    /// `[lon, lat]` of the point `meters` east of the centre.
    static func east(_ meters: Double) -> (Double, Double) {
        (center.lon + meters / (6_378_100 * Double.pi / 180) / cos(center.lat * .pi / 180), center.lat)
    }

    /// Creates a place as `user`; returns the reply.
    func createCircle(_ name: String, radius: Double, as user: String = "ann", at meters: Double = 0) throws -> HTTPTestClient.Reply {
        let (lon, lat) = Self.east(meters)
        return try app.client().request("POST", "/v1/groups/\(groupID)/places", token: users[user]!.token,
                                        json: #"{"name":"\#(name)","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"radius":\#(radius)}"#)
    }

    /// Posts fixes of `device` at `meters` east, one second apart from `from` (ms after `start`), one request each
    /// (or one batch).
    func walk(_ device: String, _ meters: [Double], accuracy: Double = 8, from offset: Int64, batch: Bool = false) throws {
        let d = devices[device]!
        let fixes = meters.enumerated().map { index, m in
            let (lon, lat) = Self.east(m)
            return #"{"location":[\#(lon),\#(lat)],"accuracy":\#(accuracy),"timestamp":\#(start + offset + Int64(index) * 1000)}"#
        }
        for body in batch ? [#"{"locations":[\#(fixes.joined(separator: ","))]}"#] : fixes {
            let reply = try app.client().request("POST", "/v1/devices/\(d.id)/locations", token: d.token, json: body)
            guard reply.status == 200 else { throw TestFailure("post: \(reply.status) \(reply.text)") }
        }
    }

    /// The `place` events of the group's log, as "enter <place name> <device>" lines.
    func placeEvents(as user: String = "ann") throws -> [String] {
        let reply = try app.client().get("/v1/groups/\(groupID)/changes?since=0", token: users[user]!.token)
        return reply.json["events"].array.filter { $0["type"].string == "place" }.map { event in
            let name = devices.first { $0.value.id == event["data"]["deviceId"].string }?.key ?? "?"
            return "\(event["data"]["type"].string ?? "?") \(event["data"]["placeName"].string ?? "?") \(name)"
        }
    }

    /// Device names inside each place, by place name.
    func inside(as user: String = "ann") throws -> [String: [String]] {
        let reply = try app.client().get("/v1/groups/\(groupID)/places", token: users[user]!.token)
        var result: [String: [String]] = [:]
        for place in reply.json["places"].array {
            result[place["name"].string ?? "?"] = place["inside"].array.compactMap { id in devices.first { $0.value.id == id.string }?.key }.sorted()
        }
        return result
    }
}
