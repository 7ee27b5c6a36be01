import Foundation
import Testing
import HTTPTestSupport

/// The permission matrix's "latest while not shared" and "rejoined" rows (#47, findings 2 and 3):
/// what a member sees as a device's position is its newest fix taken while the device was
/// shared with the group, in every path; and the event log never serves a former membership's
/// positions after a member left and came back.
@Suite struct LatestVisibilityTests {
    /// Gus's G1 joins Ann's group, posts at longitude 11 (shared), turns sharing off, goes to
    /// longitude 20, turns sharing on and has not posted since. The group must see 11; Gus 20.
    struct Scenario {
        let world: PermissionWorld
        let gus: (id: String, token: String)
        let g1: (id: String, token: String)
        /// When the shown fix was taken (ms).
        let shownAt: Int64
        static let shown = 11.0, hidden = 20.0
    }

    static func expect(_ reply: HTTPTestClient.Reply, _ status: Int) throws {
        guard reply.status == status else { throw TestFailure("expected \(status), got \(reply.status) \(reply.text)") }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Waits for the server's clock (the same machine's) to move past the current millisecond
    /// by a few, so fixes fall clearly inside or outside sharing periods.
    static func tick() -> Int64 {
        let start = now()
        while now() <= start + 2 {}
        return now()
    }

