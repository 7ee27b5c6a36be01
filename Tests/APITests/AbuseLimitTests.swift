import Foundation
import Synchronization
import Testing
import HTTPTestSupport
import API
import HTTPServer
import Tracking
import TrackingTestSupport

/// The abuse limits of docs/security.md, each set low and crossed.
@Suite struct AbuseLimitTests {
    static func signUpBody(_ name: String) -> String {
        #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"}"#
    }

    @Test func signUpsArePerAddress() throws {
        let app = try TestApp { $0.accounts.signUpsPerAddressPerHour = 3 }
        defer { app.close() }
        let statuses = try (0..<5).map { k in try app.client().request("POST", "/v1/users", json: Self.signUpBody("flood\(k)")) }
        #expect(statuses.map(\.status) == [201, 201, 201, 429, 429])
        #expect(statuses[3].errorCode == "rate_limited" && statuses[3].header("Retry-After") != nil)
    }

    /// Behind a trusted proxy the per-address limits count the client its `X-Forwarded-For`
    /// names, an IPv6 client by its /64 network (stepping through one's own addresses does not
    /// reset a limit); anyone else's header changes nothing.
    @Test func limitsCountTheClientATrustedProxyNames() throws {
        let trusted = try #require(TrustedProxies(list: "127.0.0.1"))
        let app = try TestApp(configure: { $0.accounts.signUpsPerAddressPerHour = 2 }, http: { $0.trustedProxies = trusted })
        defer { app.close() }
        var made = 0
        func signUp(from address: String) throws -> Int {
            made += 1
            return try app.client().request("POST", "/v1/users", headers: ["X-Forwarded-For": "192.0.2.99, " + address, "Content-Type": "application/json"],
                                            body: Array(Self.signUpBody("proxied\(made)").utf8)).status
        }
        #expect(try [signUp(from: "203.0.113.7"), signUp(from: "203.0.113.7"), signUp(from: "203.0.113.7")] == [201, 201, 429])
        #expect(try signUp(from: "198.51.100.1") == 201)
        #expect(try [signUp(from: "2001:db8:1:2::1"), signUp(from: "2001:db8:1:2:ffff::9"), signUp(from: "[2001:db8:1:2::abcd]:443")] == [201, 201, 429])
        #expect(try signUp(from: "2001:db8:1:3::1") == 201)
    }

    @Test func aPeerThatIsNoTrustedProxyCannotChooseItsAddress() throws {
        let app = try TestApp { $0.accounts.signUpsPerAddressPerHour = 2 }
        defer { app.close() }
        let statuses = try (0..<3).map { k in
            try app.client().request("POST", "/v1/users", headers: ["X-Forwarded-For": "203.0.113.\(k)", "Content-Type": "application/json"],
                                     body: Array(Self.signUpBody("direct\(k)").utf8)).status
        }
        #expect(statuses == [201, 201, 429])
    }

    /// Sign-in limits are per (address, account) pair and per address: an attacker hammering
    /// the victim's email from one address is stopped there, while the victim still signs in
    /// from their own address.
    @Test func signInLimitsDoNotLockTheVictimOut() async throws {
        let app = try TestApp {
            $0.accounts.signInsPerAccountAndAddressPerMinute = 3
            $0.accounts.signInsPerAddressPerMinute = 5
        }
        defer { app.close() }
        _ = try app.signUp("victim")
        let accounts = app.services.accounts
        // One fixed clock: the attempts fall in one window however slowly the machine runs.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var outcomes: [String] = []
        for _ in 0..<4 {
            do { _ = try await accounts.signIn(email: "victim@example.org", password: "wrong-password", clientAddress: "203.0.113.9", now: now); outcomes.append("ok") }
            catch let error as TrackingError { outcomes.append(error.code.rawValue) }
        }
        #expect(outcomes == ["invalid_credentials", "invalid_credentials", "invalid_credentials", "rate_limited"])
        // The victim, elsewhere, is not affected.
        let signedIn = try await accounts.signIn(email: "victim@example.org", password: "password-victim", clientAddress: "198.51.100.7", now: now)
        #expect(signedIn.user.email == "victim@example.org")
        // One address trying many accounts is stopped by the per-address limit.
        var perAddress: [String] = []
        for k in 0..<3 {
            do { _ = try await accounts.signIn(email: "other\(k)@example.org", password: "whatever-1", clientAddress: "203.0.113.9", now: now); perAddress.append("ok") }
            catch let error as TrackingError { perAddress.append(error.code.rawValue) }
        }
        #expect(perAddress == ["invalid_credentials", "rate_limited", "rate_limited"])
    }

