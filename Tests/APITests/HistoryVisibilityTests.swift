import Foundation
import Testing
import HTTPTestSupport

/// The permission matrix's history-visibility rows (API.md, "Visibility of history"): a member
/// reads another member's device history only for the times it was shared with the group —
/// joining must not reveal last year, and what a device recorded while its member's sharing was
/// off stays hidden after it is turned on again. The owner reads all of it. Every history path
/// is a row: the history API, `scope: "history"` queries and their explain, device GeoJSON,
/// GPX and NDJSON exports, group NDJSON, tracks and scatter data, and a live replay.
@Suite struct HistoryVisibilityTests {
    /// Gus's G1: three fixes a year ago, then Gus joins Ann's group; two fixes; sharing off, one
    /// fix; sharing on, one fix. Returns the world, Gus's (id, token), G1's (id, token) and the
    /// longitudes of the fixes the group may read.
    struct Scenario {
        let world: PermissionWorld
        let gus: (id: String, token: String)
        let g1: (id: String, token: String)
        static let everything: [Double] = [1, 2, 3, 10, 11, 20, 30]
        static let shared: [Double] = [10, 11, 30]
    }

    static func scenario(_ app: TestApp) throws -> Scenario {
        let w = try PermissionWorld(app: app)
        let client = try app.client()
        let gus = try app.signUp("gus" + w.suffix)
        let device = try client.request("POST", "/v1/devices", token: gus.token, json: #"{"name":"G1"}"#)
        let g1 = (id: device.json["device"]["id"].string ?? "", token: device.json["deviceToken"].string ?? "")
        func post(_ longitudes: [Double], at timestamp: Int64) throws {
            let body = longitudes.enumerated().map { #"{"location":[\#($1),50],"timestamp":\#(timestamp + Int64($0))}"# }
            let reply = try client.request("POST", "/v1/devices/\(g1.id)/locations", token: g1.token, json: #"{"locations":[\#(body.joined(separator: ","))]}"#)
            guard reply.json["accepted"].int == longitudes.count else { throw TestFailure("post: \(reply.text)") }
        }
        func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
        /// Periods start and end at server milliseconds: each step waits for the clock to move
        /// on by a few, so every fix falls clearly inside or outside them.
        func tick() -> Int64 {
            let start = now()
            while now() <= start + 2 {}
            return now()
        }
        try post([1, 2, 3], at: now() - 365 * 86_400_000)
        _ = try client.request("POST", "/v1/groups/\(w.groupID)/invitations", token: w.users["ann"]!.token, json: #"{"email":"gus\#(w.suffix)@example.org"}"#)
        _ = try client.request("POST", "/v1/invitations/\(w.groupID)/accept", token: gus.token, json: #"{"deviceId":"\#(g1.id)"}"#)
        try post([10, 11], at: tick())
        _ = tick()
        _ = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: gus.token, json: #"{"shareLocation":false}"#)
        try post([20], at: tick())
        _ = tick()
        _ = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: gus.token, json: #"{"shareLocation":true}"#)
        try post([30], at: tick())
        return Scenario(world: w, gus: gus, g1: g1)
    }

    struct HistoryPath: Sendable, CustomTestStringConvertible {
        let name: String
        /// The longitudes of G1's positions the path returns to `token`.
        let read: @Sendable (TestApp, Scenario, String) throws -> [Double]
        /// Whether the owner reads this path too (group paths are for members in either case).
        var testDescription: String { name }
    }

    /// The objects of an NDJSON body, one a line.
    static func ndjson(_ body: [UInt8]) -> [TestJSON] {
        body.split(separator: 10).map { TestJSON(Array($0)) }
    }

    static func lons(_ array: [TestJSON], _ key: (TestJSON) -> TestJSON) -> [Double] {
        array.compactMap { key($0).double }.sorted()
    }

    static let paths: [HistoryPath] = [
        HistoryPath(name: "history API") { app, s, token in
            lons(try app.client().get("/v1/devices/\(s.g1.id)/locations", token: token).json["locations"].array) { $0["location"][0] }
        },
        HistoryPath(name: "history query results") { app, s, token in
            let body = #"{"filter":{"location":{"$geoWithin":{"$box":[[0,49],[40,51]]}}},"scope":"history","limit":1000}"#
            return lons(try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: token, json: body).json["results"].array
                .filter { $0["deviceId"].string == s.g1.id }) { $0["location"][0] }
        },
        HistoryPath(name: "history $near results") { app, s, token in
            let body = #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[0,50]}}}},"scope":"history","limit":1000}"#
            return lons(try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: token, json: body).json["results"].array
                .filter { $0["deviceId"].string == s.g1.id }) { $0["location"][0] }
        },
        HistoryPath(name: "device GeoJSON export") { app, s, token in
            // Every fix: the vertices of track lines (those with a time) and the fixes that join no line.
            let features = try app.client().get("/v1/devices/\(s.g1.id)/export.geojson", token: token).json["features"].array
            let tracks = features.filter { $0["properties"]["kind"].string == "track" }
            let vertices = tracks.flatMap { track in
                zip(track["geometry"]["coordinates"].array.flatMap(\.array), track["properties"]["coordTimes"].array.flatMap(\.array))
                    .filter { !$0.1.isNull }.map(\.0)
            }
            let lone = features.filter { $0["properties"]["kind"].string == "fix" }.map { $0["geometry"]["coordinates"] }
            return (vertices + lone).compactMap { $0[0].double }.sorted()
        },
        HistoryPath(name: "device GPX export") { app, s, token in
            let text = try app.client().get("/v1/devices/\(s.g1.id)/export.gpx", token: token).text
            return text.components(separatedBy: "lon=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }.sorted()
        },
        HistoryPath(name: "device NDJSON export") { app, s, token in
            ndjson(try app.client().get("/v1/devices/\(s.g1.id)/export.ndjson", token: token).body).compactMap { $0["location"][0].double }.sorted()
        },
        HistoryPath(name: "group NDJSON export") { app, s, token in
            ndjson(try app.client().get("/v1/groups/\(s.world.groupID)/export.ndjson", token: token).body)
                .filter { $0["deviceId"].string == s.g1.id }.compactMap { $0["location"][0].double }.sorted()
        },
        HistoryPath(name: "group scatter data") { app, s, token in
            let series = try app.client().get("/v1/groups/\(s.world.groupID)/export/scatter", token: token).json["series"].array
            return series.flatMap { $0["points"].array }.compactMap { $0[0].double }.filter { $0 >= 1 }.sorted()
        },
    ]

    @Test(arguments: paths)
    func aMemberReadsOnlyTheSharedTimesAndTheOwnerReadsAll(_ path: HistoryPath) throws {
        try TestApp.with { app in
            let s = try Self.scenario(app)
            let member = try path.read(app, s, s.world.users["ann"]!.token)
            #expect(member == Scenario.shared)
            if !path.name.hasPrefix("group") {
                let owner = try path.read(app, s, s.gus.token)
                #expect(owner == Scenario.everything)
            }
        }
    }

    /// Explain counts follow the same rule: the hidden fixes are not even examined.
    @Test func explainCountsOnlyTheSharedTimes() throws {
        try TestApp.with { app in
            let s = try Self.scenario(app)
            let body = #"{"filter":{"location":{"$geoWithin":{"$box":[[0,49.9],[40,50.1]]}}},"scope":"history","limit":1000,"explain":true}"#
            let reply = try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: s.world.users["bob"]!.token, json: body)
            #expect(reply.json["explain"]["keysExamined"].int == Scenario.shared.count)
        }
    }

    /// A replay of the group's log holds G1's shared fixes only (nothing was logged for the
    /// others, and a year-old backfill posted now would not be either).
    @Test func liveReplayHoldsOnlyTheSharedTimes() throws {
        try TestApp.with { app in
            let s = try Self.scenario(app)
            // A backfill of last year, posted now while sharing: still not the group's to see.
            let old = Int64(Date().timeIntervalSince1970 * 1000) - 300 * 86_400_000
            _ = try app.client().request("POST", "/v1/devices/\(s.g1.id)/locations", token: s.g1.token,
                                         json: #"{"location":[40,50],"timestamp":\#(old)}"#)
            let (_, replay) = try LiveFeedTests.open(app, s.world, lastEventID: "0")
            try LiveFeedTests.post(app, s.world, device: "A1", [(99, 9)], from: Int64(Date().timeIntervalSince1970 * 1000) + 1)
            var seen: [Double] = []
            while let e = try replay.nextEvent() {
                guard e.name == "location" else { continue }
                if e.json["deviceId"].string == s.world.devices["A1"]!.id { break }
                if e.json["deviceId"].string == s.g1.id { seen.append(e.json["location"][0].double ?? -1) }
            }
            #expect(seen == Scenario.shared)
        }
    }
}
