import Foundation
import Testing
import HTTPTestSupport
import Tracking

/// Friends in the OwnTracks app (API.md, "Phone apps: friends in OwnTracks"), through the
/// real server: the reply to `POST /v1/ingest/owntracks`.
@Suite struct OwnTracksFriendsTests {
    static func reply(_ app: TestApp, device: (id: String, token: String), body: String = #"{"_type":"lwt","tst":1700000000}"#) throws -> HTTPTestClient.Reply {
        let basic = "Basic " + Data("\(device.id):\(device.token)".utf8).base64EncodedString()
        return try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                        body: Array(body.utf8))
    }

    static func post(_ app: TestApp, _ device: (id: String, token: String), _ lon: Double, _ lat: Double, at ts: Int64, accuracy: Double? = nil) throws {
        let acc = accuracy.map { #","accuracy":\#($0)"# } ?? ""
        let reply = try app.client().request("POST", "/v1/devices/\(device.id)/locations", token: device.token,
                                             json: #"{"location":[\#(lon),\#(lat)],"timestamp":\#(ts)\#(acc)}"#)
        guard reply.status == 200 else { throw TestFailure("post: \(reply.text)") }
    }

    @Test func cardsAndLatestLocationsOfTheOtherSharingMembers() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let t = w.sharedSince + 10_000
            try Self.post(app, w.devices["A1"]!, -0.12, 51.5, at: t, accuracy: 12.4)
            try Self.post(app, w.devices["B1"]!, 2.35, 48.85, at: t)
            try Self.post(app, w.devices["B1"]!, 2.36, 48.86, at: t + 5_000)
            for other in ["C1", "D1", "E1", "F1"] { try Self.post(app, w.devices[other]!, 10, 10, at: t) }
            // C1 (Cat's, opted in) posts its own fix in OwnTracks' format and gets the group back.
            let reply = try Self.reply(app, device: w.devices["C1"]!, body: #"{"_type":"location","lat":40.0,"lon":-74.0,"tst":\#((t + 6_000) / 1000),"tid":"ct"}"#)
            #expect(reply.status == 200 && reply.header("Content-Type")?.hasPrefix("application/json") == true)
            let messages = reply.json.array
            let a1 = w.devices["A1"]!.id, b1 = w.devices["B1"]!.id
            let expectedOrder = [a1, b1].sorted()
            #expect(messages.map { $0["_type"].string ?? "" } == ["card", "location", "card", "location"])
            #expect(messages.compactMap { $0["topic"].string } == expectedOrder.flatMap { id in
                Array(repeating: "owntracks/\(id == a1 ? w.users["ann"]!.id : w.users["bob"]!.id)/\(id)", count: 2)
            })
            for message in messages {
                let id = String(message["topic"].string?.split(separator: "/").last ?? "")
                #expect(message["tid"].string == OwnTracksTID.of(DeviceID(id)) && message["tid"].string?.count == 2)
                if message["_type"].string == "card" {
                    #expect(message["name"].string == (id == a1 ? "ann" : "bob") + w.suffix)
                } else {
                    #expect(message["tst"].int != nil)
                }
            }
            let ann = try #require(messages.first { $0["_type"].string == "location" && $0["topic"].string?.hasSuffix(a1) == true })
            #expect(ann["lat"].double == 51.5 && ann["lon"].double == -0.12 && ann["tst"].int == Int(t / 1000) && ann["acc"].int == 12)
            let bob = try #require(messages.first { $0["_type"].string == "location" && $0["topic"].string?.hasSuffix(b1) == true })
            #expect(bob["lon"].double == 2.36 && bob["tst"].int == Int((t + 5_000) / 1000) && bob["acc"].exists == false)
            // Stable: the same reply again (no fix this time).
            #expect(try Self.reply(app, device: w.devices["C1"]!).text == reply.text)
            // The fix C1 sent was stored before the reply.
            #expect(try app.client().get("/v1/devices/\(w.devices["C1"]!.id)/locations", token: w.users["cat"]!.token).json["locations"].count == 2)

            // Bob stops sharing: B1 leaves the reply at once. Cat opts out: [].
            #expect(try app.client().request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#).status == 200)
            #expect(try Self.reply(app, device: w.devices["C1"]!).json.array.compactMap { $0["topic"].string }.allSatisfy { $0.hasSuffix(a1) })
            #expect(try app.client().request("PATCH", "/v1/devices/\(w.devices["C1"]!.id)", token: w.users["cat"]!.token, json: #"{"receiveGroupLocations":false}"#).json["receiveGroupLocations"].bool == false)
            #expect(try Self.reply(app, device: w.devices["C1"]!).text == "[]")
        }
    }

    /// A friend's latest position from outside its sharing periods (here: from before the
    /// group existed) is never sent; its card is, and its next shared fix shows.
    @Test func historyVisibilityHoldsForTheLatestLocation() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let a1 = w.devices["A1"]!, b1 = w.devices["B1"]!
            // A1's only fix is from a day before the group existed; B1 has none.
            try Self.post(app, a1, 1, 1, at: w.sharedSince - 86_400_000)
            // Neither the group document nor the OwnTracks reply shows it (one rule for "latest").
            let group = try app.client().get("/v1/groups/\(w.groupID)", token: w.users["cat"]!.token)
            #expect(!group.json["members"].array.contains { $0["location"]["coordinates"][0].double == 1 })
            let messages = try Self.reply(app, device: w.devices["C1"]!).json.array
            #expect(messages.count == 2 && messages.allSatisfy { $0["_type"].string == "card" })
            let later = w.sharedSince + 1_000
            try Self.post(app, b1, 3, 3, at: later)
            try Self.post(app, a1, 4, 4, at: later)
            let now = try Self.reply(app, device: w.devices["C1"]!).json.array.filter { $0["_type"].string == "location" }
            #expect(Set(now.compactMap { $0["lon"].double }) == [3, 4])
        }
    }

    @Test func settingIsTheOwnersAndWithoutGroupsTheReplyIsEmpty() throws {
        try TestApp.with { app in
            let d = try DeviceFixture(app: app)
            let device = try app.client().get("/v1/devices/\(d.deviceID)", token: d.user.token)
            #expect(device.json["receiveGroupLocations"].bool == false)
            for body in [#"{"receiveGroupLocations":"yes"}"#, "{}", #"{"receiveGroupLocations":1}"#] {
                #expect(try app.client().request("PATCH", "/v1/devices/\(d.deviceID)", token: d.user.token, json: body).status == 400, "\(body)")
            }
            let on = try app.client().request("PATCH", "/v1/devices/\(d.deviceID)", token: d.user.token, json: #"{"receiveGroupLocations":true}"#)
            #expect(on.status == 200 && on.json["receiveGroupLocations"].bool == true && on.json["name"].string == "phone")
            #expect(try Self.reply(app, device: (d.deviceID, d.deviceToken)).text == "[]")
            // Only the owner sees the setting.
            let w = try PermissionWorld(app: app)
            let asMember = try app.client().get("/v1/devices/\(w.devices["B1"]!.id)", token: w.users["ann"]!.token)
            #expect(asMember.status == 200 && asMember.json["receiveGroupLocations"].exists == false)
        }
    }

    /// A friend's battery (its device status, from any message, a heartbeat included) goes with
    /// its location, so the app shows it; never with a card alone.
    @Test func aFriendsBatteryGoesWithItsLocation() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let t = w.sharedSince + 10_000
            try Self.post(app, w.devices["A1"]!, -0.12, 51.5, at: t)
            try Self.post(app, w.devices["B1"]!, 2.35, 48.85, at: t)
            // Bob's phone tells its battery in a heartbeat without a fix.
            let heartbeat = try app.client().get("/v1/ingest/osmand?id=\(w.devices["B1"]!.token)&timestamp=\(t / 1000 + 1)&batt=47")
            #expect(heartbeat.status == 200)
            let messages = try Self.reply(app, device: w.devices["C1"]!).json.array
            let b1 = w.devices["B1"]!.id
            let bob = try #require(messages.first { $0["_type"].string == "location" && $0["topic"].string?.hasSuffix(b1) == true })
            #expect(bob["batt"].int == 47)
            #expect(messages.filter { $0["batt"].exists }.count == 1)
        }
    }
}
