import Foundation
import HTTPTestSupport

/// A group with one actor of every kind, built through the API.
///
/// Ann owns group G (device A1). Bob is a member sharing (B1), Cat a member not sharing (C1),
/// Dan is invited but has not accepted (D1), Eve joined and left (E1), Fay is an outsider (F1).
/// Zed has an account and nothing else (the target of invitations). Bob's first session was
/// signed out, and B1's first token was rotated away. Bob shares B1 through three links: one
/// live, one expired, one revoked. Cat turned `receiveGroupLocations` on for C1 (its OwnTracks
/// replies carry the group); B1 and A1 have it off. Root is an administrator of the server with
/// nothing in the world (no device, no group); Bob made an import token for B1.
struct PermissionWorld {
    enum Actor: String, CaseIterable, Sendable {
        case owner, memberSharing, memberNotSharing, invited, formerMember, outsider
        case ownDeviceToken, otherMemberDeviceToken, revokedDeviceToken, signedOutToken, noCredential
        case shareLinkHolder, expiredShareLink, revokedShareLink, receivingDeviceToken
        case administrator, importTokenHolder
    }

    var users: [String: (id: String, token: String)] = [:]
    var devices: [String: (id: String, token: String)] = [:]
    var groupID = ""
    var revokedB1Token = ""
    var signedOutBobToken = ""
    /// A time (ms) after every membership of the world began: fixes timestamped from here on are
    /// inside the members' sharing periods (history before joining is not the group's to read).
    var sharedSince: Int64 = 0
    /// The public id of Bob's live session.
    var bobSessionID = ""
    /// B1's share links: live, expired (renewable), revoked.
    var shareToken = "", shareID = ""
    var expiredShareToken = "", expiredShareID = ""
    var revokedShareToken = ""
    /// Bob's notification channel (to a loopback port nothing listens on) and his alert in G.
    var bobChannelID = "", bobAlertID = ""
    /// Root's user token (an administrator's).
    var administratorToken = ""
    /// An import token of B1 (Bob's).
    var importToken = ""
    /// Makes this world's emails unique within one server.
    let suffix: String

    /// The email of actor `name` in this world.
    func email(_ name: String) -> String { "\(name)\(suffix)@example.org" }

    /// The password of actor `name` in this world.
    func password(_ name: String) -> String { "password-\(name)\(suffix)" }

