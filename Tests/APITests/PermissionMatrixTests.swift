import Foundation
import Testing
import HTTPTestSupport

/// The permission matrix: every actor × every operation, each with its expected status.
///
/// Choices written down:
/// - 404 hides existence: a group is 404 to everyone who is not a member (invited, former
///   member, outsider), a device is 404 to everyone who may not read it.
/// - 403 where the caller already knows the object: a member who is not the owner deleting,
///   handing over or removing; a device token on a user endpoint (`wrong_credential`); any
///   user token writing locations; accepting or declining without an invitation (API.md).
/// - 401 for a missing, unknown, rotated-away or signed-out token, and for an import token
///   anywhere but the import of its device.
/// - An administrator reads and writes exactly what any account outside the group does: being
///   one adds making invite codes, nothing else.
@Suite struct PermissionMatrixTests {
    typealias Actor = PermissionWorld.Actor

    struct Operation: Sendable, CustomTestStringConvertible {
        let name: String
        /// (method, path, JSON body) for an actor.
        let request: @Sendable (PermissionWorld, Actor) -> (String, String, String?)
        /// Expected outcome per actor, in `Actor.allCases` order:
        /// owner, memberSharing, memberNotSharing, invited, formerMember, outsider,
        /// ownDeviceToken, otherMemberDeviceToken, revokedDeviceToken, signedOutToken, noCredential,
        /// shareLinkHolder, expiredShareLink, revokedShareLink, receivingDeviceToken, administrator,
        /// importTokenHolder.
        /// For permission reads: "200 rw" / "200 r-" / "200 -w" / "200 --".
        let expected: [String]
        var testDescription: String { name }
    }

