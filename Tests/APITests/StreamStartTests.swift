import Foundation
import Testing
import HTTPTestSupport

/// Streams that always start (#47, finding 5): a group with many large places and a share link
/// with a long track open with their `snapshot`, never a `resync`; place geometry is stored as
/// it means, not as it was sent.
@Suite struct StreamStartTests {
    /// A valid polygon of `count` positions (closed), a circle of ~`radius` degrees around
    /// (`lon`, `lat`).
    static func polygon(count: Int, lon: Double, lat: Double, radius: Double = 0.01) -> String {
        let corners = (0..<(count - 1)).map { index -> String in
            let angle = Double(index) / Double(count - 1) * 2 * Double.pi
            return "[\(lon + radius * cos(angle)),\(lat + radius * sin(angle))]"
        }
        return #"{"type":"Polygon","coordinates":[[\#(corners.joined(separator: ",")),\#(corners[0])]]}"#
    }

    @Test func aGroupWithTwelveThousandPositionPolygonsStartsItsStream() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let ann = w.users["ann"]!.token
            for index in 0..<12 {
                let body = #"{"name":"P\#(index)","geometry":\#(Self.polygon(count: 1_000, lon: Double(index), lat: 50))}"#
                let reply = try client.request("POST", "/v1/groups/\(w.groupID)/places", token: ann, json: body)
                try #require(reply.status == 201, "\(reply.text.prefix(200))")
            }
            let (head, reader) = try LiveFeedTests.open(app, w)
            #expect(head.status == 200)
            let first = try #require(try reader.nextEvent())
            #expect(first.name == "snapshot")
            #expect(first.json["places"].count == 12)
            #expect(first.json["placesComplete"].bool == false)
            // What the snapshot leaves out, the places API has.
            let places = try client.get("/v1/groups/\(w.groupID)/places", token: ann).json["places"].array
            #expect(places.count == 12 && places.allSatisfy { $0["geometry"]["coordinates"][0].count == 1_000 })
        }
    }

    @Test func smallPlacesComeWholeInTheSnapshot() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let body = #"{"name":"Park","geometry":\#(Self.polygon(count: 20, lon: 2, lat: 50))}"#
            try #require(try app.client().request("POST", "/v1/groups/\(w.groupID)/places", token: w.users["ann"]!.token, json: body).status == 201)
            let (_, reader) = try LiveFeedTests.open(app, w)
            let first = try #require(try reader.nextEvent())
            #expect(first.json["placesComplete"].bool == true)
            #expect(first.json["places"][0]["geometry"]["coordinates"][0].count == 20)
        }
    }

    /// Geometry padded with members and position values of no meaning is stored without them.
    @Test func placeGeometryIsStoredAsItMeans() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let junk = String(repeating: "x", count: 100_000)
            let body = #"{"name":"School","geometry":{"type":"Point","coordinates":[2.35,48.85,35.5],"padding":"\#(junk)"},"radius":100}"#
            let reply = try app.client().request("POST", "/v1/groups/\(w.groupID)/places", token: w.users["ann"]!.token, json: body)
            #expect(reply.status == 201)
            #expect(reply.json["geometry"]["padding"].string?.count == nil)
            #expect(reply.json["geometry"]["coordinates"].count == 2)
            let places = try app.client().get("/v1/groups/\(w.groupID)/places", token: w.users["ann"]!.token)
            #expect(places.body.count < 2_000)
        }
    }

    /// 50 minutes of reports every 2 s since the link was made: the stream still starts, its
    /// snapshot carrying the newest part of the track.
    @Test func aShareLinkWithALongTrackStartsItsStream() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let b1 = w.devices["B1"]!
            let start = Int64(Date().timeIntervalSince1970 * 1000) + 1_000
            let fixes = (0..<1_500).map { #"{"location":[2.\#($0),48.8],"timestamp":\#(start + Int64($0) * 2_000)}"# }
            let posted = try client.request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token,
                                            json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#)
            #expect(posted.json["accepted"].int == 1_500)
            let head = try client.openStream("/v1/shared/\(w.shareToken)/live")
            #expect(head.status == 200)
            let first = try #require(try SSEReader(client: client).nextEvent())
            #expect(first.name == "snapshot")
            #expect(first.json["track"].count == 1_000)
            #expect(first.json["trackComplete"].bool == false)
            // The document itself has all of it.
            let document = try app.client().get("/v1/shared/\(w.shareToken)").json
            #expect(document["track"].count == 1_500 && document["trackComplete"].bool == true)
        }
    }
}
