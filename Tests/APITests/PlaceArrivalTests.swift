import Foundation
import Testing
import HTTPTestSupport

/// Arrivals through the real server (API.md, "Places (geofences) and arrivals"): the contract's
/// named cases, each read back from `/changes` and the places' `inside`.
@Suite struct PlaceArrivalTests {
    @Test func jitterAtTheEdgeGivesOneEnterAndOneExit() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            #expect(try w.createCircle("School", radius: 100).status == 201)
            try w.walk("B1", [600], from: 0)   // first position: silent
            try w.walk("B1", [300, 150, 90, 105, 95, 118, 99, 112, 97, 120, 250, 600], from: 1_000)
            #expect(try w.placeEvents() == ["enter School B1", "exit School B1"])
            let changes = try app.client().get("/v1/groups/\(w.groupID)/changes?since=0", token: w.users["bob"]!.token)
            let enter = try #require(changes.json["events"].array.first { $0["type"].string == "place" })
            #expect(enter["data"]["userId"].string == w.users["bob"]!.id && enter["data"]["placeId"].string?.hasPrefix("p_") == true)
            #expect(abs((enter["data"]["location"][0].double ?? 0) - PlaceWorld.east(90).0) < 1e-9 && enter["data"]["timestamp"].string?.hasSuffix("Z") == true)
        }
    }

    @Test func aBatchIsEvaluatedFixByFixInTimeOrder() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("School", radius: 100)
            try w.walk("B1", [600], from: 0)
            try w.walk("B1", [300, 50, 20, 300], from: 1_000, batch: true)
            #expect(try w.placeEvents() == ["enter School B1", "exit School B1"])
        }
    }

    @Test func aLateBackfillChangesNothing() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("Home", radius: 100)
            try w.walk("B1", [10], from: 600_000)           // latest: at home
            try w.walk("B1", [5_000, 4_000, 20, 3_000], from: 0, batch: true)   // older fixes, in and out
            try w.walk("B1", [2_000], from: 1_000)          // one more old one
            #expect(try w.placeEvents().isEmpty)
            #expect(try w.inside()["Home"] == ["B1"])
            try w.walk("B1", [500], from: 700_000)          // a real departure still counts
            #expect(try w.placeEvents() == ["exit Home B1"])
        }
    }

    @Test func anImportChangesNothing() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("Home", radius: 100)
            try w.walk("B1", [10], from: 0)
            // A GPX of later fixes that leave and come back: imported history logs no arrivals.
            let points = [(3_000.0, 60_000), (20.0, 120_000), (4_000.0, 180_000)].map { meters, offset -> String in
                let (lon, lat) = PlaceWorld.east(meters)
                return #"<trkpt lat="\#(lat)" lon="\#(lon)"><time>\#(ImportTests.rfc3339(w.start + Int64(offset)))</time></trkpt>"#
            }
            let gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg>\#(points.joined())</trkseg></trk></gpx>"#
            let reply = try ImportTests.post(app, device: w.devices["B1"]!.id, token: w.devices["B1"]!.token, body: Array(gpx.utf8))
            #expect(reply.status == 200 && reply.json["accepted"].int == 3, "\(reply.text)")
            #expect(try w.placeEvents().isEmpty)
        }
    }

    @Test func aPlaceDrawnAroundAParkedDeviceGivesNoEvent() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            try w.walk("B1", [3_000], from: 0)
            try w.walk("A1", [3_000], from: 0)
            try w.walk("B1", [12], from: 1_000)             // parked before the place exists
            #expect(try w.createCircle("Car park", radius: 50).status == 201)
            #expect(try w.inside()["Car park"] == ["B1"])
            try w.walk("B1", [10, 14, 9], from: 2_000)
            #expect(try w.placeEvents().isEmpty)
            try w.walk("B1", [400], from: 10_000)
            #expect(try w.placeEvents() == ["exit Car park B1"])
        }
    }

    @Test func inaccurateFixesAreIgnored() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("School", radius: 100)
            try w.walk("B1", [20], from: 0)
            try w.walk("B1", [2_000, 1_500], accuracy: 400, from: 1_000)   // worse than the radius
            #expect(try w.placeEvents().isEmpty && w.inside()["School"] == ["B1"])
            try w.walk("B1", [110, 150], accuracy: 60, from: 5_000)       // within max(25, 60) of the edge
            #expect(try w.placeEvents().isEmpty)
            try w.walk("B1", [170], accuracy: 60, from: 8_000)            // 70 m out: beyond it
            #expect(try w.placeEvents() == ["exit School B1"])
        }
    }

    @Test func nonSharingMembersProduceNothingAndStartSilentlyWhenTheyShareAgain() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("School", radius: 100)
            try w.walk("C1", [600, 50, 600, 50], from: 0)
            #expect(try w.placeEvents().isEmpty && w.inside()["School"] == [])
            // Bob is followed, stops sharing inside, comes back out while not sharing, shares again outside.
            try w.walk("B1", [600, 50], from: 0)
            #expect(try w.placeEvents() == ["enter School B1"])
            let client = try app.client()
            _ = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#)
            #expect(try w.inside()["School"] == [])
            #expect(try w.placeEvents().isEmpty)   // hidden while Bob does not share, like his locations
            try w.walk("B1", [600], from: 10_000)
            _ = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":true}"#)
            let resumed = max(Int64(Date().timeIntervalSince1970 * 1000) - w.start, 20_000) + 1_000   // after the 10 s fix, inside the new period
            try w.walk("B1", [50], from: resumed)           // first position after sharing again: silent
            try w.walk("B1", [600], from: resumed + 1_000)
            #expect(try w.placeEvents() == ["enter School B1", "exit School B1"])
        }
    }

    @Test func deletingAPlaceEndsItsState() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            let created = try w.createCircle("Gym", radius: 100)
            let placeID = try #require(created.json["id"].string)
            try w.walk("B1", [600, 30], from: 0)
            #expect(try w.placeEvents() == ["enter Gym B1"])
            let deleted = try app.client().request("DELETE", "/v1/groups/\(w.groupID)/places/\(placeID)",
                                                   headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"])
            #expect(deleted.status == 204)
            try w.walk("B1", [600], from: 5_000)
            #expect(try w.placeEvents() == ["enter Gym B1"])
            // A new place there starts from the current position, silently.
            _ = try w.createCircle("Gym", radius: 100)
            try w.walk("B1", [20], from: 6_000)
            #expect(try w.placeEvents() == ["enter Gym B1", "enter Gym B1"])
        }
    }

    /// The next fix after a rename or a reshape sees the place as it is now (appends keep the
    /// group's places in memory by version; the change must replace them at once).
    @Test func aRenamedOrReshapedPlaceCountsFromTheNextFix() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            let placeID = try #require(try w.createCircle("School", radius: 100).json["id"].string)
            try w.walk("B1", [600, 50], from: 0)
            #expect(try w.placeEvents() == ["enter School B1"])
            let client = try app.client()
            let renamed = try client.request("PATCH", "/v1/groups/\(w.groupID)/places/\(placeID)", token: w.users["ann"]!.token,
                                             json: #"{"name":"Campus"}"#)
            #expect(renamed.status == 200)
            try w.walk("B1", [600], from: 2_000)
            let afterRename = try w.placeEvents()
            #expect(afterRename == ["enter School B1", "exit Campus B1"])
            // Grown to 1 km around B1 (600 m away): set inside silently, then left at 1.5 km.
            let grown = try client.request("PATCH", "/v1/groups/\(w.groupID)/places/\(placeID)", token: w.users["ann"]!.token,
                                           json: #"{"radius":1000}"#)
            #expect(grown.status == 200)
            try w.walk("B1", [700, 1_500], from: 3_000)
            let afterReshape = try w.placeEvents()
            #expect(afterReshape == ["enter School B1", "exit Campus B1", "exit Campus B1"])
        }
    }

    @Test func liveFeedSnapshotShowsInsideAndStreamsCrossings() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("School", radius: 100)
            try w.walk("B1", [20], from: 0)
            let client = try app.client()
            _ = try client.openStream("/v1/groups/\(w.groupID)/live", headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"])
            let events = SSEReader(client: client)
            let snapshot = try #require(try events.nextEvent())
            #expect(snapshot.name == "snapshot" && snapshot.json["places"][0]["name"].string == "School")
            #expect(snapshot.json["places"][0]["inside"][0].string == w.devices["B1"]!.id)
            try w.walk("B1", [400], from: 1_000)
            var names: [String] = []
            while names.count < 2, let event = try events.nextEvent() { names.append(event.name) }
            #expect(names == ["location", "place"])
        }
    }

    @Test func deletingTheFixRedactsItsPlaceEvent() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            _ = try w.createCircle("School", radius: 100)
            try w.walk("B1", [600, 20], from: 0)
            #expect(try w.placeEvents() == ["enter School B1"])
            try w.walk("B1", [30], from: 60_000)   // keeps a latest position after the delete
            let device = w.devices["B1"]!.id
            let reply = try app.client().request("DELETE", "/v1/devices/\(device)/locations?before=\(w.start + 30_000)",
                                                 headers: ["Authorization": "Bearer \(w.users["bob"]!.token)"])
            #expect(reply.status == 200 && reply.json["deleted"].int == 2)
            #expect(try w.placeEvents().isEmpty)
        }
    }
}
