import Foundation
import Testing
import HTTPTestSupport

/// The named attacks on share links and device tokens (issue 14), through the real server.
@Suite struct ShareAttackTests {
    /// A share token of B1 reads B1 at /v1/shared/{token} and nothing else: not A1, not the
    /// group, not even B1 through the owner's routes.
    @Test func shareTokenReadsNoOtherDevice() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let a1 = w.devices["A1"]!, b1 = w.devices["B1"]!
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(try app.client().request("POST", "/v1/devices/\(a1.id)/locations", token: a1.token, json: #"{"location":[7.654321,7.654321],"timestamp":\#(now)}"#).status == 200)
            #expect(try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"location":[3.0,3.0],"timestamp":\#(now)}"#).status == 200)
            let shared = try app.client().get("/v1/shared/\(w.shareToken)")
            #expect(shared.json["deviceName"].string == "B1" && shared.json["location"]["coordinates"][0].double == 3)
            #expect(!shared.text.contains(a1.id) && !shared.text.contains("7.654321") && shared.json["track"].array.allSatisfy { $0[0].double == 3 })
            let paths = ["/v1/devices/\(a1.id)", "/v1/devices/\(a1.id)/locations", "/v1/devices/\(b1.id)", "/v1/devices/\(b1.id)/locations",
                         "/v1/devices/\(b1.id)/export.gpx", "/v1/devices/\(b1.id)/shares", "/v1/groups/\(w.groupID)",
                         "/v1/groups/\(w.groupID)/changes", "/v1/groups/\(w.groupID)/export.geojson",
                         "/v1/groups/\(w.groupID)/near?lon=3&lat=3&maxDistance=1000", "/v1/me", "/v1/devices"]
            for path in paths {
                let reply = try app.client().get(path, token: w.shareToken)
                #expect(reply.status == 403 && reply.errorCode != nil, "\(path): \(reply.status) \(reply.text)")
            }
            // EventSource's ?token= does not take a share token either.
            #expect(try app.client().get("/v1/groups/\(w.groupID)/live?token=\(w.shareToken)").status == 403)
            let query = try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.shareToken,
                                                 json: #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[3,3],0.1]}}}}"#)
            #expect(query.status == 403)
            // What the rules say: read of B1 only, write of nothing.
            for (device, read) in [(a1.id, false), (b1.id, true), (w.devices["C1"]!.id, false)] {
                let p = try app.client().get("/v1/partitions/device=\(device)/permissions", token: w.shareToken)
                #expect(p.json["read"].bool == read && p.json["write"].bool == false)
            }
            // Writing B1's locations with it is refused.
            #expect(try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: w.shareToken, json: #"{"location":[0,0]}"#).status == 403)
        }
    }

    /// Revoking ends an open stream at once (an `end` event, then the stream closes), later
    /// fixes never reach it, and reconnecting is the unknown link's 404. Removing the device
    /// ends the streams of its other links.
    @Test func revokedShareTokenThroughAnOpenStream() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let b1 = w.devices["B1"]!, bob = w.users["bob"]!
            let (head, events) = try ShareLinkTests.openLive(app, token: w.shareToken)
            let (_, second) = try ShareLinkTests.openLive(app, token: w.shareToken)
            #expect(head.status == 200)
            #expect(try events.nextEvent()?.name == "snapshot")
            #expect(try second.nextEvent()?.name == "snapshot")
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"location":[1.0,1.0],"timestamp":\#(now)}"#).status == 200)
            #expect(try events.nextEvent()?.json["location"][0].double == 1)
            #expect(try app.client().request("DELETE", "/v1/devices/\(b1.id)/shares/\(w.shareID)", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
            for stream in [events, second] {
                var rest: [SSEReader.Event] = []
                while let event = try stream.nextEvent() { rest.append(event) }
                #expect(rest.last?.name == "end" && rest.last?.json["reason"].string == "revoked")
                #expect(rest.allSatisfy { $0.name != "location" || $0.json["location"][0].double == 1 })
                #expect(stream.ended)
            }
            #expect(try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"location":[2.0,2.0],"timestamp":\#(now + 1000)}"#).status == 200)
            #expect(try app.client().get("/v1/shared/\(w.shareToken)/live").status == 404)
            #expect(try app.client().get("/v1/shared/\(w.shareToken)").status == 404)
            #expect(app.services.shareFeed.subscriberCount == 0)

            // Removing the device ends a stream of another of its links.
            let other = try app.client().request("POST", "/v1/devices/\(b1.id)/shares", token: bob.token, json: "{}")
            let (_, third) = try ShareLinkTests.openLive(app, token: other.json["token"].string ?? "")
            #expect(try third.nextEvent()?.name == "snapshot")
            #expect(try app.client().request("DELETE", "/v1/devices/\(b1.id)", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
            #expect(try third.nextEvent()?.name == "end")
            #expect(try third.nextEvent() == nil)
        }
    }

    /// A device token, even one that receives its group's locations, reads nothing but its
    /// OwnTracks reply, and that reply holds latest locations only (one per friend), no history.
    @Test func deviceTokenReadsNothingButTheFriendsReply() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let c1 = w.devices["C1"]!, b1 = w.devices["B1"]!
            let start = w.sharedSince + 1_000
            let fixes = (0..<5).map { #"{"location":[\#(Double($0)),1.0],"timestamp":\#(start + Int64($0) * 1000)}"# }
            #expect(try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#).status == 200)
            let paths = ["/v1/me", "/v1/devices", "/v1/devices/\(b1.id)", "/v1/devices/\(b1.id)/locations", "/v1/devices/\(c1.id)/locations",
                         "/v1/devices/\(b1.id)/export.geojson", "/v1/devices/\(c1.id)/shares", "/v1/groups/\(w.groupID)",
                         "/v1/groups/\(w.groupID)/changes", "/v1/groups/\(w.groupID)/export.geojson", "/v1/groups/\(w.groupID)/export/scatter",
                         "/v1/groups/\(w.groupID)/near?lon=0&lat=1&maxDistance=100000", "/v1/sessions"]
            for path in paths {
                let reply = try app.client().get(path, token: c1.token)
                #expect(reply.status == 403, "\(path): \(reply.status) \(reply.text)")
            }
            #expect(try app.client().get("/v1/groups/\(w.groupID)/live?token=\(c1.token)").status == 403)
            #expect(try app.client().get("/v1/shared/\(c1.token)").status == 404)
            let basic = "Basic " + Data("\(c1.id):\(c1.token)".utf8).base64EncodedString()
            let reply = try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": basic, "Content-Type": "application/json"],
                                                 body: Array(#"{"_type":"status"}"#.utf8))
            let locations = reply.json.array.filter { $0["_type"].string == "location" }
            #expect(reply.status == 200 && locations.count == 1 && locations.first?["lon"].double == 4)
        }
    }
}
