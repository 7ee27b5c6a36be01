import Foundation
import Testing
import HTTPTestSupport
import ReceiverTestSupport
import ProcessTestSupport
import API

/// Notifications through the real server against local receivers (API.md "Notifications:
/// arrivals reach people"): every rule of the contract, on either store.
@Suite struct NotificationTests {
    /// A server whose notifications may reach loopback receivers, with quick retries.
    static func app(allowPrivate: Bool = true, backoff: [Int64] = [50, 100], disableAfter: Int64 = 24 * 3_600_000) throws -> TestApp {
        try TestApp(configure: { settings in
            settings.notifications.client.policy.allowPrivate = allowPrivate
            settings.notifications.worker.policy.backoff = backoff
            settings.notifications.worker.policy.jitter = 0
            settings.notifications.worker.policy.disableAfter = disableAfter
            settings.notifications.worker.idleSeconds = 0.2
            settings.notifications.matcher.catchUpSeconds = 0.2
        })
    }

    /// Ann's webhook to `receiver` with an alert on every place of the group; returns the channel.
    static func webhook(_ world: PlaceWorld, _ receiver: LocalReceiver, as user: String = "ann", type: String = "webhook",
                        token: String? = nil, path: String = "/hook") throws -> TestJSON {
        let client = try world.app.client()
        let tokenField = token.map { #","token":"\#($0)""# } ?? ""
        let channel = try client.request("POST", "/v1/me/channels", token: world.users[user]!.token,
                                         json: #"{"name":"home","type":"\#(type)","url":"\#(receiver.url(path))"\#(tokenField)}"#)
        guard channel.status == 201 else { throw TestFailure("channel: \(channel.status) \(channel.text)") }
        let alert = try client.request("POST", "/v1/groups/\(world.groupID)/alerts", token: world.users[user]!.token,
                                       json: #"{"channelId":"\#(channel.json["id"].string ?? "")","events":["enter","exit"]}"#)
        guard alert.status == 201 else { throw TestFailure("alert: \(alert.status) \(alert.text)") }
        return channel.json
    }

    /// Bob's B1 starts 1 km out (set silently), then walks into School (a 150 m circle).
    static func bobArrivesAtSchool(_ world: PlaceWorld) throws {
        try world.walk("B1", [1_000], from: 0)
        _ = try world.createCircle("School", radius: 150)
        try world.walk("B1", [10], from: 1_000)
    }

    /// HMAC-SHA256 by Python's standard library (an implementation that is not ours).
    static func pythonSignature(secret: String, id: String, timestamp: String, body: [UInt8]) throws -> String {
        let script = """
            import base64, hashlib, hmac, sys
            key = base64.b64decode(sys.argv[1].split('_', 1)[1])
            body = base64.b64decode(sys.argv[4])
            mac = hmac.new(key, (sys.argv[2] + '.' + sys.argv[3] + '.').encode() + body, hashlib.sha256).digest()
            print('v1,' + base64.b64encode(mac).decode())
            """
        let run = try runToCompletion("/usr/bin/env", ["python3", "-c", script, secret, id, timestamp, Data(body).base64EncodedString()],
                                      limitSeconds: 60)
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anArrivalReachesAWebhookSignedAsStandardWebhooksSays() throws {
        let app = try Self.app()
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        let secret = try #require(channel["secret"].string)
        #expect(secret.hasPrefix("whsec_"))
        try Self.bobArrivesAtSchool(world)
        let got = try #require(receiver.next())
        #expect(got.method == "POST" && got.path == "/hook" && got.header("Content-Type") == "application/json")
        let id = try #require(got.header("webhook-id")), timestamp = try #require(got.header("webhook-timestamp"))
        #expect(id.hasPrefix("msg_"))
        let now = Date().timeIntervalSince1970
        #expect(abs((Double(timestamp) ?? 0) - now) < 300)
        #expect(got.header("webhook-signature") == (try Self.pythonSignature(secret: secret, id: id, timestamp: timestamp, body: got.body)))
        let body = TestJSON(got.body)
        #expect(body["id"].string == id && body["type"].string == "place.enter")
        #expect(body["place"]["name"].string == "School" && body["group"]["name"].string == "Family")
        #expect(body["device"]["name"].string == "B1" && body["device"]["id"].string == world.devices["B1"]!.id)
        #expect(body["member"]["userId"].string == world.users["bob"]!.id)
        #expect(body["member"]["displayName"].string?.hasPrefix("bob") == true)
        #expect(body["location"].count == 2 && body["occurredAt"].string != nil)
        // The log says it was delivered; the channel never shows its secret again.
        let client = try app.client()
        let log = try client.get("/v1/me/channels/\(channel["id"].string ?? "")/deliveries", token: world.users["ann"]!.token).json["deliveries"]
        #expect(log.count == 1 && log[0]["id"].string == id && log[0]["eventType"].string == "place.enter")
        let channels = try client.get("/v1/me/channels", token: world.users["ann"]!.token)
        #expect(channels.json["channels"].count == 1 && !channels.text.contains(secret) && !channels.text.contains("\"secret\""))
        // Leaving: an exit.
        try world.walk("B1", [2_000], from: 2_000)
        let exit = try #require(receiver.next())
        #expect(TestJSON(exit.body)["type"].string == "place.exit" && exit.header("webhook-id") != id)
    }

    @Test func failuresAreRetriedWithTheSameIDUntilDelivered() throws {
        let app = try Self.app()
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script([.init(status: 503), .init(status: 429, headers: [("Retry-After", "0")]), .init(status: 204)])
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        try Self.bobArrivesAtSchool(world)
        let attempts = (0..<3).compactMap { _ in receiver.next() }
        #expect(attempts.count == 3)
        #expect(Set(attempts.compactMap { $0.header("webhook-id") }).count == 1)
        let deliveries = try Self.waitForDeliveries(app, world, channel: channel) { $0.first?["status"].string == "delivered" }
        #expect(deliveries.first?["attempts"].int == 3 && deliveries.first?["httpStatus"].int == 204)
    }

    /// A channel's backlog goes out in event order though a sender leases it together: a delivery
    /// that fails holds back the ones behind it (released unsent) until it is delivered.
    @Test func aBacklogGoesOutInEventOrderAndAFailureHoldsTheRestBack() throws {
        let app = try Self.app(backoff: [50, 50, 50])
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        let gate = ReceiverGate()
        receiver.script([.init(status: 503, hold: gate), .init(status: 503), .init(status: 204), .init(status: 204)])
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        try Self.bobArrivesAtSchool(world)
        // The arrival's first attempt is held at the receiver while Bob leaves: the departure
        // queues behind it, and the retries lease both.
        try world.walk("B1", [2_000], from: 2_000)
        _ = try Self.waitForDeliveries(app, world, channel: channel) { $0.count == 2 }
        gate.open()
        let arrivals = (0..<4).compactMap { _ in receiver.next() }
        #expect(arrivals.map { TestJSON($0.body)["type"].string ?? "" } == ["place.enter", "place.enter", "place.enter", "place.exit"])
        #expect(Set(arrivals.prefix(3).compactMap { $0.header("webhook-id") }).count == 1)
        let log = try Self.waitForDeliveries(app, world, channel: channel) { $0.allSatisfy { $0["status"].string == "delivered" } }
        #expect(log.map { $0["attempts"].int ?? 0 } == [1, 3])
    }

    @Test func aGoneReceiverEndsTheDeliveryAndAnotherClientErrorIsNotRetried() throws {
        let app = try Self.app()
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script([.init(status: 400, body: Array("bad".utf8)), .init(status: 410)])
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        try Self.bobArrivesAtSchool(world)
        _ = try #require(receiver.next())
        let failed = try Self.waitForDeliveries(app, world, channel: channel) { $0.first?["status"].string == "failed" }
        #expect(failed.first?["attempts"].int == 1 && failed.first?["httpStatus"].int == 400 && failed.first?["error"].string == "bad")
        try world.walk("B1", [2_000], from: 2_000)
        _ = try #require(receiver.next())
        let id = channel["id"].string ?? ""
        let disabled = try Self.waitFor { try app.client().get("/v1/me/channels/\(id)", token: world.users["ann"]!.token).json["enabled"].bool == false }
        #expect(disabled)
        let document = try app.client().get("/v1/me/channels/\(id)", token: world.users["ann"]!.token).json
        #expect(document["disabledReason"].string?.contains("410") == true)
        #expect(receiver.next(timeout: 0.5) == nil)
    }

    @Test func aChannelFailingForTheWholeWindowIsDisabledUntilItsOwnerTurnsItOn() throws {
        let app = try Self.app(backoff: [30], disableAfter: 200)
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script(Array(repeating: .init(status: 500), count: 1_000))
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        let id = channel["id"].string ?? ""
        try Self.bobArrivesAtSchool(world)
        #expect(try Self.waitFor { try app.client().get("/v1/me/channels/\(id)", token: world.users["ann"]!.token).json["enabled"].bool == false })
        let document = try app.client().get("/v1/me/channels/\(id)", token: world.users["ann"]!.token).json
        #expect(document["disabledReason"].string?.contains("failed") == true)
        let deliveries = try app.client().get("/v1/me/channels/\(id)/deliveries", token: world.users["ann"]!.token).json["deliveries"]
        #expect(deliveries.array.allSatisfy { $0["status"].string == "failed" })
        let enabled = try app.client().request("PATCH", "/v1/me/channels/\(id)", token: world.users["ann"]!.token, json: #"{"enabled":true}"#)
        #expect(enabled.json["enabled"].bool == true && enabled.json["disabledReason"].isNull == false && enabled.json["disabledReason"].string == nil)
    }

    @Test func ntfyAndGotifyGetTheirOwnRequests() throws {
        let app = try Self.app()
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        let world = try PlaceWorld(app: app)
        _ = try Self.webhook(world, receiver, type: "ntfy", token: "tk_ntfy", path: "/family")
        _ = try Self.webhook(world, receiver, as: "cat", type: "gotify", token: "gotify-app-token", path: "/gotify")
        try Self.bobArrivesAtSchool(world)
        let both = [try #require(receiver.next()), try #require(receiver.next())]
        let ntfy = try #require(both.first { $0.path == "/family" })
        #expect(ntfy.text.hasPrefix("bob") && ntfy.text.hasSuffix(" arrived at School"))
        #expect(ntfy.header("Title") == "Family" && ntfy.header("Tags") == "round_pushpin" && ntfy.header("Authorization") == "Bearer tk_ntfy")
        let gotify = try #require(both.first { $0.path == "/gotify/message" })
        #expect(gotify.header("X-Gotify-Key") == "gotify-app-token")
        let message = TestJSON(gotify.body)
        #expect(message["title"].string == "Family" && message["message"].string?.hasSuffix("arrived at School") == true && message["priority"].int == 5)
    }

    @Test func aTestSendReportsWhatTheReceiverSaid() throws {
        let app = try Self.app()
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script([.init(status: 200), .init(status: 401)])
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        let path = "/v1/me/channels/\(channel["id"].string ?? "")/test"
        let ok = try app.client().request("POST", path, token: world.users["ann"]!.token, json: "{}")
        #expect(ok.status == 200 && ok.json["status"].string == "delivered" && ok.json["httpStatus"].int == 200)
        #expect(TestJSON(try #require(receiver.next()).body)["type"].string == "test")
        let refused = try app.client().request("POST", path, token: world.users["ann"]!.token, json: "{}")
        #expect(refused.json["status"].string == "failed" && refused.json["httpStatus"].int == 401)
        // Someone else's channel does not exist for them.
        #expect(try app.client().request("POST", path, token: world.users["bob"]!.token, json: "{}").status == 404)
    }

    /// Destinations are checked when a channel is made (nothing is ever sent beyond loopback in
    /// a test: every address here is refused before any connection).
    @Test(arguments: [
        ("http://127.0.0.1:9/hook", 422, "destination_not_allowed"),
        ("http://localhost:9/hook", 422, "destination_not_allowed"),
        ("http://10.1.2.3/hook", 422, "destination_not_allowed"),
        ("http://169.254.169.254/latest/meta-data", 422, "destination_not_allowed"),
        ("http://[::1]:9/", 422, "destination_not_allowed"),
        ("http://[::ffff:192.168.0.1]/", 422, "destination_not_allowed"),
        ("http://0.0.0.0/", 422, "destination_not_allowed"),
        ("ftp://127.0.0.1/", 400, "invalid_destination"),
        ("https://user:secret@127.0.0.1/", 400, "invalid_destination"),
        ("not a url", 400, "invalid_destination"),
    ])
    func privateDestinationsAreRefused(_ url: String, _ status: Int, _ code: String) throws {
        let app = try Self.app(allowPrivate: false)
        defer { app.close() }
        let user = try app.signUp("ssrf-" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        let reply = try app.client().request("POST", "/v1/me/channels", token: user.token, json: #"{"name":"x","type":"webhook","url":"\#(url)"}"#)
        #expect(reply.status == status)
        #expect(reply.json["error"]["code"].string == code)
    }

    /// Nothing is sent about a device its alert's owner may not read at the event's time.
    @Test func aMemberWhoDoesNotShareSetsOffNoAlertAndAlertsAreTheirOwners() throws {
        let app = try Self.app()
        defer { app.close() }
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        let world = try PlaceWorld(app: app)
        let channel = try Self.webhook(world, receiver)
        // Bob stops sharing, then walks into School: no event, nothing sent.
        try world.walk("B1", [1_000], from: 0)
        _ = try world.createCircle("School", radius: 150)
        let client = try app.client()
        _ = try client.request("PUT", "/v1/groups/\(world.groupID)/sharing", token: world.users["bob"]!.token, json: #"{"shareLocation":false}"#)
        try world.walk("B1", [10], from: 1_000)
        // Cat (not sharing) moving sets nothing off either; Ann's own alert list has only hers.
        try world.walk("C1", [1_000, 10], from: 2_000)
        #expect(receiver.next(timeout: 1.5) == nil)
        #expect(try client.get("/v1/groups/\(world.groupID)/alerts", token: world.users["bob"]!.token).json["alerts"].count == 0)
        #expect(try client.get("/v1/groups/\(world.groupID)/alerts", token: world.users["ann"]!.token).json["alerts"].count == 1)
        // An alert through someone else's channel, or in a group one is not in: 404.
        let bobsAlert = try client.request("POST", "/v1/groups/\(world.groupID)/alerts", token: world.users["bob"]!.token,
                                           json: #"{"channelId":"\#(channel["id"].string ?? "")","events":["enter"]}"#)
        #expect(bobsAlert.status == 404)
        let outsider = try app.signUp("eve-" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        #expect(try client.request("POST", "/v1/groups/\(world.groupID)/alerts", token: outsider.token,
                                   json: #"{"channelId":"\#(channel["id"].string ?? "")","events":["enter"]}"#).status == 404)
        // Ann leaves? She owns the group. Cat makes an alert and leaves: it ends with her membership.
        let catChannel = try client.request("POST", "/v1/me/channels", token: world.users["cat"]!.token,
                                            json: #"{"name":"c","type":"webhook","url":"\#(receiver.url())"}"#)
        let catAlert = try client.request("POST", "/v1/groups/\(world.groupID)/alerts", token: world.users["cat"]!.token,
                                          json: #"{"channelId":"\#(catChannel.json["id"].string ?? "")","events":["exit"]}"#)
        #expect(catAlert.status == 201)
        _ = try client.request("DELETE", "/v1/groups/\(world.groupID)/members/\(world.users["cat"]!.id)",
                               headers: ["Authorization": "Bearer \(world.users["cat"]!.token)"])
        #expect(try client.get("/v1/groups/\(world.groupID)/alerts", token: world.users["cat"]!.token).status == 404)
    }

    // MARK: Helpers

    /// Polls `condition` (a server's state, not a time) until it holds, at most ~20 s.
    static func waitFor(_ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<400 {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    static func waitForDeliveries(_ app: TestApp, _ world: PlaceWorld, channel: TestJSON,
                                  until condition: ([TestJSON]) -> Bool) throws -> [TestJSON] {
        var last: [TestJSON] = []
        _ = try waitFor {
            last = try app.client().get("/v1/me/channels/\(channel["id"].string ?? "")/deliveries", token: world.users["ann"]!.token)
                .json["deliveries"].array
            return condition(last)
        }
        return last
    }
}

/// OwnTracks shows a friend's arrival itself: the reply to a post carries a `transition` for
/// each place event of the other sharing members since the device's previous post, once.
@Suite struct OwnTracksTransitionTests {
    static func post(_ app: TestApp, _ device: (id: String, token: String)) throws -> [TestJSON] {
        try OwnTracksFriendsTests.reply(app, device: device, body: #"{"_type":"location","lat":40.6,"lon":-74.1,"tst":\#(Int(Date().timeIntervalSince1970))}"#)
            .json.array.filter { $0["_type"].string == "transition" }
    }

    @Test func aFriendsArrivalComesOnceInTheNextReply() throws {
        let app = try NotificationTests.app()
        defer { app.close() }
        let world = try PlaceWorld(app: app)
        let c1 = world.devices["C1"]!
        #expect(try app.client().request("PATCH", "/v1/devices/\(c1.id)", token: world.users["cat"]!.token,
                                         json: #"{"receiveGroupLocations":true}"#).status == 200)
        #expect(try Self.post(app, c1).isEmpty)   // the first post sets where the device stands
        try NotificationTests.bobArrivesAtSchool(world)
        let transitions = try Self.post(app, c1)
        #expect(transitions.count == 1)
        let enter = try #require(transitions.first)
        #expect(enter["event"].string == "enter" && enter["desc"].string == "School" && enter["t"].string == "c")
        #expect(enter["topic"].string == "owntracks/\(world.users["bob"]!.id)/\(world.devices["B1"]!.id)")
        #expect(enter["tst"].int != nil && enter["lat"].double != nil && enter["lon"].double != nil && enter["tid"].string?.count == 2)
        #expect(try Self.post(app, c1).isEmpty)   // once
        // Bob leaves while not sharing: nothing; a device that does not receive gets nothing.
        _ = try app.client().request("PUT", "/v1/groups/\(world.groupID)/sharing", token: world.users["bob"]!.token, json: #"{"shareLocation":false}"#)
        try world.walk("B1", [2_000], from: 5_000)
        #expect(try Self.post(app, c1).isEmpty)
        #expect(try Self.post(app, world.devices["A1"]!).isEmpty)
    }
}
