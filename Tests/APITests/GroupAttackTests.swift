import Testing
import HTTPTestSupport

/// The attacks of the original app and their neighbours, one by one.
@Suite struct GroupAttackTests {
    @Test func noRouteWritesAMembership() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let fay = w.users["fay"]!.token
            let client = try app.client()
            // Membership writes do not exist as endpoints…
            #expect(try client.request("POST", "/v1/groups/\(w.groupID)/members", token: fay, json: #"{"userId":"\#(w.users["fay"]!.id)"}"#).status == 404)
            #expect(try client.request("PUT", "/v1/groups/\(w.groupID)/members/\(w.users["fay"]!.id)", token: fay, json: #"{"deviceId":"\#(w.devices["F1"]!.id)"}"#).status == 405)
            // (PATCH on a group renames it, for its owner only: a member list there is no field.)
            #expect(try client.request("PATCH", "/v1/groups/\(w.groupID)", token: fay, json: #"{"members":[]}"#).status == 400)
            #expect(try client.request("PATCH", "/v1/groups/\(w.groupID)", token: fay, json: #"{"name":"mine","members":[]}"#).status == 404)
            // …and group ids posted elsewhere are ignored.
            #expect(try client.request("PATCH", "/v1/me", token: fay, json: #"{"displayName":"Fay","groups":[{"groupId":"\#(w.groupID)","deviceId":"\#(w.devices["F1"]!.id)"}]}"#).status == 200)
            #expect(try client.request("POST", "/v1/devices", token: fay, json: #"{"name":"x","groupId":"\#(w.groupID)"}"#).status == 201)
            let created = try client.request("POST", "/v1/groups", token: fay, json: #"{"name":"mine","deviceId":"\#(w.devices["F1"]!.id)","id":"\#(w.groupID)"}"#)
            #expect(created.status == 201 && created.json["id"].string != w.groupID)
            #expect(try client.get("/v1/groups/\(w.groupID)", token: fay).status == 404)
            #expect(try client.get("/v1/me", token: fay).json["groups"].array.allSatisfy { $0["groupId"].string != w.groupID })
            let members = try client.get("/v1/groups/\(w.groupID)", token: w.users["ann"]!.token).json["members"].array
            #expect(!members.contains { $0["userId"].string == w.users["fay"]!.id })
        }
    }

    /// Only the owner renames a group; members see the new name in their lists and a `renamed`
    /// event in the feed; everyone else gets what they get for any other change of it.
    @Test func onlyTheOwnerRenamesAGroup() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let path = "/v1/groups/\(w.groupID)"
            #expect(try client.request("PATCH", path, token: w.users["bob"]!.token, json: #"{"name":"Bob's"}"#).status == 403)
            #expect(try client.request("PATCH", path, token: w.users["fay"]!.token, json: #"{"name":"Fay's"}"#).status == 404)
            #expect(try client.request("PATCH", path, token: w.devices["A1"]!.token, json: #"{"name":"A1's"}"#).status == 403)
            #expect(try client.request("PATCH", path, token: w.users["ann"]!.token, json: #"{"name":"  "}"#).errorCode == "invalid_name")
            let renamed = try client.request("PATCH", path, token: w.users["ann"]!.token, json: #"{"name":"  The Family  "}"#)
            #expect(renamed.status == 200 && renamed.json["name"].string == "The Family", "\(renamed.text)")
            #expect(try client.get(path, token: w.users["bob"]!.token).json["name"].string == "The Family")
            let bobsGroups = try client.get("/v1/me", token: w.users["bob"]!.token).json["groups"].array
            #expect(bobsGroups.contains { $0["groupId"].string == w.groupID && $0["groupName"].string == "The Family" })
            let events = try client.get("\(path)/changes?since=0", token: w.users["bob"]!.token).json["events"].array
            let last = events.last { $0["type"].string == "membership" }
            #expect(last?["data"]["type"].string == "renamed" && last?["data"]["name"].string == "The Family" && last?["data"]["userId"].string == w.users["ann"]!.id)
        }
    }

    @Test func invitationReplayAfterDeclineIsRefused() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let dan = w.users["dan"]!.token
            let client = try app.client()
            #expect(try client.request("POST", "/v1/invitations/\(w.groupID)/decline", headers: ["Authorization": "Bearer \(dan)"]).status == 204)
            let replay = try client.request("POST", "/v1/invitations/\(w.groupID)/accept", token: dan, json: #"{"deviceId":"\#(w.devices["D1"]!.id)"}"#)
            #expect(replay.status == 403)
            #expect(replay.json["error"]["message"].string?.contains("group=\(w.groupID)") == true)
            #expect(try client.get("/v1/groups/\(w.groupID)", token: dan).status == 404)
        }
    }

    @Test func readingAGroupAfterLeavingIs404() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let bob = w.users["bob"]!
            let client = try app.client()
            #expect(try client.get("/v1/groups/\(w.groupID)", token: bob.token).status == 200)
            #expect(try client.request("DELETE", "/v1/groups/\(w.groupID)/members/\(bob.id)", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
            #expect(try client.get("/v1/groups/\(w.groupID)", token: bob.token).status == 404)
            #expect(try client.get("/v1/devices/\(w.devices["A1"]!.id)", token: bob.token).status == 404)
        }
    }

    @Test func ownerCanHandOverThenLeave() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let ann = w.users["ann"]!, bob = w.users["bob"]!
            let client = try app.client()
            let handed = try client.request("POST", "/v1/groups/\(w.groupID)/owner", token: ann.token, json: #"{"userId":"\#(bob.id)"}"#)
            #expect(handed.status == 200 && handed.json["ownerId"].string == bob.id)
            #expect(try client.request("DELETE", "/v1/groups/\(w.groupID)/members/\(ann.id)", headers: ["Authorization": "Bearer \(ann.token)"]).status == 204)
            #expect(try client.get("/v1/groups/\(w.groupID)", token: ann.token).status == 404)
            #expect(try client.request("DELETE", "/v1/groups/\(w.groupID)", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
        }
    }

    @Test func accountDeletionCascades() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let ann = w.users["ann"]!, bob = w.users["bob"]!, dan = w.users["dan"]!
            let client = try app.client()
            // Bob (member, inviter of Dan) deletes his account: membership, devices and the invitation he sent go.
            #expect(try client.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
            let members = try client.get("/v1/groups/\(w.groupID)", token: ann.token).json["members"].array
            #expect(!members.contains { $0["userId"].string == bob.id })
            #expect(try client.get("/v1/me", token: dan.token).json["invitations"].count == 0)
            #expect(try client.request("POST", "/v1/devices/\(w.devices["B1"]!.id)/token", headers: ["Authorization": "Bearer \(bob.token)"]).status == 401)
            // Ann (owner) deletes hers: the owned group goes for everyone.
            #expect(try client.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer \(ann.token)"]).status == 204)
            #expect(try client.get("/v1/groups/\(w.groupID)", token: w.users["cat"]!.token).status == 404)
            #expect(try client.get("/v1/me", token: w.users["cat"]!.token).json["groups"].count == 0)
        }
    }

    @Test func rotatedDeviceTokenIsDeadAndTheNewOneWorks() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let old = try client.get("/v1/partitions/device=\(w.devices["B1"]!.id)/permissions", token: w.revokedB1Token)
            #expect(old.status == 401)
            let new = try client.get("/v1/partitions/device=\(w.devices["B1"]!.id)/permissions", token: w.devices["B1"]!.token)
            #expect(new.status == 200 && new.json["write"].bool == true)
        }
    }

    @Test func malformedPartitionNamesAre400() throws {
        try TestApp.with { app in
            let user = try app.signUp("pat")
            for name in ["user", "user=", "users=u_1", "=x", "group=a=b"] {
                #expect(try app.client().get("/v1/partitions/\(name)/permissions", token: user.token).status == 400, "\(name)")
            }
        }
    }
}