    init(app: TestApp) throws {
        suffix = "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let client = try app.client()
        // Root first: the server's first account would be its administrator anyway.
        let (rootEmail, rootPassword, accounts) = (email("root"), password("root"), app.services.accounts)
        _ = try app.wait { try await accounts.addAccount(email: rootEmail, displayName: "Root", password: rootPassword, isAdmin: true) }
        let root = try client.request("POST", "/v1/sessions", json: #"{"email":"\#(rootEmail)","password":"\#(rootPassword)"}"#)
        try expect(root, 200)
        administratorToken = root.json["token"].string ?? ""
        for name in ["ann", "bob", "cat", "dan", "eve", "fay", "zed"] { users[name] = try app.signUp(name + suffix) }
        for (user, device) in [("ann", "A1"), ("bob", "B1"), ("cat", "C1"), ("dan", "D1"), ("eve", "E1"), ("fay", "F1")] {
            let reply = try client.request("POST", "/v1/devices", token: users[user]!.token, json: #"{"name":"\#(device)"}"#)
            devices[device] = (reply.json["device"]["id"].string ?? "", reply.json["deviceToken"].string ?? "")
        }
        let group = try client.request("POST", "/v1/groups", token: users["ann"]!.token, json: #"{"name":"G","deviceId":"\#(devices["A1"]!.id)"}"#)
        groupID = group.json["id"].string ?? ""
        for (user, device) in [("bob", "B1"), ("cat", "C1"), ("eve", "E1")] {
            try expect(client.request("POST", "/v1/groups/\(groupID)/invitations", token: users["ann"]!.token, json: #"{"email":"\#(email(user))"}"#), 201)
            try expect(client.request("POST", "/v1/invitations/\(groupID)/accept", token: users[user]!.token, json: #"{"deviceId":"\#(devices[device]!.id)"}"#), 200)
        }
        try expect(client.request("POST", "/v1/groups/\(groupID)/invitations", token: users["bob"]!.token, json: #"{"email":"\#(email("dan"))"}"#), 201)
        try expect(client.request("PUT", "/v1/groups/\(groupID)/sharing", token: users["cat"]!.token, json: #"{"shareLocation":false}"#), 200)
        try expect(client.request("DELETE", "/v1/groups/\(groupID)/members/\(users["eve"]!.id)", headers: ["Authorization": "Bearer \(users["eve"]!.token)"]), 204)
        // Bob: a second session, the first signed out.
        signedOutBobToken = users["bob"]!.token
        let session = try client.request("POST", "/v1/sessions", json: #"{"email":"\#(email("bob"))","password":"password-bob\#(suffix)"}"#)
        try expect(client.request("DELETE", "/v1/sessions/current", headers: ["Authorization": "Bearer \(signedOutBobToken)"]), 204)
        users["bob"] = (users["bob"]!.id, session.json["token"].string ?? "")
        // B1: rotate its token.
        revokedB1Token = devices["B1"]!.token
        let rotated = try client.request("POST", "/v1/devices/\(devices["B1"]!.id)/token", headers: ["Authorization": "Bearer \(users["bob"]!.token)"])
        devices["B1"] = (devices["B1"]!.id, rotated.json["deviceToken"].string ?? "")
        bobSessionID = try client.get("/v1/sessions", token: users["bob"]!.token).json["sessions"][0]["id"].string ?? ""
        // B1's share links.
        let bob = users["bob"]!, b1 = devices["B1"]!.id
        let live = try client.request("POST", "/v1/devices/\(b1)/shares", token: bob.token, json: #"{"name":"live","expiresIn":3600}"#)
        try expect(live, 201)
        (shareToken, shareID) = (live.json["token"].string ?? "", live.json["id"].string ?? "")
        let revoked = try client.request("POST", "/v1/devices/\(b1)/shares", token: bob.token, json: #"{"name":"revoked"}"#)
        try expect(revoked, 201)
        revokedShareToken = revoked.json["token"].string ?? ""
        try expect(client.request("DELETE", "/v1/devices/\(b1)/shares/\(revoked.json["id"].string ?? "")",
                                  headers: ["Authorization": "Bearer \(bob.token)"]), 204)
        let expired = try app.expiredShare(deviceID: b1, ownerID: bob.id)
        (expiredShareToken, expiredShareID) = (expired.token, expired.id)
        try expect(client.request("PATCH", "/v1/devices/\(devices["C1"]!.id)", token: users["cat"]!.token, json: #"{"receiveGroupLocations":true}"#), 200)
        let channel = try client.request("POST", "/v1/me/channels", token: bob.token,
                                         json: #"{"name":"hook","type":"webhook","url":"http://127.0.0.1:9/hook"}"#)
        try expect(channel, 201)
        bobChannelID = channel.json["id"].string ?? ""
        let alert = try client.request("POST", "/v1/groups/\(groupID)/alerts", token: bob.token,
                                       json: #"{"channelId":"\#(bobChannelID)","events":["enter","exit"]}"#)
        try expect(alert, 201)
        bobAlertID = alert.json["id"].string ?? ""
        let imports = try client.request("POST", "/v1/devices/\(b1)/import-tokens", headers: ["Authorization": "Bearer \(bob.token)"])
        try expect(imports, 201)
        importToken = imports.json["token"].string ?? ""
        sharedSince = Int64(Date().timeIntervalSince1970 * 1000) + 1
    }

    /// The bearer token an actor presents (nil: none).
    func token(_ actor: Actor) -> String? {
        switch actor {
        case .owner: users["ann"]!.token
        case .memberSharing: users["bob"]!.token
        case .memberNotSharing: users["cat"]!.token
        case .invited: users["dan"]!.token
        case .formerMember: users["eve"]!.token
        case .outsider: users["fay"]!.token
        case .ownDeviceToken: devices["B1"]!.token
        case .otherMemberDeviceToken: devices["A1"]!.token
        case .revokedDeviceToken: revokedB1Token
        case .signedOutToken: signedOutBobToken
        case .noCredential: nil
        case .shareLinkHolder: shareToken
        case .expiredShareLink: expiredShareToken
        case .revokedShareLink: revokedShareToken
        case .receivingDeviceToken: devices["C1"]!.token
        case .administrator: administratorToken
        case .importTokenHolder: importToken
        }
    }

    /// The password of a user actor (root's for the administrator), else Bob's.
    func ownPassword(_ actor: Actor) -> String {
        switch actor {
        case .owner: password("ann")
        case .memberNotSharing: password("cat")
        case .invited: password("dan")
        case .formerMember: password("eve")
        case .outsider: password("fay")
        case .administrator: password("root")
        default: password("bob")
        }
    }

    /// The device id an actor names in OwnTracks' Basic auth (its own device; B1 for share links).
    func basicDevice(_ actor: Actor) -> String {
        switch actor {
        case .otherMemberDeviceToken: devices["A1"]!.id
        case .receivingDeviceToken: devices["C1"]!.id
        default: ownDevice(actor)
        }
    }

    /// The actor's own device id (user actors but the administrator, who has none), else B1.
    func ownDevice(_ actor: Actor) -> String {
        switch actor {
        case .owner: devices["A1"]!.id
        case .memberNotSharing: devices["C1"]!.id
        case .invited: devices["D1"]!.id
        case .formerMember: devices["E1"]!.id
        case .outsider: devices["F1"]!.id
        default: devices["B1"]!.id
        }
    }

    /// The actor's own user id (user actors), else Bob's.
    func ownUser(_ actor: Actor) -> String {
        switch actor {
        case .owner: users["ann"]!.id
        case .memberNotSharing: users["cat"]!.id
        case .invited: users["dan"]!.id
        case .formerMember: users["eve"]!.id
        case .outsider: users["fay"]!.id
        default: users["bob"]!.id
        }
    }

    private func expect(_ reply: HTTPTestClient.Reply, _ status: Int) throws {
        guard reply.status == status else { throw TestFailure("world setup: expected \(status), got \(reply.status) \(reply.text)") }
    }
}