    /// Password hashing never queues without bound: with every thread busy and the queue full,
    /// the next hash is refused at once with 503.
    @Test func hashingIsBoundedAndOffTheRequestThreads() async throws {
        var policy = AccountService.Policy()
        policy.hashingThreads = 1
        policy.hashingQueue = 1
        let pool = PasswordWork(policy: policy)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        async let first: Int = pool.run { started.signal(); release.wait(); return 1 }
        // Waited for off the cooperative pool, whose threads the child task above needs.
        await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { started.wait(); resumed.resume() }
        }
        async let second: Int = pool.run { 2 }
        // The first occupies the thread; wait until the second is queued.
        while pool.queuedCount < 1 { await Task.yield() }
        await #expect(throws: TrackingError.self) { try await pool.run { 3 } }
        do {
            _ = try await pool.run { 3 }
        } catch let error as TrackingError {
            #expect(error.code == .busy && error.kind == .unavailable && error.retryAfterSeconds != nil)
        }
        release.signal()
        #expect(try await first == 1)
        #expect(try await second == 2)
    }

    @Test func invitationsArePerUser() throws {
        let app = try TestApp { $0.groups.invitationsPerUserPerHour = 2 }
        defer { app.close() }
        let ann = try app.signUp("inviter")
        let device = try app.client().request("POST", "/v1/devices", token: ann.token, json: #"{"name":"I1"}"#).json["device"]["id"].string ?? ""
        let group = try app.client().request("POST", "/v1/groups", token: ann.token, json: #"{"name":"Invites","deviceId":"\#(device)"}"#).json["id"].string ?? ""
        for k in 0..<3 { _ = try app.signUp("invitee\(k)") }
        let statuses = try (0..<3).map { k in
            try app.client().request("POST", "/v1/groups/\(group)/invitations", token: ann.token, json: #"{"email":"invitee\#(k)@example.org"}"#).status
        }
        #expect(statuses == [201, 201, 429])
    }

    @Test func liveStreamsArePerUser() throws {
        let app = try TestApp(live: { var live = LiveHub.Configuration(); live.streamsPerUser = 2; return live }())
        defer { app.close() }
        let w = try PermissionWorld(app: app)
        let (a, _) = try LiveFeedTests.open(app, w)
        let (b, _) = try LiveFeedTests.open(app, w)
        let third = try app.client().get("/v1/groups/\(w.groupID)/live", token: w.users["ann"]!.token)
        #expect(a.status == 200 && b.status == 200)
        #expect(third.status == 429 && third.errorCode == "too_many_streams")
        // Another member is not affected.
        let (bob, _) = try LiveFeedTests.open(app, w, as: "bob")
        #expect(bob.status == 200)
    }

    @Test func ingestRequestsArePerDevice() throws {
        let app = try TestApp { $0.deviceRequests = LocationService.RequestLimit(perSecond: 0.001, burst: 3) }
        defer { app.close() }
        let w = try PermissionWorld(app: app)
        let b1 = w.devices["B1"]!, a1 = w.devices["A1"]!
        let statuses = try (0..<4).map { k in
            try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token,
                                     json: #"{"location":[1,\#(k)],"timestamp":\#(w.sharedSince + Int64(k))}"#)
        }
        #expect(statuses.map(\.status) == [200, 200, 200, 429])
        #expect(statuses[3].header("Retry-After") != nil)
        // The OwnTracks path counts too; another device does not.
        let basic = Data("\(b1.id):\(b1.token)".utf8).base64EncodedString()
        let ownTracks = try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": "Basic \(basic)", "Content-Type": "application/json"],
                                                 body: Array(#"{"_type":"location","lat":1,"lon":2,"tst":\#(w.sharedSince / 1000 + 5)}"#.utf8))
        #expect(ownTracks.status == 429)
        #expect(try app.client().request("POST", "/v1/devices/\(a1.id)/locations", token: a1.token, json: #"{"location":[1,1]}"#).status == 200)
    }

    /// A query that would examine more positions than the budget is refused with 400.
    @Test func geoQueriesAreBoundedInWork() throws {
        let app = try TestApp { $0.queryLimits.maxKeysExamined = 1_000 }
        defer { app.close() }
        let w = try PermissionWorld(app: app)
        let b1 = w.devices["B1"]!
        for batch in 0..<2 {
            let fixes = (0..<1_000).map { k in #"{"location":[\#(Double(k) / 10_000),0],"timestamp":\#(w.sharedSince + Int64(batch * 1_000 + k))}"# }
            _ = try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#)
        }
        let broad = #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[0,0],0.1]}}},"scope":"history","limit":10000}"#
        let reply = try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.users["ann"]!.token, json: broad)
        #expect(reply.status == 400 && reply.errorCode == "query_too_broad")
        let narrow = #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[0,0],0.1]}}},"scope":"history","limit":10}"#
        #expect(try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.users["ann"]!.token, json: narrow).status == 200)
    }

    @Test func theQueryGateRefusesWhenFull() throws {
        let gate = AdmissionGate(limit: 1, what: "geo queries")
        let inner = try gate.run { () -> String in
            do { return try gate.run { "admitted" } } catch let error as TrackingError { return error.code.rawValue }
        }
        #expect(inner == "busy")
        #expect(try gate.run { "free again" } == "free again")
    }
}