@Suite struct DeviceDocumentPrivacyTests {
    @Test func membersSeeASharedDeviceButNotItsPlatformID() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let bob = w.users["bob"]!
            let added = try app.client().request("POST", "/v1/devices", token: bob.token, json: #"{"name":"tablet","platformId":"ANDROID-1234"}"#)
            let id = added.json["device"]["id"].string ?? ""
            #expect(added.json["device"]["platformId"].string == "ANDROID-1234")
            #expect(try app.client().get("/v1/devices/\(id)", token: bob.token).json["platformId"].string == "ANDROID-1234")
            // Bob forms a group with the tablet; Ann joins and may read it, without the hardware id.
            let group = try app.client().request("POST", "/v1/groups", token: bob.token, json: #"{"name":"Tablets","deviceId":"\#(id)"}"#).json["id"].string ?? ""
            _ = try app.client().request("POST", "/v1/groups/\(group)/invitations", token: bob.token, json: #"{"email":"\#(w.email("ann"))"}"#)
            let joined = try app.client().request("POST", "/v1/invitations/\(group)/accept", token: w.users["ann"]!.token,
                                                  json: #"{"deviceId":"\#(w.devices["A1"]!.id)"}"#)
            #expect(joined.status == 200)
            let seen = try app.client().get("/v1/devices/\(id)", token: w.users["ann"]!.token)
            #expect(seen.status == 200 && seen.json["name"].string == "tablet")
            #expect(!seen.json["platformId"].exists)
        }
    }
}