    static func scenario(_ app: TestApp) throws -> Scenario {
        let w = try PermissionWorld(app: app)
        let client = try app.client()
        let gus = try app.signUp("gus" + w.suffix)
        let device = try client.request("POST", "/v1/devices", token: gus.token, json: #"{"name":"G1"}"#)
        let g1 = (id: device.json["device"]["id"].string ?? "", token: device.json["deviceToken"].string ?? "")
        try expect(client.request("POST", "/v1/groups/\(w.groupID)/invitations", token: w.users["ann"]!.token,
                                  json: #"{"email":"gus\#(w.suffix)@example.org"}"#), 201)
        try expect(client.request("POST", "/v1/invitations/\(w.groupID)/accept", token: gus.token, json: #"{"deviceId":"\#(g1.id)"}"#), 200)
        let shownAt = tick()
        try post(app, g1, longitude: Scenario.shown, at: shownAt)
        _ = tick()
        try expect(client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: gus.token, json: #"{"shareLocation":false}"#), 200)
        try post(app, g1, longitude: Scenario.hidden, at: tick())
        _ = tick()
        try expect(client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: gus.token, json: #"{"shareLocation":true}"#), 200)
        return Scenario(world: w, gus: gus, g1: g1, shownAt: shownAt)
    }

    static func post(_ app: TestApp, _ device: (id: String, token: String), longitude: Double, at timestamp: Int64) throws {
        let reply = try app.client().request("POST", "/v1/devices/\(device.id)/locations", token: device.token,
                                             json: #"{"location":[\#(longitude),50],"timestamp":\#(timestamp),"accuracy":5}"#)
        guard reply.json["accepted"].int == 1 else { throw TestFailure("post: \(reply.text)") }
    }

    struct LatestPath: Sendable, CustomTestStringConvertible {
        let name: String
        /// G1's longitude as `token`'s holder sees it on this path (nil: no position).
        let read: @Sendable (TestApp, Scenario, String) throws -> Double?
        var testDescription: String { name }
    }

    static let paths: [LatestPath] = [
        LatestPath(name: "group document") { app, s, token in
            try app.client().get("/v1/groups/\(s.world.groupID)", token: token).json["members"].array
                .first { $0["deviceId"].string == s.g1.id }?["location"]["coordinates"][0].double
        },
        LatestPath(name: "live snapshot") { app, s, token in
            let client = try app.client()
            _ = try client.openStream("/v1/groups/\(s.world.groupID)/live", headers: ["Authorization": "Bearer \(token)"])
            let reader = SSEReader(client: client)
            guard let snapshot = try reader.nextEvent(), snapshot.name == "snapshot" else { throw TestFailure("no snapshot") }
            return snapshot.json["members"].array.first { $0["deviceId"].string == s.g1.id }?["location"]["coordinates"][0].double
        },
        LatestPath(name: "device document") { app, s, token in
            try app.client().get("/v1/devices/\(s.g1.id)", token: token).json["lastLocation"]["location"][0].double
        },
        LatestPath(name: "$near, scope latest") { app, s, token in
            let body = #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[15,50]}}}},"scope":"latest"}"#
            return try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: token, json: body).json["results"].array
                .first { $0["deviceId"].string == s.g1.id }?["location"][0].double
        },
        LatestPath(name: "$geoWithin, scope latest") { app, s, token in
            let body = #"{"filter":{"location":{"$geoWithin":{"$box":[[0,49],[40,51]]}}}}"#
            return try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: token, json: body).json["results"].array
                .first { $0["deviceId"].string == s.g1.id }?["location"][0].double
        },
        LatestPath(name: "group GeoJSON export") { app, s, token in
            try app.client().get("/v1/groups/\(s.world.groupID)/export.geojson", token: token).json["features"].array
                .first { $0["geometry"]["type"].string == "Point" && $0["properties"]["deviceId"].string == s.g1.id }?["geometry"]["coordinates"][0].double
        },
        LatestPath(name: "places' inside (set when the place is made)") { app, s, token in
            let client = try app.client()
            var inside: [Double] = []
            for longitude in [Scenario.shown, Scenario.hidden] {
                let place = try client.request("POST", "/v1/groups/\(s.world.groupID)/places", token: token,
                                               json: #"{"name":"at \#(longitude)","geometry":{"type":"Point","coordinates":[\#(longitude),50]},"radius":1000}"#)
                try expect(place, 201)
                let places = try client.get("/v1/groups/\(s.world.groupID)/places", token: token).json["places"].array
                let listed = places.first { $0["id"].string == place.json["id"].string }
                if listed?["inside"].array.contains(where: { $0.string == s.g1.id }) == true { inside.append(longitude) }
            }
            return inside.first
        },
        LatestPath(name: "OwnTracks friends reply") { app, s, _ in
            // Cat's C1 receives the group's locations (PermissionWorld).
            let c1 = s.world.devices["C1"]!
            let basic = "Basic " + Data("\(c1.id):\(c1.token)".utf8).base64EncodedString()
            let reply = try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                                 body: Array(#"{"_type":"location","lat":50,"lon":1,"tst":\#(now() / 1000),"tid":"c1"}"#.utf8))
            return reply.json.array.first { $0["_type"].string == "location" && ($0["topic"].string ?? "").hasSuffix(s.g1.id) }?["lon"].double
        },
    ]

    @Test(arguments: paths)
    func aMemberSeesTheNewestFixTakenWhileShared(_ path: LatestPath) throws {
        try TestApp.with { app in
            let s = try Self.scenario(app)
            #expect(try path.read(app, s, s.world.users["ann"]!.token) == Scenario.shown)
        }
    }

    /// History imported from before the device joined is never the group's "latest".
    @Test func historyFromBeforeJoiningIsNoPosition() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let hal = try app.signUp("hal" + w.suffix)
            let device = try client.request("POST", "/v1/devices", token: hal.token, json: #"{"name":"H1"}"#)
            let h1 = (id: device.json["device"]["id"].string ?? "", token: device.json["deviceToken"].string ?? "")
            try Self.post(app, h1, longitude: 30, at: Self.now() - 400 * 86_400_000)
            try Self.expect(client.request("POST", "/v1/groups/\(w.groupID)/invitations", token: w.users["ann"]!.token,
                                      json: #"{"email":"hal\#(w.suffix)@example.org"}"#), 201)
            try Self.expect(client.request("POST", "/v1/invitations/\(w.groupID)/accept", token: hal.token, json: #"{"deviceId":"\#(h1.id)"}"#), 200)
            let members = try client.get("/v1/groups/\(w.groupID)", token: w.users["ann"]!.token).json["members"].array
            #expect(members.first { $0["deviceId"].string == h1.id }?["location"].isNull == true)
            #expect(try client.get("/v1/devices/\(h1.id)", token: w.users["ann"]!.token).json["lastLocation"].isNull)
            #expect(try client.get("/v1/devices/\(h1.id)", token: hal.token).json["lastLocation"]["location"][0].double == 30)
            let body = #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[30,50]}}}}}"#
            let results = try client.request("POST", "/v1/groups/\(w.groupID)/query", token: w.users["ann"]!.token, json: body).json["results"].array
            #expect(!results.contains { $0["deviceId"].string == h1.id })
        }
    }

    /// What a group sees of a hidden latest is remembered between reads, and forgotten when the
    /// device's history changes: a backfill taken while shared, newer than what was shown, shows.
    @Test func aBackfillWhileSharedReplacesARememberedPosition() throws {
        try TestApp.with { app in
            let s = try Self.scenario(app)
            let path = LatestVisibilityTests.paths[0]
            #expect(try path.read(app, s, s.world.users["ann"]!.token) == Scenario.shown)
            #expect(try path.read(app, s, s.world.users["ann"]!.token) == Scenario.shown)
            try Self.post(app, s.g1, longitude: 15, at: s.shownAt + 1)
            #expect(try path.read(app, s, s.world.users["ann"]!.token) == 15)
        }
    }

    /// The device's owner sees its newest fix whatever the sharing.
    @Test func theOwnerSeesTheNewestOfAll() throws {
        try TestApp.with { app in
            let s = try Self.scenario(app)
            #expect(try app.client().get("/v1/devices/\(s.g1.id)", token: s.gus.token).json["lastLocation"]["location"][0].double == Scenario.hidden)
        }
    }

    // MARK: Rejoined

    /// Gus posts at 11 with G1, leaves, and comes back with `rejoinWith` (G1 again, or a new
    /// G2) and posts at 12 with it. Returns the longitudes of Gus's location events Ann is
    /// served by `/changes` and by a replay from the log's start.
    static func rejoin(_ app: TestApp, sameDevice: Bool) throws -> (changes: [Double], replay: [Double]) {
        let w = try PermissionWorld(app: app)
        let client = try app.client()
        let ann = w.users["ann"]!
        let gus = try app.signUp("gus" + w.suffix)
        func addDevice(_ name: String) throws -> (id: String, token: String) {
            let device = try client.request("POST", "/v1/devices", token: gus.token, json: #"{"name":"\#(name)"}"#)
            return (device.json["device"]["id"].string ?? "", device.json["deviceToken"].string ?? "")
        }
        func join(_ device: (id: String, token: String)) throws {
            try expect(client.request("POST", "/v1/groups/\(w.groupID)/invitations", token: ann.token, json: #"{"email":"gus\#(w.suffix)@example.org"}"#), 201)
            try expect(client.request("POST", "/v1/invitations/\(w.groupID)/accept", token: gus.token, json: #"{"deviceId":"\#(device.id)"}"#), 200)
        }
        let g1 = try addDevice("G1")
        try join(g1)
        try post(app, g1, longitude: 11, at: tick())
        try expect(client.request("DELETE", "/v1/groups/\(w.groupID)/members/\(gus.id)", headers: ["Authorization": "Bearer \(gus.token)"]), 204)
        _ = tick()
        let again = sameDevice ? g1 : try addDevice("G2")
        try join(again)
        try post(app, again, longitude: 12, at: tick())
        let events = try client.get("/v1/groups/\(w.groupID)/changes?since=0", token: ann.token).json["events"].array
        let changes = events.filter { $0["type"].string == "location" && $0["data"]["userId"].string == gus.id }
            .compactMap { $0["data"]["location"][0].double }
        let (_, replay) = try LiveFeedTests.open(app, w, lastEventID: "0")
        try LiveFeedTests.post(app, w, device: "A1", [(99, 9)], from: now() + 1)
        var replayed: [Double] = []
        while let event = try replay.nextEvent() {
            guard event.name == "location" else { continue }
            if event.json["deviceId"].string == w.devices["A1"]!.id { break }
            if event.json["userId"].string == gus.id { replayed.append(event.json["location"][0].double ?? -1) }
        }
        return (changes, replayed)
    }

    @Test(arguments: [true, false])
    func aRejoinServesOnlyTheNewMembershipsPositions(sameDevice: Bool) throws {
        try TestApp.with { app in
            let served = try Self.rejoin(app, sameDevice: sameDevice)
            #expect(served.changes == [12])
            #expect(served.replay == [12])
        }
    }
}