    static let operations: [Operation] = [
        Operation(name: "GET group", request: { w, _ in ("GET", "/v1/groups/\(w.groupID)", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "DELETE group", request: { w, _ in ("DELETE", "/v1/groups/\(w.groupID)", nil) },
                  expected: ["204", "403", "403", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "hand group over to Bob", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/owner", #"{"userId":"\#(w.users["bob"]!.id)"}"#) },
                  expected: ["200", "403", "403", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "hand group over to a non-member", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/owner", #"{"userId":"\#(w.users["fay"]!.id)"}"#) },
                  expected: ["409", "403", "403", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "invite Zed", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/invitations", #"{"email":"\#(w.email("zed"))"}"#) },
                  expected: ["201", "201", "201", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "invite an existing member", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/invitations", #"{"email":"\#(w.email("bob"))"}"#) },
                  expected: ["409", "409", "409", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "invite Dan again (already invited)", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/invitations", #"{"email":"\#(w.email("dan"))"}"#) },
                  expected: ["409", "409", "409", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "invite an email without an account", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/invitations", #"{"email":"nobody@example.org"}"#) },
                  expected: ["404", "404", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "accept with own device (join without invitation is the attack)", request: { w, a in ("POST", "/v1/invitations/\(w.groupID)/accept", #"{"deviceId":"\#(w.ownDevice(a))"}"#) },
                  expected: ["403", "403", "403", "200", "403", "403", "403", "403", "401", "401", "401", "403", "401", "401", "403", "403", "401"]),
        Operation(name: "accept with someone else's device", request: { w, _ in ("POST", "/v1/invitations/\(w.groupID)/accept", #"{"deviceId":"\#(w.devices["F1"]!.id)"}"#) },
                  expected: ["403", "403", "403", "404", "403", "403", "403", "403", "401", "401", "401", "403", "401", "401", "403", "403", "401"]),
        Operation(name: "decline", request: { w, _ in ("POST", "/v1/invitations/\(w.groupID)/decline", nil) },
                  expected: ["403", "403", "403", "204", "403", "403", "403", "403", "401", "401", "401", "403", "401", "401", "403", "403", "401"]),
        Operation(name: "leave (own membership)", request: { w, a in ("DELETE", "/v1/groups/\(w.groupID)/members/\(w.ownUser(a))", nil) },
                  expected: ["409", "204", "204", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "remove Bob", request: { w, _ in ("DELETE", "/v1/groups/\(w.groupID)/members/\(w.users["bob"]!.id)", nil) },
                  expected: ["204", "204", "403", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "remove a non-member", request: { w, _ in ("DELETE", "/v1/groups/\(w.groupID)/members/\(w.users["fay"]!.id)", nil) },
                  expected: ["404", "403", "403", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "set own sharing", request: { w, _ in ("PUT", "/v1/groups/\(w.groupID)/sharing", #"{"shareLocation":true}"#) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "GET device B1 (shared)", request: { w, _ in ("GET", "/v1/devices/\(w.devices["B1"]!.id)", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "GET device C1 (not shared)", request: { w, _ in ("GET", "/v1/devices/\(w.devices["C1"]!.id)", nil) },
                  expected: ["404", "404", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "rename device B1", request: { w, _ in ("PATCH", "/v1/devices/\(w.devices["B1"]!.id)", #"{"name":"renamed"}"#) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "set B1's OwnTracks secret", request: { w, _ in ("PATCH", "/v1/devices/\(w.devices["B1"]!.id)", #"{"owntracksSecret":"pass"}"#) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "read B1's rejections", request: { w, _ in ("GET", "/v1/devices/\(w.devices["B1"]!.id)/rejections", nil) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "read B1's region events", request: { w, _ in ("GET", "/v1/devices/\(w.devices["B1"]!.id)/events", nil) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "remove device B1", request: { w, _ in ("DELETE", "/v1/devices/\(w.devices["B1"]!.id)", nil) },
                  expected: ["404", "204", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "remove own device (owner's is the group's)", request: { w, a in ("DELETE", "/v1/devices/\(w.ownDevice(a))", nil) },
                  expected: ["409", "204", "204", "204", "204", "204", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "rotate B1 token", request: { w, _ in ("POST", "/v1/devices/\(w.devices["B1"]!.id)/token", nil) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "permissions group=G", request: { w, _ in ("GET", "/v1/partitions/group=\(w.groupID)/permissions", nil) },
                  expected: ["200 r-", "200 r-", "200 r-", "200 --", "200 --", "200 --", "200 --", "200 --", "401", "401", "200 --", "200 --", "401", "401", "200 --", "200 --", "401"]),
        Operation(name: "permissions device=B1", request: { w, _ in ("GET", "/v1/partitions/device=\(w.devices["B1"]!.id)/permissions", nil) },
                  expected: ["200 r-", "200 r-", "200 r-", "200 --", "200 --", "200 --", "200 -w", "200 --", "401", "401", "200 --", "200 r-", "401", "401", "200 --", "200 --", "401"]),
        Operation(name: "permissions device=C1", request: { w, _ in ("GET", "/v1/partitions/device=\(w.devices["C1"]!.id)/permissions", nil) },
                  expected: ["200 --", "200 --", "200 r-", "200 --", "200 --", "200 --", "200 --", "200 --", "401", "401", "200 --", "200 --", "401", "401", "200 -w", "200 --", "401"]),
        Operation(name: "permissions user=Bob", request: { w, _ in ("GET", "/v1/partitions/user=\(w.users["bob"]!.id)/permissions", nil) },
                  expected: ["200 --", "200 r-", "200 --", "200 --", "200 --", "200 --", "200 --", "200 --", "401", "401", "200 --", "200 --", "401", "401", "200 --", "200 --", "401"]),
        Operation(name: "import a history file into B1", request: { w, _ in ("POST", "/v1/devices/\(w.devices["B1"]!.id)/import", #"{"locations":[{"location":[2.35,48.85],"timestamp":"2024-05-01T10:00:00Z"}]}"#) },
                  expected: ["403", "403", "403", "403", "403", "403", "200", "403", "401", "401", "401", "403", "401", "401", "403", "403", "200"]),
        Operation(name: "timeline of B1 (shared)", request: { w, _ in ("GET", "/v1/devices/\(w.devices["B1"]!.id)/timeline", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "timeline of C1 (not shared)", request: { w, _ in ("GET", "/v1/devices/\(w.devices["C1"]!.id)/timeline", nil) },
                  expected: ["404", "404", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "GET me", request: { _, _ in ("GET", "/v1/me", nil) },
                  expected: ["200", "200", "200", "200", "200", "200", "403", "403", "401", "401", "401", "403", "401", "401", "403", "200", "401"]),
        Operation(name: "list own sessions", request: { _, _ in ("GET", "/v1/sessions", nil) },
                  expected: ["200", "200", "200", "200", "200", "200", "403", "403", "401", "401", "401", "403", "401", "401", "403", "200", "401"]),
        Operation(name: "revoke Bob's session", request: { w, _ in ("DELETE", "/v1/sessions/\(w.bobSessionID)", nil) },
                  expected: ["404", "204", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "add a device", request: { _, _ in ("POST", "/v1/devices", #"{"name":"new"}"#) },
                  expected: ["201", "201", "201", "201", "201", "201", "403", "403", "401", "401", "401", "403", "401", "401", "403", "201", "401"]),
        Operation(name: "create a group with own device", request: { w, a in ("POST", "/v1/groups", #"{"name":"Mine","deviceId":"\#(w.ownDevice(a))"}"#) },
                  expected: ["201", "201", "201", "201", "201", "201", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "create a group with someone else's device", request: { w, _ in ("POST", "/v1/groups", #"{"name":"Theirs","deviceId":"\#(w.devices["F1"]!.id)"}"#) },
                  expected: ["404", "404", "404", "404", "404", "201", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        // Share links: the owner's routes, and the holder's document (the token in the path is the credential).
        Operation(name: "create a share link of B1", request: { w, _ in ("POST", "/v1/devices/\(w.devices["B1"]!.id)/shares", #"{"expiresIn":600}"#) },
                  expected: ["404", "201", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "list B1's share links", request: { w, _ in ("GET", "/v1/devices/\(w.devices["B1"]!.id)/shares", nil) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "revoke B1's live link", request: { w, _ in ("DELETE", "/v1/devices/\(w.devices["B1"]!.id)/shares/\(w.shareID)", nil) },
                  expected: ["404", "204", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "renew B1's expired link", request: { w, _ in ("POST", "/v1/devices/\(w.devices["B1"]!.id)/shares/\(w.expiredShareID)/renew", #"{"expiresIn":600}"#) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "renew B1's link through A1's path", request: { w, _ in ("POST", "/v1/devices/\(w.devices["A1"]!.id)/shares/\(w.shareID)/renew", nil) },
                  expected: ["404", "404", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "read a share document with the actor's own token in the path", request: { w, a in ("GET", "/v1/shared/\(w.token(a) ?? "fods_none")", nil) },
                  expected: ["404", "404", "404", "404", "404", "404", "404", "404", "404", "404", "404", "200", "404", "404", "404", "404", "404"]),
        Operation(name: "read B1's share document (any bearer: the path's token decides)", request: { w, _ in ("GET", "/v1/shared/\(w.shareToken)", nil) },
                  expected: ["200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200", "200"]),
        // Reads a device token might try (only the OwnTracks reply is its to read).
        Operation(name: "B1 history", request: { w, _ in ("GET", "/v1/devices/\(w.devices["B1"]!.id)/locations", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "group changes", request: { w, _ in ("GET", "/v1/groups/\(w.groupID)/changes", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        // The operations surface: no metrics on the public port for anyone, whatever they hold.
        Operation(name: "GET /metrics", request: { _, _ in ("GET", "/metrics", nil) },
                  expected: Array(repeating: "404", count: 17)),
        Operation(name: "turn B1's receiveGroupLocations on", request: { w, _ in ("PATCH", "/v1/devices/\(w.devices["B1"]!.id)", #"{"receiveGroupLocations":true}"#) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        // Notifications: a channel and its log are its user's alone; an alert is a member's own,
        // through their own channel (Bob has one; Bob has an alert in G).
        Operation(name: "list own channels", request: { _, _ in ("GET", "/v1/me/channels", nil) },
                  expected: ["200", "200", "200", "200", "200", "200", "403", "403", "401", "401", "401", "403", "401", "401", "403", "200", "401"]),
        Operation(name: "read Bob's channel", request: { w, _ in ("GET", "/v1/me/channels/\(w.bobChannelID)", nil) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "read Bob's channel's deliveries", request: { w, _ in ("GET", "/v1/me/channels/\(w.bobChannelID)/deliveries", nil) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "rename Bob's channel", request: { w, _ in ("PATCH", "/v1/me/channels/\(w.bobChannelID)", #"{"name":"mine now"}"#) },
                  expected: ["404", "200", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "an alert in G through Bob's channel", request: { w, _ in ("POST", "/v1/groups/\(w.groupID)/alerts", #"{"channelId":"\#(w.bobChannelID)","events":["enter"]}"#) },
                  expected: ["404", "201", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "list own alerts in G", request: { w, _ in ("GET", "/v1/groups/\(w.groupID)/alerts", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "delete Bob's alert in G", request: { w, _ in ("DELETE", "/v1/groups/\(w.groupID)/alerts/\(w.bobAlertID)", nil) },
                  expected: ["404", "204", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        // Administration: only an administrator makes invite codes (and reads nobody's locations
        // for being one: see the rows above); an import token imports once into its device and
        // is no credential anywhere else; a user changes their own password (to the same here).
        Operation(name: "make an invite code", request: { _, _ in ("POST", "/v1/admin/invites", #"{"expiresIn":3600}"#) },
                  expected: ["403", "403", "403", "403", "403", "403", "403", "403", "401", "401", "401", "403", "401", "401", "403", "201", "401"]),
        Operation(name: "make an import token for B1", request: { w, _ in ("POST", "/v1/devices/\(w.devices["B1"]!.id)/import-tokens", nil) },
                  expected: ["404", "201", "404", "404", "404", "404", "403", "403", "401", "401", "401", "403", "401", "401", "403", "404", "401"]),
        Operation(name: "change own password", request: { w, a in
                      ("PUT", "/v1/me/password", #"{"currentPassword":"\#(w.ownPassword(a))","newPassword":"\#(w.ownPassword(a))"}"#) },
                  expected: ["204", "204", "204", "204", "204", "204", "403", "403", "401", "401", "401", "403", "401", "401", "403", "204", "401"]),
        Operation(name: "GET /v1/server (sign-up policy, for everyone)", request: { _, _ in ("GET", "/v1/server", nil) },
                  expected: Array(repeating: "200", count: 17)),
    ]

    /// Every operation for every actor, once through the real server and once in-process (the
    /// same routes and middleware without the socket: the whole table in milliseconds).
    @Test(arguments: operations, APIPath.allCases)
    func everyActor(_ operation: Operation, path apiPath: APIPath) async throws {
        let app = try TestApp()
        defer { app.close() }
        do {
            let world = try PermissionWorld(app: app)
            let client = try app.client()
            var outcomes: [String] = []
            // Each actor runs against the same world; mutations are undone by using a fresh
            // world whenever the previous actor succeeded.
            var current = world
            for actor in Actor.allCases {
                let (method, path, body) = operation.request(current, actor)
                var headers: [String: String] = [:]
                if let token = current.token(actor) { headers["Authorization"] = "Bearer \(token)" }
                if body != nil { headers["Content-Type"] = "application/json" }
                let reply = try await apiPath.request(app, live: client, method, path, headers: headers, body: body.map { Array($0.utf8) })
                var outcome = String(reply.status)
                if path.hasSuffix("/permissions"), reply.status == 200 {
                    outcome += " " + (reply.json["read"].bool == true ? "r" : "-") + (reply.json["write"].bool == true ? "w" : "-")
                }
                if reply.status >= 400 {
                    // Every denial uses the API.md error shape; 403s name the partition or the rule.
                    #expect(reply.errorCode != nil, "\(actor) \(operation.name): \(reply.text)")
                }
                // No answer of the API may stay in a cache: whoever asked, whatever the outcome.
                #expect(reply.header("Cache-Control") == "no-store", "\(actor) \(operation.name): \(reply.headers)")
                if reply.status == 403 {
                    #expect(reply.json["error"]["message"].string?.contains("partition ") == true, "\(actor) \(operation.name): \(reply.text)")
                }
                outcomes.append(outcome)
                if reply.status < 300 && method != "GET" { current = try PermissionWorld(app: app) }
            }
            let table = zip(Actor.allCases, zip(outcomes, operation.expected)).filter { $0.1.0 != $0.1.1 }
                .map { "\($0.0): got \($0.1.0), expected \($0.1.1)" }
            #expect(table.isEmpty, "\(operation.name) (\(apiPath)):\n\(table.joined(separator: "\n"))")
        }
    }

    /// `POST /v1/ingest/owntracks` as every actor, with its token as the Basic password (the
    /// app's only credential): the one read of a device token. "[]" for a device whose owner
    /// did not opt in, the friends (A1 and B1, the other sharing members' devices) for C1.
    @Test func ownTracksFriendsReplyPerActor() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let expected: [Actor: String] = [.ownDeviceToken: "200 []", .otherMemberDeviceToken: "200 []",
                                             .receivingDeviceToken: "200 friends"]
            for actor in Actor.allCases {
                var headers = ["Content-Type": "application/json"]
                if let token = w.token(actor) {
                    headers["Authorization"] = "Basic " + Data("\(w.basicDevice(actor)):\(token)".utf8).base64EncodedString()
                }
                let reply = try client.request("POST", "/v1/ingest/owntracks", headers: headers, body: Array(#"{"_type":"lwt","tst":1700000000}"#.utf8))
                var outcome = String(reply.status)
                if reply.status == 200 {
                    let cards = reply.json.array.filter { $0["_type"].string == "card" }.compactMap { $0["topic"].string }
                    outcome += cards.isEmpty ? " []" : " friends"
                    if !cards.isEmpty {
                        #expect(Set(cards) == Set([w.devices["A1"]!.id, w.devices["B1"]!.id].map { "owntracks/\(Self.owner(of: $0, w))/\($0)" }))
                    }
                }
                #expect(outcome == expected[actor] ?? "401", "\(actor): \(reply.status) \(reply.text)")
            }
        }
    }

    static func owner(of deviceID: String, _ w: PermissionWorld) -> String {
        deviceID == w.devices["A1"]!.id ? w.users["ann"]!.id : w.users["bob"]!.id
    }
}
