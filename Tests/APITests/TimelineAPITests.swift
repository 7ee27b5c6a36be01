import Foundation
import Testing
import HTTPTestSupport
import Timeline

/// `GET /v1/devices/{id}/timeline` and the timeline exports through the real HTTP server: a
/// morning with two stays and a trip between, town names, the history visibility rule, limits.
@Suite struct TimelineAPITests {
    static let towns = NearestPlace(places: [
        Place(name: "Paris", country: "FR", location: TimelinePoint(longitude: 2.3522, latitude: 48.8566)),
        Place(name: "Boulogne-Billancourt", country: "FR", location: TimelinePoint(longitude: 2.2399, latitude: 48.8352)),
    ])

    /// One fix a minute: 60 at home (Paris, jittering by a few meters), 30 minutes driving ~8 km
    /// west, 90 at the office (Boulogne). Times from `start` (ms).
    static func morning(start: Int64) -> String {
        var fixes: [String] = []
        func fix(_ minute: Int, _ lon: Double, _ lat: Double) {
            fixes.append(#"{"location":[\#(lon),\#(lat)],"timestamp":\#(start + Int64(minute) * 60_000),"accuracy":10}"#)
        }
        for m in 0..<60 { fix(m, 2.3522 + Double(m % 3) * 0.00003, 48.8566 + Double(m % 2) * 0.00002) }
        for m in 60..<90 {
            let t = Double(m - 59) / 31
            fix(m, 2.3522 + (2.2399 - 2.3522) * t, 48.8566 + (48.8352 - 48.8566) * t)
        }
        for m in 90..<180 { fix(m, 2.2399 + Double(m % 2) * 0.00003, 48.8352) }
        return #"{"locations":[\#(fixes.joined(separator: ","))]}"#
    }

    static func iso(_ ms: Int64) -> String { ImportTests.rfc3339(ms) }

    @Test func aMorningIsTwoStaysAndATripWithTownNames() throws {
        let app = try TestApp(towns: Self.towns)
        defer { app.close() }
        let (user, deviceID, deviceToken) = try ImportTests.device(app, "walker")
        let start = (Int64(Date().timeIntervalSince1970 * 1000) / 86_400_000 - 2) * 86_400_000 + 8 * 3_600_000
        let client = try app.client()
        #expect(try client.request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: Self.morning(start: start)).json["accepted"].int == 180)
        let path = "/v1/devices/\(deviceID)/timeline?from=\(Self.iso(start - 3_600_000))&to=\(Self.iso(start + 4 * 3_600_000))"
        let reply = try client.get(path, token: user)
        #expect(reply.status == 200, "\(reply.text)")
        let segments = reply.json["segments"].array
        #expect(segments.map { $0["type"].string ?? "" } == ["stay", "trip", "stay"])
        #expect(segments.first?["place"]["name"].string == "Paris")
        #expect(segments.first?["place"]["source"].string == "geonames")
        #expect(segments.first?["place"]["country"].string == "FR")
        #expect(segments.last?["place"]["name"].string == "Boulogne-Billancourt")
        #expect(segments.first?["start"].string == Self.iso(start))
        let trip = segments[1]
        #expect((trip["distance"].double ?? 0) > 7_000 && (trip["distance"].double ?? 0) < 10_000)
        #expect((trip["averageSpeed"].double ?? 0) > 3)
        #expect(trip["from"][0].double.map { abs($0 - 2.3522) < 0.001 } == true)

        // The same as exports: stays as Points, trips as LineStrings; GPX one track per trip.
        let geojson = try client.get("/v1/devices/\(deviceID)/export.geojson?timeline=true&from=\(Self.iso(start - 3_600_000))&to=\(Self.iso(start + 4 * 3_600_000))", token: user)
        #expect(geojson.status == 200)
        let features = geojson.json["features"].array
        #expect(features.map { $0["geometry"]["type"].string ?? "" } == ["Point", "LineString", "Point"])
        #expect(features[1]["geometry"]["coordinates"].count == 32)
        #expect(features[0]["properties"]["place"]["name"].string == "Paris")
        let gpx = try client.get("/v1/devices/\(deviceID)/export.gpx?timeline=true&from=\(Self.iso(start - 3_600_000))&to=\(Self.iso(start + 4 * 3_600_000))", token: user)
        #expect(gpx.status == 200)
        #expect(gpx.text.components(separatedBy: "<trk>").count - 1 == 1)
        #expect(gpx.text.components(separatedBy: "<trkpt").count - 1 == 32)
    }

    @Test func aGroupPlaceNamesTheStayBeforeTheTown() throws {
        let app = try TestApp(towns: Self.towns)
        defer { app.close() }
        let (user, deviceID, deviceToken) = try ImportTests.device(app, "homebody")
        let client = try app.client()
        let group = try client.request("POST", "/v1/groups", token: user, json: #"{"name":"Family","deviceId":"\#(deviceID)"}"#).json["id"].string ?? ""
        let place = try client.request("POST", "/v1/groups/\(group)/places", token: user,
                                       json: #"{"name":"Home <b>sweet</b>","geometry":{"type":"Point","coordinates":[2.3522,48.8566]},"radius":150}"#)
        #expect(place.status == 201, "\(place.text)")
        let start = (Int64(Date().timeIntervalSince1970 * 1000) / 86_400_000 - 2) * 86_400_000 + 8 * 3_600_000
        _ = try client.request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: Self.morning(start: start))
        let segments = try client.get("/v1/devices/\(deviceID)/timeline?from=\(Self.iso(start))&to=\(Self.iso(start + 4 * 3_600_000))", token: user)
            .json["segments"].array
        #expect(segments.first?["place"]["name"].string == "Home <b>sweet</b>")
        #expect(segments.first?["place"]["source"].string == "place")
        #expect(segments.last?["place"]["source"].string == "geonames")
    }

    @Test func aMemberSeesOnlyTheSharedTimes() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let b1 = w.devices["B1"]!
            // A morning 30 days before Bob joined the group, and one after.
            let before = (w.sharedSince / 86_400_000 - 30) * 86_400_000 + 8 * 3_600_000
            #expect(try client.request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: Self.morning(start: before)).json["accepted"].int == 180)
            #expect(try client.request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: Self.morning(start: w.sharedSince + 1)).json["accepted"].int == 180)
            let path = "/v1/devices/\(b1.id)/timeline?from=\(Self.iso(before - 86_400_000))&to=\(Self.iso(w.sharedSince + 86_400_000))"
            let owner = try client.get(path, token: w.users["bob"]!.token).json["segments"].array
            let member = try client.get(path, token: w.users["ann"]!.token).json["segments"].array
            #expect(owner.count == 6)
            #expect(member.count == 3)
            #expect(member.first?["start"].string == Self.iso(w.sharedSince + 1))
            #expect(try client.get(path, token: w.users["fay"]!.token).status == 404)
        }
    }

