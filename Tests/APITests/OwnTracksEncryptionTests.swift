import Foundation
import Testing
import HTTPTestSupport

/// OwnTracks payload encryption through the real server, checked against an implementation of
/// `crypto_secretbox` written apart from the server's libsodium (`Tests/owntracks/secretbox.py`,
/// plain Python): what it seals the server opens, and what the server seals it opens.
@Suite struct OwnTracksEncryptionTests {
    /// The independent implementation, run with `python3`.
    enum IndependentSecretBox {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("owntracks/secretbox.py").path

        static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let bytes = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
        }

        /// `{"_type":"encrypted","data":…}` of `plaintext` under `passphrase`.
        static func seal(_ plaintext: String, passphrase: String) throws -> String {
            let (status, output) = try run(["seal", passphrase, plaintext])
            guard status == 0 else { throw TestFailure("secretbox.py seal failed (\(status))") }
            return output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The plaintext of an encrypted message, or nil when it does not open.
        static func open(_ message: String, passphrase: String) throws -> String? {
            let (status, output) = try run(["open", passphrase, message])
            return status == 0 ? output : nil
        }
    }

    static func post(_ app: TestApp, _ device: (id: String, token: String), _ body: String) throws -> HTTPTestClient.Reply {
        let basic = "Basic " + Data("\(device.id):\(device.token)".utf8).base64EncodedString()
        return try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                        body: Array(body.utf8))
    }

    static func location(at seconds: Int64, lat: Double = 40.0) -> String {
        #"{"_type":"location","_id":"e1","lat":\#(lat),"lon":-74.0,"tst":\#(seconds),"acc":9,"batt":64,"tid":"ct","created_at":\#(seconds)}"#
    }

    static func setSecret(_ app: TestApp, device: String, owner: String, _ secret: String) throws -> HTTPTestClient.Reply {
        try app.client().request("PATCH", "/v1/devices/\(device)", token: owner, json: #"{"owntracksSecret":\#(secret)}"#)
    }

    @Test func anEncryptedPostIsOpenedAndTheReplyWithItsFriendsIsSealed() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let t = w.sharedSince + 10_000
            try OwnTracksFriendsTests.post(app, w.devices["A1"]!, -0.12, 51.5, at: t)
            try OwnTracksFriendsTests.post(app, w.devices["B1"]!, 2.35, 48.85, at: t)
            let cat = w.users["cat"]!.token, c1 = w.devices["C1"]!
            let passphrase = "Üniversität-Kennwort ✓ longer than thirty-two bytes"
            let set = try Self.setSecret(app, device: c1.id, owner: cat, #""\#(passphrase)""#)
            #expect(set.status == 200 && set.json["owntracksEncryption"].bool == true && !set.text.contains(passphrase))

            let sealed = try IndependentSecretBox.seal(Self.location(at: (t + 6_000) / 1000), passphrase: passphrase)
            let reply = try Self.post(app, c1, sealed)
            #expect(reply.status == 200 && reply.json["_type"].string == "encrypted", "\(reply.text)")
            let opened = try #require(try IndependentSecretBox.open(reply.text, passphrase: passphrase))
            let messages = TestJSON(Array(opened.utf8)).array
            #expect(messages.map { $0["_type"].string ?? "" } == ["card", "location", "card", "location"], "\(opened)")
            #expect(messages.contains { $0["_type"].string == "location" && $0["lon"].double == 2.35 })
            // The fix inside was stored, with its battery as the device's.
            let history = try app.client().get("/v1/devices/\(c1.id)/locations", token: cat).json["locations"].array
            #expect(history.count == 1 && history.first?["location"][1].double == 40.0)
            #expect(try app.client().get("/v1/devices/\(c1.id)", token: cat).json["battery"].double == 64)
            // The key is the passphrase's first 32 bytes, as in the apps: what follows does not count.
            let prefix = String(decoding: Array(passphrase.utf8).prefix(32), as: UTF8.self)
            #expect(try IndependentSecretBox.open(reply.text, passphrase: prefix + "anything else") != nil)
            // A plain post from the same phone is answered plain (it may not encrypt yet).
            let plain = try Self.post(app, c1, Self.location(at: (t + 7_000) / 1000))
            #expect(plain.status == 200 && plain.json.array.count == 4)
        }
    }

    @Test func aPostThatDoesNotOpenIsRecordedAndAnsweredPlain() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let now = Int64(Date().timeIntervalSince1970)
            #expect(try Self.setSecret(app, device: device.deviceID, owner: device.user.token, #""server side""#).status == 200)
            let reply = try Self.post(app, (device.deviceID, device.deviceToken),
                                      try IndependentSecretBox.seal(Self.location(at: now), passphrase: "phone side"))
            #expect(reply.status == 200 && reply.text == "[]")
            let rejections = try app.client().get("/v1/devices/\(device.deviceID)/rejections", token: device.user.token).json["rejections"]
            #expect(rejections[0]["reason"].string == "decryption_failed" && rejections[0]["source"].string == "owntracks")
            #expect(try device.history(app).json["locations"].count == 0)
            // Without a secret (null turns it off) the same post is recorded as not configured.
            let off = try Self.setSecret(app, device: device.deviceID, owner: device.user.token, "null")
            #expect(off.status == 200 && off.json["owntracksEncryption"].bool == false)
            let again = try Self.post(app, (device.deviceID, device.deviceToken),
                                      try IndependentSecretBox.seal(Self.location(at: now), passphrase: "phone side"))
            #expect(again.status == 200 && again.text == "[]")
            let latest = try app.client().get("/v1/devices/\(device.deviceID)/rejections", token: device.user.token).json["rejections"]
            #expect(latest.array.map { $0["reason"].string ?? "" } == ["encryption_not_configured", "decryption_failed"])
            // /metrics is the operations listener's (ProcessTests read it there): the counters it renders.
            let metrics = app.services.rejectionMetrics.render()
            #expect(metrics.contains(#"fod_ingest_rejections_total{source="owntracks",reason="decryption_failed"} "#), "\(metrics)")
        }
    }

    @Test func theSecretIsWriteOnly() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let owner = device.user.token
            let secret = "s3cret-passphrase-\(UInt32.random(in: 0...UInt32.max))"
            #expect(try Self.setSecret(app, device: device.deviceID, owner: owner, "42").errorCode == "wrong_type")
            #expect(try Self.setSecret(app, device: device.deviceID, owner: owner, #""\#(String(repeating: "x", count: 1_025))""#).status == 400)
            #expect(try Self.setSecret(app, device: device.deviceID, owner: device.deviceToken, #""\#(secret)""#).status == 403)
            let set = try Self.setSecret(app, device: device.deviceID, owner: owner, #""\#(secret)""#)
            #expect(set.status == 200 && set.json["owntracksEncryption"].bool == true)
            // Something to export and a rejection, then every reply the owner can get.
            let now = Int64(Date().timeIntervalSince1970)
            #expect(try Self.post(app, (device.deviceID, device.deviceToken), Self.location(at: now)).status == 200)
            #expect(try Self.post(app, (device.deviceID, device.deviceToken), #"{"_type":"encrypted","data":"AAAA"}"#).status == 200)
            let replies = try [set.text] + ["/v1/devices/\(device.deviceID)", "/v1/devices", "/v1/me", "/v1/devices/\(device.deviceID)/rejections",
                                            "/v1/devices/\(device.deviceID)/export.geojson", "/v1/devices/\(device.deviceID)/export.gpx",
                                            "/v1/devices/\(device.deviceID)/locations"].map { try app.client().get($0, token: owner).text }
                + [app.services.rejectionMetrics.render(), app.services.deliveryWorker.counters.render()]
            for reply in replies { #expect(!reply.contains(secret), "\(reply)") }
            #expect(try app.client().get("/v1/devices", token: owner).json["devices"][0]["owntracksEncryption"].bool == true)
        }
    }

    /// The real executable at its most talkative: the secret is in no log line.
    @Test func theSecretIsInNoLog() throws {
        let served = try ServedStore("fod-owntracks-secret-")
        defer { served.remove() }
        let server = try served.serve(["--log-level", "debug"])
        let client = { try HTTPTestClient(port: server.port) }
        let user = try client().request("POST", "/v1/users", json: #"{"email":"s@example.org","password":"password-s","displayName":"S"}"#)
        let owner = user.json["token"].string ?? ""
        let device = try client().request("POST", "/v1/devices", token: owner, json: #"{"name":"phone"}"#)
        let deviceID = device.json["device"]["id"].string ?? "", deviceToken = device.json["deviceToken"].string ?? ""
        let secret = "log-me-not-\(UInt32.random(in: 0...UInt32.max))"
        #expect(try client().request("PATCH", "/v1/devices/\(deviceID)", token: owner, json: #"{"owntracksSecret":"\#(secret)"}"#).status == 200)
        let basic = "Basic " + Data("\(deviceID):\(deviceToken)".utf8).base64EncodedString()
        for body in [try IndependentSecretBox.seal(Self.location(at: Int64(Date().timeIntervalSince1970)), passphrase: secret),
                     try IndependentSecretBox.seal(Self.location(at: 1), passphrase: "another"), #"{"_type":"encrypted","data":"!!"}"#] {
            let reply = try client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                             body: Array(body.utf8))
            #expect(reply.status == 200)
        }
        #expect(server.stop() == 0)
        let log = server.standardError
        #expect(log.contains("/v1/ingest/owntracks"), "the log was on: \(log)")
        #expect(!log.contains(secret))
    }
}
