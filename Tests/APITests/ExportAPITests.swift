import Foundation
import Testing
import HTTPTestSupport

@Suite struct ExportAPITests {

    /// Ann (A1) and Bob (B1) share; Cat (C1) does not; Fay (F1) is outside. Each posts a track.
    static func world(_ app: TestApp) throws -> PermissionWorld {
        let w = try PermissionWorld(app: app)
        for (i, name) in ["A1", "B1", "C1", "F1"].enumerated() {
            let d = w.devices[name]!
            var fixes: [String] = []
            for k in 0..<10 {
                // A 40-minute gap after the fifth fix splits tracks (default gap 30 min).
                let ts = w.sharedSince + Int64(k) * 60_000 + (k >= 5 ? 2_400_000 : 0)
                fixes.append(#"{"location":[\#(Double(i) + Double(k) / 100),\#(45 + Double(k) / 100)],"timestamp":\#(ts),"altitude":\#(100 + k)}"#)
            }
            let reply = try app.client().request("POST", "/v1/devices/\(d.id)/locations", token: d.token, json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#)
            guard reply.json["accepted"].int == 10 else { throw TestFailure(reply.text) }
        }
        return w
    }

    @Test func groupGeoJSONFollowsRFC7946AndOnlyHoldsWhatTheCallerMayRead() throws {
        try TestApp.with { app in
            let w = try Self.world(app)
            let reply = try app.client().get("/v1/groups/\(w.groupID)/export.geojson?tracks=true", token: w.users["ann"]!.token)
            #expect(reply.status == 200 && reply.header("Content-Type") == "application/geo+json")
            let doc = reply.json
            #expect(doc["type"].string == "FeatureCollection" && !doc["crs"].exists)
            let features = doc["features"].array
            let points = features.filter { $0["geometry"]["type"].string == "Point" }
            let tracks = features.filter { $0["geometry"]["type"].string == "MultiLineString" }
            #expect(points.count == 2 && tracks.count == 2)  // Ann and Bob; never Cat or Fay
            let ids = Set(features.compactMap { $0["properties"]["deviceId"].string })
            #expect(ids == [w.devices["A1"]!.id, w.devices["B1"]!.id])
            for p in points {
                let c = p["geometry"]["coordinates"]
                #expect((-180...180).contains(c[0].double ?? 999) && (-90...90).contains(c[1].double ?? 999))
                #expect(p["properties"]["displayName"].string != nil && p["properties"]["timestamp"].string?.hasSuffix("Z") == true)
            }
            // Split at the 40-minute gap: two parts of five positions, [lon, lat, alt].
            let parts = tracks[0]["geometry"]["coordinates"].array
            #expect(parts.count == 2 && parts.allSatisfy { $0.count == 5 })
            #expect(parts[0][0].count == 3)
            let bbox = doc["bbox"].array.compactMap(\.double)
            #expect(bbox.count == 4 && bbox[0] <= bbox[2] && bbox[1] <= bbox[3])
        }
    }

    @Test func timeFiltersAndWithinAndNonMembers() throws {
        try TestApp.with { app in
            let w = try Self.world(app)
            let ann = w.users["ann"]!.token
            let window = try app.client().get("/v1/groups/\(w.groupID)/export/scatter?from=\(w.sharedSince)&to=\(w.sharedSince + 4 * 60_000)", token: ann)
            let series = window.json["series"].array
            #expect(series.count == 2 && series.allSatisfy { $0["points"].count == 5 })
            let square = #"{"type":"Polygon","coordinates":[[[0.5,44],[1.5,44],[1.5,46],[0.5,46],[0.5,44]]]}"#
            let encoded = square.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let within = try app.client().get("/v1/groups/\(w.groupID)/export.geojson?tracks=true&within=\(encoded)", token: ann)
            let ids = Set(within.json["features"].array.compactMap { $0["properties"]["deviceId"].string })
            #expect(ids == [w.devices["B1"]!.id])
            for user in ["fay", "dan", "eve"] {
                #expect(try app.client().get("/v1/groups/\(w.groupID)/export.geojson", token: w.users[user]!.token).status == 404)
            }
            #expect(try app.client().get("/v1/devices/\(w.devices["C1"]!.id)/export.gpx", token: ann).status == 404)
            #expect(try app.client().get("/v1/groups/\(w.groupID)/export/scatter?format=pdf", token: ann).status == 400)
            #expect(try app.client().get("/v1/groups/\(w.groupID)/export.geojson?within=%7B", token: ann).status == 400)
        }
    }

    @Test func emptyGroupAndDeviceWithOneFix() throws {
        try TestApp.with { app in
            let owner = try DeviceFixture(app: app)
            let group = try app.client().request("POST", "/v1/groups", token: owner.user.token, json: #"{"name":"Empty","deviceId":"\#(owner.deviceID)"}"#)
            let groupID = group.json["id"].string ?? ""
            let empty = try app.client().get("/v1/groups/\(groupID)/export.geojson?tracks=true", token: owner.user.token)
            #expect(empty.json["type"].string == "FeatureCollection" && empty.json["features"].count == 0)
            let svg = try app.client().get("/v1/groups/\(groupID)/export/scatter?format=svg", token: owner.user.token)
            #expect(svg.status == 200 && svg.text.contains("<svg"))
            try owner.post(app, #"{"location":[10,50],"timestamp":"2026-11-30T08:00:00Z","altitude":200}"#)
            let gpx = try app.client().get("/v1/devices/\(owner.deviceID)/export.gpx", token: owner.user.token)
            #expect(gpx.status == 200 && gpx.text.contains("<trkpt lat=\"50\" lon=\"10\">") && gpx.text.contains("<ele>200</ele>"))
            let device = try app.client().get("/v1/devices/\(owner.deviceID)/export.geojson", token: owner.user.token)
            // The latest position, and the fix as a Point of kind "fix": one fix makes no line.
            #expect(device.json["features"].array.compactMap { $0["properties"]["kind"].string } == ["position", "fix"])
            let nothing = try app.client().get("/v1/devices/\(owner.deviceID)/export.ndjson?to=2000-01-01T00:00:00Z", token: owner.user.token)
            #expect(nothing.status == 200 && nothing.body.isEmpty)
        }
    }

    @Test func scatterColoursAreStableAcrossExportsAndFormats() throws {
        try TestApp.with { app in
            let w = try Self.world(app)
            let ann = w.users["ann"]!.token
            let first = try app.client().get("/v1/groups/\(w.groupID)/export/scatter", token: ann).json["series"].array
            let again = try app.client().get("/v1/groups/\(w.groupID)/export/scatter", token: ann).json["series"].array
            #expect(first.map { $0["color"].string } == again.map { $0["color"].string })
            #expect(Set(first.compactMap { $0["color"].string }).count == 2)
            let csv = try app.client().get("/v1/groups/\(w.groupID)/export/scatter?format=csv", token: ann).text
            #expect(csv.hasPrefix("lon,lat,timestamp,deviceId,deviceName,userId,displayName,color"))
            for s in first { #expect(csv.contains(s["color"].string ?? "?")) }
            let vega = try app.client().get("/v1/groups/\(w.groupID)/export/scatter?format=vega-lite&color=user", token: ann).json
            #expect(vega["$schema"].string?.contains("vega-lite") == true && vega["layer"].count >= 2)
        }
    }
}
