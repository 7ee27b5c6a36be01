import Foundation
import Testing
import HTTPTestSupport
import HTTPServer
import Tracking

/// Passwords, disabled accounts and import tokens through the real server (API.md, "Accounts,
/// administration and the web app").
@Suite struct AccountAdministrationTests {
    static func changePassword(_ app: TestApp, token: String, current: String, new: String,
                               from address: String? = nil) throws -> HTTPTestClient.Reply {
        var headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        if let address { headers["X-Forwarded-For"] = address }
        return try app.client().request("PUT", "/v1/me/password", headers: headers,
                                        body: Array(#"{"currentPassword":"\#(current)","newPassword":"\#(new)"}"#.utf8))
    }

    static func signIn(_ app: TestApp, _ name: String, _ password: String) throws -> HTTPTestClient.Reply {
        try app.client().request("POST", "/v1/sessions", json: #"{"email":"\#(name)@example.org","password":"\#(password)"}"#)
    }

    @Test func aNewPasswordEndsEveryOtherSession() throws {
        try TestApp.with { app in
            let ann = try app.signUp("ann")
            let other = try app.signUp("other")
            let second = try Self.signIn(app, "ann", "password-ann").json["token"].string ?? ""
            let third = try Self.signIn(app, "ann", "password-ann").json["token"].string ?? ""
            let wrong = try Self.changePassword(app, token: ann.token, current: "not-it", new: "brand-new-password")
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials", "\(wrong.text)")
            #expect(try Self.changePassword(app, token: ann.token, current: "password-ann", new: "short").errorCode == "invalid_password")
            let missing = try app.client().request("PUT", "/v1/me/password", token: ann.token, json: #"{"newPassword":"brand-new-password"}"#)
            #expect(missing.status == 400 && missing.errorCode == "missing_field")
            // Nothing changed so far: every session works.
            for token in [ann.token, second, third] { #expect(try app.client().get("/v1/me", token: token).status == 200) }
            #expect(try Self.changePassword(app, token: ann.token, current: "password-ann", new: "brand-new-password").status == 204)
            #expect(try app.client().get("/v1/me", token: ann.token).status == 200)
            #expect(try app.client().get("/v1/me", token: second).status == 401)
            #expect(try app.client().get("/v1/me", token: third).status == 401)
            #expect(try app.client().get("/v1/me", token: other.token).status == 200)
            #expect(try Self.signIn(app, "ann", "password-ann").status == 401)
            #expect(try Self.signIn(app, "ann", "brand-new-password").status == 200)
            // A device token is no user's to change a password with.
            let device = try app.client().request("POST", "/v1/devices", token: ann.token, json: #"{"name":"A"}"#).json["deviceToken"].string ?? ""
            #expect(try Self.changePassword(app, token: device, current: "brand-new-password", new: "x-brand-new-password").status == 403)
        }
    }

    /// A wrong current password counts as a failed sign-in of the account: the change cannot be
    /// used to guess the password past the per-account throttle.
    @Test func aWrongCurrentPasswordCountsAgainstTheSignInThrottle() throws {
        let app = try TestApp(configure: { $0.accounts.signInThrottle = SignInThrottle(failuresPerDay: 5, failuresKeptForKnownAddresses: 2, freeFailures: 100) },
                              http: { if let proxy = TrustedProxies(list: "127.0.0.1") { $0.trustedProxies = proxy } })
        defer { app.close() }
        let home = "198.51.100.7"
        let signUp = try app.client().request("POST", "/v1/users", headers: ["X-Forwarded-For": home, "Content-Type": "application/json"],
                                              body: Array(#"{"email":"ann@example.org","password":"password-ann","displayName":"Ann"}"#.utf8))
        let token = signUp.json["token"].string ?? ""
        let guesses = try (0..<3).map { try Self.changePassword(app, token: token, current: "guess-\($0)", new: "new-password-1", from: home).status }
        #expect(guesses == [401, 401, 401])
        // Three failures are what unknown addresses get: the right password from a new one now waits.
        let elsewhere = try app.client().request("POST", "/v1/sessions", headers: ["X-Forwarded-For": "192.0.2.1", "Content-Type": "application/json"],
                                                 body: Array(#"{"email":"ann@example.org","password":"password-ann"}"#.utf8))
        #expect(elsewhere.status == 429, "\(elsewhere.text)")
        let more = try (0..<3).map { try Self.changePassword(app, token: token, current: "guess-\($0 + 3)", new: "new-password-1", from: home).status }
        #expect(more == [401, 401, 429])
        #expect(try Self.changePassword(app, token: token, current: "password-ann", new: "new-password-1", from: home).status == 429)
    }

    @Test func aDisabledAccountSignsInToNothingUntilItIsEnabled() async throws {
        let app = try TestApp()
        defer { app.close() }
        // A connection per request: the awaits below may outlast a kept-alive connection's idle timeout.
        let bob = try app.signUp("bob")
        let device = try app.client().request("POST", "/v1/devices", token: bob.token, json: #"{"name":"B"}"#)
        let (deviceID, deviceToken) = (device.json["device"]["id"].string ?? "", device.json["deviceToken"].string ?? "")
        let importToken = try app.client().request("POST", "/v1/devices/\(deviceID)/import-tokens", headers: ["Authorization": "Bearer \(bob.token)"])
            .json["token"].string ?? ""
        let fix = #"{"location":[2.35,48.85],"timestamp":"2024-05-01T10:00:00Z"}"#
        #expect(try app.client().request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: fix).status == 200)

        try await app.services.accounts.setDisabled(userID: UserID(bob.id), true)
        #expect(try app.client().get("/v1/me", token: bob.token).status == 401)
        let signIn = try Self.signIn(app, "bob", "password-bob")
        #expect(signIn.status == 403 && signIn.errorCode == "account_disabled", "\(signIn.text)")
        // Said only to whoever knows the password.
        #expect(try Self.signIn(app, "bob", "not-bobs").errorCode == "invalid_credentials")
        #expect(try app.client().request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: fix).status == 401)
        #expect(try ImportTests.post(app, device: deviceID, token: importToken, body: Array(#"{"locations":[\#(fix)]}"#.utf8)).status == 401)

        try await app.services.accounts.setDisabled(userID: UserID(bob.id), false)
        #expect(try app.client().get("/v1/me", token: bob.token).status == 401)
        let again = try Self.signIn(app, "bob", "password-bob")
        #expect(again.status == 200)
        #expect(try app.client().request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: fix).status == 200)
        // The import token went with the disabling.
        #expect(try ImportTests.post(app, device: deviceID, token: importToken, body: Array(#"{"locations":[\#(fix)]}"#.utf8)).status == 401)
    }

    @Test func anImportTokenImportsOnceIntoItsDeviceAndDoesNothingElse() throws {
        try TestApp.with { app in
            let client = try app.client()
            let (bobToken, deviceID, deviceToken) = try ImportTests.device(app, "bob")
            let otherDevice = try client.request("POST", "/v1/devices", token: bobToken, json: #"{"name":"tablet"}"#).json["device"]["id"].string ?? ""
            let fay = try app.signUp("fay")
            let made = try client.request("POST", "/v1/devices/\(deviceID)/import-tokens", headers: ["Authorization": "Bearer \(bobToken)"])
            #expect(made.status == 201, "\(made.text)")
            let token = try #require(made.json["token"].string)
            #expect(token.hasPrefix("fodi_"))
            let expiresAt = try #require(made.json["expiresAt"].string.flatMap { ISO8601DateFormatter.withMilliseconds.date(from: $0) })
            #expect(abs(expiresAt.timeIntervalSinceNow - 3600) < 120)
            // Only its owner makes one; a device token makes none.
            #expect(try client.request("POST", "/v1/devices/\(deviceID)/import-tokens", headers: ["Authorization": "Bearer \(fay.token)"]).status == 404)
            #expect(try client.request("POST", "/v1/devices/\(deviceID)/import-tokens", headers: ["Authorization": "Bearer \(deviceToken)"]).status == 403)
            // It is no credential anywhere else.
            #expect(try client.get("/v1/me", token: token).status == 401)
            #expect(try client.get("/v1/devices/\(deviceID)/locations", token: token).status == 401)
            let fix = #"{"location":[2.35,48.85],"timestamp":"2024-05-01T10:00:00Z"}"#
            #expect(try client.request("POST", "/v1/devices/\(deviceID)/locations", token: token, json: fix).status == 401)
            let file = Array(#"{"locations":[\#(fix)]}"#.utf8)
            let elsewhere = try ImportTests.post(app, device: otherDevice, token: token, body: file)
            #expect(elsewhere.status == 403 && elsewhere.errorCode == "forbidden", "\(elsewhere.text)")
            // It imports once into its device (the refusal above did not use it up).
            let imported = try ImportTests.post(app, device: deviceID, token: token, body: file)
            #expect(imported.status == 200 && imported.json["accepted"].int == 1, "\(imported.text)")
            #expect(try ImportTests.post(app, device: deviceID, token: token, body: file).status == 401)
            #expect(try client.get("/v1/devices/\(deviceID)/locations", token: bobToken).json["locations"].count == 1)
        }
    }
}

extension ISO8601DateFormatter {
    /// RFC 3339 with milliseconds, as the API writes times.
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
