import Testing
import HTTPTestSupport

@Suite struct AccountTests {
    @Test func signUpNormalisesEmailAndReturnsAWorkingToken() throws {
        try TestApp.with { app in
            let client = try app.client()
            let reply = try client.request("POST", "/v1/users", json: #"{"email":"  Ann@Example.ORG ","password":"correct horse","displayName":" Ann "}"#)
            #expect(reply.status == 201)
            #expect(reply.json["user"]["email"].string == "ann@example.org")
            #expect(reply.json["user"]["displayName"].string == "Ann")
            let token = try #require(reply.json["token"].string)
            let me = try client.get("/v1/me", token: token)
            #expect(me.status == 200)
            #expect(me.json["email"].string == "ann@example.org")
            #expect(me.json["devices"].count == 0 && me.json["groups"].exists && me.json["invitations"].exists)
        }
    }

    @Test func duplicateEmailIs409() throws {
        try TestApp.with { app in
            _ = try app.signUp("bob")
            let reply = try app.client().request("POST", "/v1/users", json: #"{"email":"BOB@example.org","password":"another-pass","displayName":"B"}"#)
            #expect(reply.status == 409)
            #expect(reply.errorCode == "email_taken")
        }
    }

    @Test func wrongPasswordAndUnknownEmailGiveTheSame401() throws {
        try TestApp.with { app in
            _ = try app.signUp("cat")
            let client = try app.client()
            let wrong = try client.request("POST", "/v1/sessions", json: #"{"email":"cat@example.org","password":"not-the-password"}"#)
            let unknown = try client.request("POST", "/v1/sessions", json: #"{"email":"dog@example.org","password":"not-the-password"}"#)
            #expect(wrong.status == 401 && unknown.status == 401)
            #expect(wrong.body == unknown.body)
            let right = try client.request("POST", "/v1/sessions", json: #"{"email":"cat@example.org","password":"password-cat"}"#)
            #expect(right.status == 200 && right.json["token"].string != nil)
        }
    }

    @Test func tokenIsDeadAfterSignOut() throws {
        try TestApp.with { app in
            let user = try app.signUp("dan")
            let client = try app.client()
            #expect(try client.get("/v1/me", token: user.token).status == 200)
            #expect(try client.request("DELETE", "/v1/sessions/current", headers: ["Authorization": "Bearer \(user.token)"]).status == 204)
            let after = try client.get("/v1/me", token: user.token)
            #expect(after.status == 401)
            #expect(after.errorCode == "unauthenticated")
            #expect(try client.request("DELETE", "/v1/sessions/current", headers: ["Authorization": "Bearer \(user.token)"]).status == 401)
        }
    }

    @Test func deletedAccountCannotSignInAndItsTokenIsDead() throws {
        try TestApp.with { app in
            let user = try app.signUp("eve")
            let client = try app.client()
            #expect(try client.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer \(user.token)"]).status == 204)
            #expect(try client.get("/v1/me", token: user.token).status == 401)
            let signIn = try client.request("POST", "/v1/sessions", json: #"{"email":"eve@example.org","password":"password-eve"}"#)
            #expect(signIn.status == 401)
            // The email is free again.
            #expect(try client.request("POST", "/v1/users", json: #"{"email":"eve@example.org","password":"password-eve2","displayName":"Eve"}"#).status == 201)
        }
    }

    @Test func patchMeRenames() throws {
        try TestApp.with { app in
            let user = try app.signUp("fay")
            let reply = try app.client().request("PATCH", "/v1/me", token: user.token, json: #"{"displayName":"Fay F."}"#)
            #expect(reply.status == 200 && reply.json["displayName"].string == "Fay F.")
            #expect(try app.client().get("/v1/me", token: user.token).json["displayName"].string == "Fay F.")
        }
    }

    @Test func signInAttemptsAreRateLimitedPerEmailWithRetryAfter() throws {
        try TestApp.with(signInLimit: 3) { app in
            _ = try app.signUp("gus")
            let client = try app.client()
            for _ in 0..<3 {
                #expect(try client.request("POST", "/v1/sessions", json: #"{"email":"gus@example.org","password":"bad-password"}"#).status == 401)
            }
            let limited = try client.request("POST", "/v1/sessions", json: #"{"email":"gus@example.org","password":"password-gus"}"#)
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate_limited")
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        }
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        let method: String, path: String, contentType: String?, body: [UInt8], status: Int, code: String
        var testDescription: String { "\(method) \(path) → \(status) \(code)" }
    }

    @Test(arguments: [
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"{"email":"a@b.c","password":"x","displayName":"A"}"#.utf8), status: 400, code: "invalid_password"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"{"email":"not-an-email","password":"long-enough","displayName":"A"}"#.utf8), status: 400, code: "invalid_email"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"{"email":"a@b.c","password":"long-enough"}"#.utf8), status: 400, code: "missing_field"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"{"email":5,"password":"long-enough","displayName":"A"}"#.utf8), status: 400, code: "wrong_type"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"{"email":"a@b.c","password":"long-enough","displayName":"   "}"#.utf8), status: 400, code: "invalid_name"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"["not an object"]"#.utf8), status: 400, code: "wrong_type"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(#"{"email": "a@b.c",}"#.utf8), status: 400, code: "malformed_json"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d], status: 400, code: "malformed_json"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: [], status: 400, code: "missing_body"),
        BadInput(method: "POST", path: "/v1/users", contentType: "text/plain", body: Array("{}".utf8), status: 415, code: "unsupported_media_type"),
        BadInput(method: "POST", path: "/v1/users", contentType: nil, body: Array("{}".utf8), status: 415, code: "unsupported_media_type"),
        BadInput(method: "POST", path: "/v1/users", contentType: "application/json", body: Array(repeating: 0x20, count: 20_000), status: 413, code: "payload_too_large"),
        BadInput(method: "GET", path: "/v1/nothing-here", contentType: nil, body: [], status: 404, code: "not_found"),
        BadInput(method: "PUT", path: "/v1/users", contentType: nil, body: [], status: 405, code: "method_not_allowed"),
        BadInput(method: "GET", path: "/v1/me", contentType: nil, body: [], status: 401, code: "unauthenticated"),
    ])
    func badInputGetsAClear4xxInTheErrorShape(_ c: BadInput) throws {
        try TestApp.with { app in
            var headers: [String: String] = [:]
            if let contentType = c.contentType { headers["Content-Type"] = contentType }
            let reply = try app.client().request(c.method, c.path, headers: headers, body: c.body.isEmpty && c.method == "GET" ? nil : c.body)
            #expect(reply.status == c.status)
            #expect(reply.errorCode == c.code)
            #expect(reply.json["error"]["message"].string?.isEmpty == false)
            #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
        }
    }

    @Test func garbageTokensAre401NeverACrash() throws {
        try TestApp.with { app in
            let client = try app.client()
            for token in ["fodu_", "fodu_" + String(repeating: "x", count: 500), "fodd_abc", "Basic abc", "%00", "ü"] {
                let reply = try client.request("GET", "/v1/me", headers: ["Authorization": "Bearer \(token)"])
                #expect(reply.status == 401, "token \(token)")
            }
            #expect(try client.request("GET", "/v1/me", headers: ["Authorization": "Basic YTpi"]).status == 401)
        }
    }

    @Test func healthAndMetrics() throws {
        try TestApp.with { app in
            let client = try app.client()
            let health = try client.get("/healthz")
            #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
        }
    }
}
