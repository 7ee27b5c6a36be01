import Foundation
import Testing
import HTTPTestSupport
import API

/// Share links through the real server (API.md, "Share links").
@Suite struct ShareLinkTests {
    static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func create(_ app: TestApp, _ d: DeviceFixture, _ json: String = #"{"expiresIn":600}"#) throws -> HTTPTestClient.Reply {
        try app.client().request("POST", "/v1/devices/\(d.deviceID)/shares", token: d.user.token, json: json)
    }

    static func openLive(_ app: TestApp, token: String) throws -> (HTTPTestClient.Reply, SSEReader) {
        let client = try app.client()
        let head = try client.openStream("/v1/shared/\(token)/live")
        return (head, SSEReader(client: client))
    }

    @Test func createReadListAndCountViews() throws {
        try TestApp.with { app in
            let d = try DeviceFixture(app: app)
            let before = Self.nowMilliseconds()
            #expect(try d.post(app, #"{"location":[2.0,48.0],"timestamp":\#(before - 3_600_000)}"#).status == 200)
            let created = try Self.create(app, d, #"{"name":"for grandma","expiresIn":600}"#)
            #expect(created.status == 201, "\(created.text)")
            let token = try #require(created.json["token"].string)
            #expect(token.hasPrefix("fods_") && token.utf8.count == 48)
            #expect(created.json["url"].string == "/s/" + token)
            #expect(created.json["id"].string?.hasPrefix("sh_") == true && created.json["name"].string == "for grandma")
            let createdAt = try #require(created.json["createdAt"].string.flatMap(Self.parse))
            let expiresAt = try #require(created.json["expiresAt"].string.flatMap(Self.parse))
            #expect(expiresAt - createdAt == 600_000)
            // Two fixes after creation (future timestamps are allowed up to a day ahead).
            #expect(try d.post(app, #"{"locations":[{"location":[2.1,48.1],"timestamp":\#(createdAt + 60_000),"accuracy":7},{"location":[2.2,48.2],"timestamp":\#(createdAt + 120_000),"accuracy":9}]}"#).status == 200)
            let shared = try app.client().get("/v1/shared/\(token)")
            #expect(shared.status == 200)
            #expect(shared.header("Cache-Control") == "no-store" && shared.header("Referrer-Policy") == "no-referrer")
            #expect(shared.json["deviceName"].string == "phone")
            #expect(shared.json["location"]["coordinates"][0].double == 2.2 && shared.json["location"]["accuracy"].double == 9)
            #expect(shared.json["expiresAt"].string == created.json["expiresAt"].string)
            // The track holds only fixes from the link's creation on.
            let track = shared.json["track"].array
            #expect(track.count == 2 && track[0][0].double == 2.1 && track[1][0].double == 2.2)
            #expect(track[0][2].string.flatMap(Self.parse) == createdAt + 60_000)
            // The owner's list: views counted, the token never shown again.
            _ = try app.client().get("/v1/shared/\(token)")
            let list = try app.client().get("/v1/devices/\(d.deviceID)/shares", token: d.user.token)
            #expect(list.status == 200 && list.json["shares"].count == 1)
            #expect(list.json["shares"][0]["views"].int == 2 && list.json["shares"][0]["active"].bool == true)
            #expect(!list.text.contains(token) && !list.text.contains("token"))
            // Stored hashed: no row holds the token itself.
            let stored = try app.storage.strings("SELECT token_hash FROM shares")
            #expect(stored.count == 1 && stored[0].utf8.count == 64 && stored[0] != token && !stored[0].contains(String(token.dropFirst(5))))
        }
    }

    @Test func unknownExpiredRevokedAndMalformedTokensGetTheSame404() throws {
        try TestApp.with { app in
            let d = try DeviceFixture(app: app)
            let live = try #require(try Self.create(app, d).json["token"].string)
            let revoked = try Self.create(app, d)
            let revokedID = try #require(revoked.json["id"].string)
            #expect(try app.client().request("DELETE", "/v1/devices/\(d.deviceID)/shares/\(revokedID)", headers: ["Authorization": "Bearer \(d.user.token)"]).status == 204)
            #expect(try app.client().request("DELETE", "/v1/devices/\(d.deviceID)/shares/\(revokedID)", headers: ["Authorization": "Bearer \(d.user.token)"]).status == 404)
            let expired = try app.expiredShare(deviceID: d.deviceID, ownerID: d.user.id).token
            let unknown = "fods_" + String(repeating: "A", count: 43)
            #expect(try app.client().get("/v1/shared/\(live)").status == 200)
            var bodies: Set<String> = []
            for token in [unknown, expired, try #require(revoked.json["token"].string), "fods_short", "not-a-token"] {
                for path in ["/v1/shared/\(token)", "/v1/shared/\(token)/live"] {
                    let reply = try app.client().get(path)
                    #expect(reply.status == 404, "\(path): \(reply.text)")
                    bodies.insert(reply.text)
                }
            }
            #expect(bodies.count == 1, "\(bodies)")
        }
    }

    @Test func renewingGivesAFreshExpiryAndAnExpiredLinkAFreshTrack() throws {
        try TestApp.with { app in
            let d = try DeviceFixture(app: app)
            let expired = try app.expiredShare(deviceID: d.deviceID, ownerID: d.user.id, ageSeconds: 7_200, lifetimeSeconds: 3_600)
            // A fix from while the link was off (after its creation).
            let whileOff = Self.nowMilliseconds() - 1_800_000
            #expect(try d.post(app, #"{"location":[5.0,45.0],"timestamp":\#(whileOff)}"#).status == 200)
            let shares = try app.client().get("/v1/devices/\(d.deviceID)/shares", token: d.user.token)
            #expect(shares.json["shares"][0]["active"].bool == false)
            let before = Self.nowMilliseconds()
            let renewed = try app.client().request("POST", "/v1/devices/\(d.deviceID)/shares/\(expired.id)/renew", token: d.user.token, json: #"{"expiresIn":1800}"#)
            let after = Self.nowMilliseconds()
            #expect(renewed.status == 200, "\(renewed.text)")
            let expiresAt = try #require(renewed.json["expiresAt"].string.flatMap(Self.parse))
            #expect(expiresAt >= before + 1_800_000 - 1 && expiresAt <= after + 1_800_000)
            #expect(renewed.json["active"].bool == true && !renewed.text.contains("fods_"))
            let shared = try app.client().get("/v1/shared/\(expired.token)")
            #expect(shared.status == 200)
            // The latest location is shown; the fix from while the link was off is not in the track.
            #expect(shared.json["location"]["coordinates"][0].double == 5 && shared.json["track"].count == 0)
            // Renewing an active link sets the new lifetime from now, shorter or not (no stale expiry).
            let again = try app.client().request("POST", "/v1/devices/\(d.deviceID)/shares/\(expired.id)/renew", token: d.user.token, json: #"{"expiresIn":60}"#)
            let shorter = try #require(again.json["expiresAt"].string.flatMap(Self.parse))
            #expect(shorter < expiresAt && shorter >= before + 60_000)
            // No body: the default lifetime (an hour).
            let byDefault = try app.client().request("POST", "/v1/devices/\(d.deviceID)/shares/\(expired.id)/renew", headers: ["Authorization": "Bearer \(d.user.token)"])
            #expect(byDefault.status == 200)
            for (body, code) in [(#"{"expiresIn":59}"#, "invalid_expiry"), (#"{"expiresIn":604801}"#, "invalid_expiry"),
                                 (#"{"expiresIn":1.5}"#, "wrong_type"), (#"{"expiresIn":"60"}"#, "wrong_type"), (#"{"name":""}"#, "invalid_name")] {
                let reply = try Self.create(app, d, body)
                #expect(reply.status == 400 && reply.errorCode == code, "\(body): \(reply.text)")
            }
        }
    }

    @Test func guessingTokensIsLimitedPerAddress() throws {
        let app = try TestApp { $0.shares.failedLookupsPerAddress = 5 }
        defer { app.close() }
        let d = try DeviceFixture(app: app)
        let token = try #require(try Self.create(app, d).json["token"].string)
        #expect(try app.client().get("/v1/shared/\(token)").status == 200)
        for i in 0..<5 {
            #expect(try app.client().get("/v1/shared/fods_guess\(i)").status == 404)
        }
        let limited = try app.client().get("/v1/shared/fods_guess5")
        #expect(limited.status == 429 && limited.header("Retry-After") != nil)
        // Past the limit even a right guess is refused: the guesser learns nothing more.
        #expect(try app.client().get("/v1/shared/\(token)").status == 429)
        #expect(try app.client().get("/v1/shared/\(token)/live").status == 429)
        // A share token as a bearer counts the same.
        #expect(try app.client().get("/v1/partitions/device=\(d.deviceID)/permissions", token: "fods_" + String(repeating: "B", count: 43)).status == 429)
    }

    @Test func liveStreamSnapshotThenThatDevicesFixesThenEndAtExpiry() throws {
        try TestApp.with { app in
            let d = try DeviceFixture(app: app)
            let other = try DeviceFixture(app: app, name: "other")
            // Expires about five seconds from now.
            let link = try app.expiredShare(deviceID: d.deviceID, ownerID: d.user.id, ageSeconds: 55, lifetimeSeconds: 60)
            let (head, events) = try Self.openLive(app, token: link.token)
            #expect(head.status == 200 && head.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            let snapshot = try #require(try events.nextEvent())
            #expect(snapshot.name == "snapshot" && snapshot.json["deviceName"].string == "phone" && snapshot.json["location"].isNull)
            let now = Self.nowMilliseconds()
            #expect(try other.post(app, #"{"location":[9.0,9.0],"timestamp":\#(now)}"#).status == 200)
            #expect(try d.post(app, #"{"location":[1.5,2.5],"timestamp":\#(now),"accuracy":4}"#).status == 200)
            let location = try #require(try events.nextEvent())
            #expect(location.name == "location" && location.json["location"][0].double == 1.5 && location.json["latest"].bool == true)
            #expect(location.json["accuracy"].double == 4 && location.json["deviceId"].exists == false)
            let end = try #require(try events.nextEvent())
            #expect(end.name == "end" && end.json["reason"].string == "expired")
            #expect(try events.nextEvent() == nil)
        }
    }

    @Test func sharePageIsServedUnderTheStrictPolicyAndEveryDeadTokenGetsOnePage() throws {
        let app = try TestApp(web: WebAssetsTests.shippedAssets())
        defer { app.close() }
        let d = try DeviceFixture(app: app)
        let token = try #require(try Self.create(app, d).json["token"].string)
        let page = try app.client().get("/s/\(token)")
        #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("/static/share.js") && !page.text.contains("<script>"))
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(page.header("Cache-Control") == "no-store" && page.header("Referrer-Policy") == "no-referrer")
        #expect(try app.client().get("/static/share.js").status == 200)
        #expect(try app.client().get("/static/share.html").status == 404)
        let expired = try app.expiredShare(deviceID: d.deviceID, ownerID: d.user.id).token
        let dead = try [expired, "fods_" + String(repeating: "C", count: 43)].map { try app.client().get("/s/\($0)") }
        #expect(dead.allSatisfy { $0.status == 404 && $0.header("Content-Security-Policy") != nil })
        #expect(Set(dead.map(\.text)).count == 1)
        let list = try app.client().get("/v1/devices/\(d.deviceID)/shares", token: d.user.token)
        #expect(list.json["shares"][0]["views"].int == 1)
    }

    static func parse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}