    @Test func rangesAndParametersAreChecked() throws {
        try TestApp.with { app in
            let (user, deviceID, _) = try ImportTests.device(app, "bounded")
            let client = try app.client()
            let base = "/v1/devices/\(deviceID)/timeline"
            #expect(try client.get(base, token: user).json["segments"].count == 0)
            let tooLong = try client.get(base + "?from=2024-01-01T00:00:00Z&to=2025-06-01T00:00:00Z", token: user)
            #expect(tooLong.status == 400 && tooLong.errorCode == "invalid_range")
            let backwards = try client.get(base + "?from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z", token: user)
            #expect(backwards.status == 400 && backwards.errorCode == "invalid_range")
            let radius = try client.get(base + "?stayRadius=5", token: user)
            #expect(radius.status == 400 && radius.errorCode == "invalid_parameter")
            #expect(try client.get(base + "?stayMinutes=abc", token: user).status == 400)
        }
    }

    /// Issue #45's shape as OwnTracks' significant-changes mode posts it: home 07:00 and 07:40,
    /// the office (8 km away) at 08:05, then nothing until 16:30 and 16:30:00.001 there.
    @Test func aStayAfterAShortTripSurvivesThePhonesSilence() throws {
        let app = try TestApp(towns: Self.towns)
        defer { app.close() }
        let (user, deviceID, deviceToken) = try ImportTests.device(app, "significant")
        let seven = (Int64(Date().timeIntervalSince1970 * 1000) / 86_400_000 - 2) * 86_400_000 + 7 * 3_600_000
        let fixes = [(0, 2.3522, 48.8566), (40, 2.3522, 48.8566), (65, 2.2399, 48.8352), (570, 2.2399, 48.8352)]
            .map { #"{"location":[\#($0.1),\#($0.2)],"timestamp":\#(seven + Int64($0.0) * 60_000),"accuracy":10}"# }
            + [#"{"location":[2.2399,48.8352],"timestamp":\#(seven + 570 * 60_000 + 1),"accuracy":10}"#]
        let client = try app.client()
        #expect(try client.request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken,
                                   json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#).json["accepted"].int == 5)
        let reply = try client.get("/v1/devices/\(deviceID)/timeline?from=\(Self.iso(seven - 3_600_000))&to=\(Self.iso(seven + 12 * 3_600_000))", token: user)
        let segments = reply.json["segments"].array
        #expect(segments.map { $0["type"].string ?? "" } == ["stay", "trip", "stay"], "\(reply.text)")
        #expect(segments.last?["start"].string == Self.iso(seven + 65 * 60_000))
        #expect(segments.last?["end"].string == Self.iso(seven + 570 * 60_000 + 1))
        #expect(segments.last?["place"]["name"].string == "Boulogne-Billancourt")
        #expect(segments[1]["fixes"].int == 0)
    }
}
