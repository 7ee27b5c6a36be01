import Foundation
import Testing
import HTTPTestSupport
import TestRandom


/// Great-circle distance on MongoDB's sphere (R = 6,378,100 m), haversine form.
func haversineMeters(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
    let r = 6_378_100.0, d = Double.pi / 180
    let a = pow(sin((lat2 - lat1) * d / 2), 2) + cos(lat1 * d) * cos(lat2 * d) * pow(sin((lon2 - lon1) * d / 2), 2)
    return 2 * r * asin(min(1, sqrt(a)))
}

@Suite struct GeoQueryAPITests {
    /// Posts `count` random fixes around (lon, lat) ± spread for a device; returns them.
    static func seed(_ app: TestApp, deviceID: String, token: String, count: Int, lon: Double, lat: Double, spread: Double,
                     random: inout SplitMix64, firstTimestamp: Int64) throws -> [(Double, Double)] {
        var points: [(Double, Double)] = []
        var fixes: [String] = []
        for i in 0..<count {
            let p = (lon + random.uniform(-spread...spread), lat + random.uniform(-spread...spread))
            points.append(p)
            fixes.append(#"{"location":[\#(p.0),\#(p.1)],"timestamp":\#(firstTimestamp + Int64(i) * 1000)}"#)
        }
        let reply = try app.client().request("POST", "/v1/devices/\(deviceID)/locations", token: token, json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#)
        guard reply.json["accepted"].int == count else { throw TestFailure("seeding failed: \(reply.text)") }
        return points
    }

    struct Seeded {
        let world: PermissionWorld
        /// Readable history: Ann's and Bob's fixes (Cat does not share; Fay is outside).
        let visible: [(lon: Double, lat: Double, device: String)]
    }

    static func seededWorld(_ app: TestApp) throws -> Seeded {
        let w = try PermissionWorld(app: app)
        var random = SplitMix64(seed: 20261130)
        let base = w.sharedSince
        var visible: [(Double, Double, String)] = []
        for (name, device) in [("A1", true), ("B1", true), ("C1", false), ("F1", false)] {
            let d = w.devices[name]!
            // Devices not readable in the group post an hour back (before anyone joined).
            let points = try seed(app, deviceID: d.id, token: d.token, count: 300, lon: 2.35, lat: 48.85, spread: 0.2,
                                  random: &random, firstTimestamp: device ? base : base - 3_600_000)
            if device { visible += points.map { ($0.0, $0.1, d.id) } }
        }
        return Seeded(world: w, visible: visible)
    }

    func query(_ app: TestApp, _ w: PermissionWorld, _ body: String, as user: String = "ann") throws -> HTTPTestClient.Reply {
        try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.users[user]!.token, json: body)
    }

    @Test func nearMatchesBruteForceOrderAndDistances() throws {
        try TestApp.with { app in
            let s = try Self.seededWorld(app)
            let reply = try query(app, s.world, #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[2.35,48.85]},"$maxDistance":15000}}},"scope":"history","limit":50,"explain":true}"#)
            #expect(reply.status == 200, "\(reply.text)")
            let results = reply.json["results"].array
            let expected = s.visible.map { haversineMeters(2.35, 48.85, $0.lon, $0.lat) }.filter { $0 <= 15000 }.sorted().prefix(50)
            #expect(results.count == expected.count)
            for (got, want) in zip(results, expected) {
                #expect(abs((got["distance"].double ?? -1) - want) < 1e-6 * max(1, want))
            }
            let devices = Set(results.compactMap { $0["deviceId"].string })
            #expect(devices.isSubset(of: [s.world.devices["A1"]!.id, s.world.devices["B1"]!.id]))
            #expect(reply.json["explain"]["cellsInCovering"].int ?? 0 >= 1)
        }
    }

    @Test func withinShapesMatchBruteForce() throws {
        try TestApp.with { app in
            let s = try Self.seededWorld(app)
            let cases: [(String, (Double, Double) -> Bool)] = [
                (#"{"$geoWithin":{"$box":[[2.3,48.8],[2.4,48.9]]}}"#, { $0 >= 2.3 && $0 <= 2.4 && $1 >= 48.8 && $1 <= 48.9 }),
                (#"{"$geoWithin":{"$center":[[2.35,48.85],0.05]}}"#, { pow($0 - 2.35, 2) + pow($1 - 48.85, 2) <= 0.0025 }),
                (#"{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.001]}}"#, { haversineMeters(2.35, 48.85, $0, $1) <= 6378.1 }),
                (#"{"$geoWithin":{"$polygon":[[2.2,48.7],[2.5,48.7],[2.35,49.0]]}}"#, { lon, lat in
                    // Flat triangle: inside all three half-planes.
                    func side(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double { (bx - ax) * (lat - ay) - (by - ay) * (lon - ax) }
                    return side(2.2, 48.7, 2.5, 48.7) >= 0 && side(2.5, 48.7, 2.35, 49.0) >= 0 && side(2.35, 49.0, 2.2, 48.7) >= 0
                }),
            ]
            for (op, inside) in cases {
                let reply = try query(app, s.world, #"{"filter":{"location":\#(op)},"scope":"history","limit":10000}"#)
                #expect(reply.status == 200, "\(op): \(reply.text)")
                let want = s.visible.filter { inside($0.lon, $0.lat) }.count
                #expect(reply.json["results"].count == want, "\(op)")
            }
            // A spherical polygon (small: geodesic edges barely differ) with a hole.
            let poly = #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[2.2,48.7],[2.5,48.7],[2.5,49.0],[2.2,49.0],[2.2,48.7]],[[2.3,48.8],[2.4,48.8],[2.4,48.9],[2.3,48.9],[2.3,48.8]]]}}}"#
            let reply = try query(app, s.world, #"{"filter":{"location":\#(poly)},"scope":"history","limit":10000}"#)
            let inBox = { (lon: Double, lat: Double, w: Double, s: Double, e: Double, n: Double) in lon > w && lon < e && lat > s && lat < n }
            let want = s.visible.filter { inBox($0.lon, $0.lat, 2.2, 48.7, 2.5, 49.0) && !inBox($0.lon, $0.lat, 2.3, 48.8, 2.4, 48.9) }.count
            #expect(abs(reply.json["results"].count - want) <= 2, "geodesic edges may move a point right at an edge")
        }
    }

    @Test func onlyReadablePositionsAreCandidatesEvenInExplainCounts() throws {
        try TestApp.with { app in
            let s = try Self.seededWorld(app)
            let body = #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.1]}}},"scope":"history","limit":10000,"explain":true}"#
            let reply = try query(app, s.world, body)
            #expect(reply.json["results"].count == 600)
            #expect(reply.json["explain"]["keysExamined"].int == 600)
            #expect(reply.json["explain"]["docsExamined"].int == 600)
            // Cat turns sharing on: her 300 fixes from while she did not share stay hidden (history
            // is visible only for the times it was shared); what she posts from now on counts.
            _ = try app.client().request("PUT", "/v1/groups/\(s.world.groupID)/sharing", token: s.world.users["cat"]!.token, json: #"{"shareLocation":true}"#)
            #expect(try query(app, s.world, body).json["explain"]["keysExamined"].int == 600)
            var random = SplitMix64(seed: 7)
            let cat = s.world.devices["C1"]!
            _ = try Self.seed(app, deviceID: cat.id, token: cat.token, count: 50, lon: 2.35, lat: 48.85, spread: 0.2,
                              random: &random, firstTimestamp: Int64(Date().timeIntervalSince1970 * 1000) + 1_000)
            #expect(try query(app, s.world, body).json["explain"]["keysExamined"].int == 650)
            // Outsiders, invitees and former members cannot query.
            for user in ["fay", "dan", "eve"] { #expect(try query(app, s.world, body, as: user).status == 404) }
            #expect(try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: s.world.devices["B1"]!.token, json: body).status == 403)
        }
    }

    @Test func latestScopeAndTheNearShortcut() throws {
        try TestApp.with { app in
            let s = try Self.seededWorld(app)
            let post = try query(app, s.world, #"{"filter":{"location":{"$nearSphere":{"$geometry":{"type":"Point","coordinates":[0,0]}}}}}"#)
            #expect(post.json["results"].count == 2)  // Ann's and Bob's latest; Cat hidden
            let d0 = post.json["results"][0]["distance"].double ?? 0, d1 = post.json["results"][1]["distance"].double ?? 0
            #expect(d0 <= d1)
            let get = try app.client().get("/v1/groups/\(s.world.groupID)/near?lon=0&lat=0&limit=1", token: s.world.users["bob"]!.token)
            #expect(get.json["results"].count == 1 && get.json["results"][0]["distance"].double == d0)
        }
    }

    @Test func distanceBoundsAreInclusiveOnMongoDBsSphere() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let b1 = w.devices["B1"]!
            _ = try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"location":[1,0]}"#)
            let exact = 111_318.84502145034  // 1° on the equator with R = 6,378,100 m
            let hit = try app.client().get("/v1/groups/\(w.groupID)/near?lon=0&lat=0&maxDistance=\(exact)&minDistance=\(exact)", token: w.users["ann"]!.token)
            #expect(hit.json["results"].count == 1)
            #expect(abs((hit.json["results"][0]["distance"].double ?? 0) - exact) < 1e-6)
            let miss = try app.client().get("/v1/groups/\(w.groupID)/near?lon=0&lat=0&maxDistance=111318.8", token: w.users["ann"]!.token)
            #expect(miss.json["results"].count == 0)
        }
    }

    struct BadQuery: Sendable, CustomTestStringConvertible {
        let location: String, status: Int, message: String
        var testDescription: String { message }
    }

    @Test(arguments: [
        BadQuery(location: #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}}}"#, status: 422, message: "Loop is not closed"),
        BadQuery(location: #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0],[0,0]]]}}}"#, status: 422, message: "Loop must have at least 3 different vertices"),
        BadQuery(location: #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}}"#, status: 422, message: "Loop is not valid"),
        BadQuery(location: #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"crs":{"type":"name","properties":{"name":"EPSG:3857"}}}}}"#, status: 422, message: "Unknown CRS name"),
        BadQuery(location: #"{"$near":{"$geometry":{"type":"Point","coordinates":[0,0]},"$maxDistance":-1}}"#, status: 400, message: "$maxDistance must be non-negative"),
        BadQuery(location: #"{"$near":{"$geometry":{"type":"Point","coordinates":[0,0]},"$maxDistance":"far"}}"#, status: 400, message: "$maxDistance must be a number"),
        BadQuery(location: #"{"$near":{"$geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}}"#, status: 400, message: "$near requires a point"),
        BadQuery(location: #"{"$near":{"$geometry":{"type":"Point","coordinates":[354.473,-1.94617]}}}"#, status: 422, message: "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617"),
        BadQuery(location: #"{"$geoNear":{}}"#, status: 400, message: "unknown geo operator"),
    ])
    func invalidQueriesGetMongoDBsMessages(_ c: BadQuery) throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let reply = try query(app, w, #"{"filter":{"location":\#(c.location)}}"#)
            #expect(reply.status == c.status, "\(reply.text)")
            #expect(reply.json["error"]["message"].string?.contains(c.message) == true, "\(reply.text)")
        }
    }

    @Test func malformedRequestsAre400() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            for body in [#"{}"#, #"{"filter":{"place":{}}}"#, #"{"filter":{"location":{"$near":[0,0]}},"scope":"all"}"#,
                         #"{"filter":{"location":{"$near":[0,0]}},"limit":0}"#, #"{"filter":{"location":{"$near":[0,0]}},"scope":"latest","from":"2026-01-01T00:00:00Z"}"#] {
                #expect(try query(app, w, body).status == 400, "\(body)")
            }
            #expect(try app.client().get("/v1/groups/\(w.groupID)/near?lon=x&lat=0", token: w.users["ann"]!.token).status == 400)
        }
    }
}
