import Foundation
import Testing
import HTTPTestSupport
import API
import Tracking
import TrackingTestSupport

/// Sessions: listed and revoked by id; they expire after an idle and an absolute lifetime.
@Suite struct SessionTests {
    @Test func sessionsAreListedAndRevokedOneByOne() throws {
        try TestApp.with { app in
            let first = try app.signUp("sessions")
            let client = try app.client()
            let second = try client.request("POST", "/v1/sessions", headers: ["User-Agent": "OwnTracks/2.4\u{7}", "Content-Type": "application/json"],
                                            body: Array(#"{"email":"sessions@example.org","password":"password-sessions"}"#.utf8))
            let secondToken = try #require(second.json["token"].string)
            let list = try client.get("/v1/sessions", token: first.token).json["sessions"].array
            #expect(list.count == 2)
            #expect(list.filter { $0["current"].bool == true }.count == 1)
            #expect(list.contains { $0["client"].string == "OwnTracks/2.4" })  // control characters dropped
            #expect(list.allSatisfy { $0["expiresAt"].string?.hasSuffix("Z") == true && $0["id"].string?.hasPrefix("s_") == true })
            // Revoke the second from the first: it stops working at once.
            let other = try #require(list.first { $0["current"].bool == false }?["id"].string)
            #expect(try client.request("DELETE", "/v1/sessions/\(other)", headers: ["Authorization": "Bearer \(first.token)"]).status == 204)
            #expect(try client.get("/v1/me", token: secondToken).status == 401)
            #expect(try client.get("/v1/me", token: first.token).status == 200)
            // Someone else's session id is 404, as is an unknown one.
            let stranger = try app.signUp("stranger")
            let mine = try #require(try client.get("/v1/sessions", token: first.token).json["sessions"].array.first?["id"].string)
            #expect(try client.request("DELETE", "/v1/sessions/\(mine)", headers: ["Authorization": "Bearer \(stranger.token)"]).status == 404)
            #expect(try client.request("DELETE", "/v1/sessions/s_nope", headers: ["Authorization": "Bearer \(first.token)"]).status == 404)
        }
    }

    @Test func sessionsExpireWhenIdleAndAfterTheirLifetime() async throws {
        let app = try TestApp {
            $0.accounts.sessionIdleMilliseconds = 120_000
            $0.accounts.sessionLifetimeMilliseconds = 3_600_000
        }
        defer { app.close() }
        let user = try app.signUp("expiring")
        let accounts = app.services.accounts
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // A use after 70 s is recorded (uses are written at most once a minute)…
        #expect(try accounts.session(forUserToken: user.token, now: now + 70_000) != nil)
        await accounts.waitForRecordedUses()
        #expect(try app.store.sessions(userID: UserID(user.id)).first.map { $0.lastUsedAt.millisecondsSince1970 >= now + 70_000 } == true)
        // …so it lives until two idle minutes after that use, not after sign-in.
        #expect(try accounts.session(forUserToken: user.token, now: now + 70_000 + 121_000) == nil)
        #expect(try accounts.session(forUserToken: user.token, now: now + 70_000 + 110_000) != nil)
        // Past the absolute lifetime, however recently used.
        #expect(try accounts.session(forUserToken: user.token, now: now + 3_600_001) == nil)
        #expect(try await accounts.purgeExpiredSessions(now: now + 3_600_001) == 1)
        #expect(try app.store.sessions(userID: UserID(user.id)).isEmpty)
    }
}
