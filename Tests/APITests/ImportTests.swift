import Foundation
import Testing
import HTTPTestSupport

/// `POST /v1/devices/{id}/import` through the real HTTP server: a multi-megabyte Takeout
/// `Records.json` streamed in, re-imported (nothing new), per-record rejections, who may import,
/// and the live feed (one summary, never the latest location moving backwards).
@Suite struct ImportTests {
    /// A Takeout-shaped `Records.json`: `count` points a minute apart from `start` (ms) around
    /// Paris, E7 coordinates, `timestamp` strings and (every 7th) `timestampMs`, plus one point
    /// with `latitudeE7` out of range and one without a time every 1,000 points.
    static func recordsJSON(count: Int, start: Int64) -> (bytes: [UInt8], valid: Int, invalid: Int) {
        var text = "{\n  \"locations\": [\n"
        var valid = 0, invalid = 0
        for i in 0..<count {
            let ms = start + Int64(i) * 60_000
            let latE7 = 488_566_000 + Int((sin(Double(i) / 50) * 200_000).rounded())
            let lngE7 = 23_522_000 + Int((cos(Double(i) / 50) * 200_000).rounded())
            let time = i % 7 == 0 ? "\"timestampMs\": \"\(ms)\"" : "\"timestamp\": \"\(Self.rfc3339(ms))\""
            var record = "{\"latitudeE7\": \(latE7), \"longitudeE7\": \(lngE7), \"accuracy\": \(5 + i % 40), \(time), \"source\": \"WIFI\", \"deviceTag\": -1234567}"
            if i % 1000 == 500 {
                record = "{\"latitudeE7\": 1900000000, \"longitudeE7\": \(lngE7), \(time)}"
                invalid += 1
            } else if i % 1000 == 700 {
                record = "{\"latitudeE7\": \(latE7), \"longitudeE7\": \(lngE7), \"accuracy\": 10}"
                invalid += 1
            } else {
                valid += 1
            }
            text += "    " + record + (i == count - 1 ? "\n" : ",\n")
        }
        text += "  ]\n}\n"
        return (Array(text.utf8), valid, invalid)
    }

    static func rfc3339(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// Signs up a user with a device: (user token, device id, device token).
    static func device(_ app: TestApp, _ name: String) throws -> (user: String, id: String, token: String) {
        let user = try app.signUp(name)
        let reply = try app.client().request("POST", "/v1/devices", token: user.token, json: #"{"name":"phone"}"#)
        return (user.token, reply.json["device"]["id"].string ?? "", reply.json["deviceToken"].string ?? "")
    }

    static func post(_ app: TestApp, device: String, token: String?, body: [UInt8]) throws -> HTTPTestClient.Reply {
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 120)
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try client.request("POST", "/v1/devices/\(device)/import", headers: headers, body: body)
    }

    @Test func aMultiMegabyteRecordsJSONImportsAndAReimportStoresNothingNew() throws {
        try TestApp.with { app in
            let (user, deviceID, deviceToken) = try Self.device(app, "importer")
            let start: Int64 = 1_546_300_800_000   // 2019-01-01
            let file = Self.recordsJSON(count: 40_000, start: start)
            #expect(file.bytes.count > 5_000_000)
            let first = try Self.post(app, device: deviceID, token: deviceToken, body: file.bytes)
            #expect(first.status == 200, "\(first.text)")
            #expect(first.json["format"].string == "google-records")
            #expect(first.json["accepted"].int == file.valid)
            #expect(first.json["duplicates"].int == 0)
            #expect(first.json["rejected"].int == file.invalid)
            #expect(first.json["rejectedByCode"]["missing_timestamp"].int == 40)
            #expect(first.json["rejectedByCode"].count == 2)
            #expect(first.json["rejectedSamples"][0]["index"].int == 500)
            #expect(first.json["bytes"].int == file.bytes.count)
            // Stored through the normal path: history and the latest location (the newest point).
            let client = try app.client()
            let page = try client.get("/v1/devices/\(deviceID)/locations?limit=10", token: user)
            #expect(page.json["locations"][0]["timestamp"].string == Self.rfc3339(start))
            let devices = try client.get("/v1/devices", token: user)
            #expect(devices.json["devices"][0]["lastLocation"]["timestamp"].string == Self.rfc3339(start + 39_999 * 60_000))
            let again = try Self.post(app, device: deviceID, token: deviceToken, body: file.bytes)
            #expect(again.status == 200)
            #expect(again.json["accepted"].int == 0)
            #expect(again.json["duplicates"].int == file.valid)
        }
    }

    /// Batches are stored one after another while the next is parsed: a point repeated in a
    /// later batch of the same file is a duplicate, and the latest location is the newest point.
    @Test func repeatsAcrossBatchesOfOneFileAreDuplicates() throws {
        try TestApp.with { app in
            let (user, deviceID, deviceToken) = try Self.device(app, "batches")
            let start: Int64 = 1_577_836_800_000   // 2020-01-01
            // 6,000 points, then the same 6,000 again: with 5,000-fix batches the repeats begin in
            // the second batch and fill the third.
            let points = (0..<6_000).map { #"{"location":[11.5\#($0 % 10),48.1],"timestamp":\#(start + Int64($0) * 1_000)}"# }
            let body = Array(#"{"locations":[\#((points + points).joined(separator: ","))]}"#.utf8)
            let reply = try Self.post(app, device: deviceID, token: deviceToken, body: body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json["accepted"].int == 6_000)
            #expect(reply.json["duplicates"].int == 6_000)
            let devices = try app.client().get("/v1/devices", token: user)
            #expect(devices.json["devices"][0]["lastLocation"]["timestamp"].string == Self.rfc3339(start + 5_999 * 1_000))
        }
    }

    @Test func theLiveFeedGetsOneSummaryAndTheLatestLocationNeverMovesBack() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let b1 = w.devices["B1"]!
            let ann = w.users["ann"]!.token
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            // A live fix an hour ahead (clocks may run ahead): the import below is all older.
            let live = try client.request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token,
                                          json: #"{"location":[2.35,48.85],"timestamp":\#(now + 3_600_000)}"#)
            #expect(live.json["accepted"].int == 1)
            let before = try client.get("/v1/groups/\(w.groupID)/changes?since=0&limit=1000", token: ann).json["last"].int ?? 0
            // 300 points the group may see (after Bob joined) and 5 from a year before he did.
            var fixes = (0..<300).map { #"{"location":[2.3\#($0 % 10),48.8],"timestamp":\#(w.sharedSince + Int64($0))}"# }
            fixes += (0..<5).map { #"{"location":[2.3,48.8],"timestamp":\#(now - 365 * 86_400_000 + Int64($0))}"# }
            let reply = try Self.post(app, device: b1.id, token: b1.token, body: Array(#"{"locations":[\#(fixes.joined(separator: ","))]}"#.utf8))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json["format"].string == "native")
            #expect(reply.json["accepted"].int == 305)
            let events = try client.get("/v1/groups/\(w.groupID)/changes?since=\(before)&limit=1000", token: ann).json["events"].array
            #expect(events.count == 1)
            #expect(events.first?["type"].string == "locations")
            #expect(events.first?["data"]["count"].int == 300)
            #expect(events.first?["data"]["deviceId"].string == b1.id)
            let group = try client.get("/v1/groups/\(w.groupID)", token: ann)
            let bob = group.json["members"].array.first { $0["deviceId"].string == b1.id }
            #expect(bob?["location"]["coordinates"][0].double == 2.35)

            // Newer points move the latest location: the summary plus one `location` event.
            let newer = (1...3).map { #"{"location":[2.4\#($0),48.9],"timestamp":\#(now + 3_600_000 + Int64($0) * 1000)}"# }
            let last = try client.get("/v1/groups/\(w.groupID)/changes?since=0&limit=1000", token: ann).json["last"].int ?? 0
            _ = try Self.post(app, device: b1.id, token: b1.token, body: Array(#"{"locations":[\#(newer.joined(separator: ","))]}"#.utf8))
            let after = try client.get("/v1/groups/\(w.groupID)/changes?since=\(last)&limit=1000", token: ann).json["events"].array
            #expect(after.map { $0["type"].string ?? "" } == ["locations", "location"])
            #expect(after.last?["data"]["latest"].bool == true)
            #expect(after.last?["data"]["location"][0].double == 2.43)
        }
    }

    @Test func badBodiesAndWrongCredentialsGetClearErrors() throws {
        try TestApp.with { app in
            let (user, deviceID, deviceToken) = try Self.device(app, "careful")
            let csv = Array("time,lat,lon\n2024-05-01T10:00:00Z,48.85,2.35\n".utf8)
            #expect(try Self.post(app, device: deviceID, token: nil, body: csv).status == 401)
            let asUser = try Self.post(app, device: deviceID, token: user, body: csv)
            #expect(asUser.status == 403)
            #expect(asUser.json["error"]["message"].string?.contains("partition device=\(deviceID)") == true)
            let empty = try Self.post(app, device: deviceID, token: deviceToken, body: [])
            #expect(empty.status == 400 && empty.errorCode == "empty_file")
            let notHistory = try Self.post(app, device: deviceID, token: deviceToken, body: Array(#"{"hello": "world"}"#.utf8))
            #expect(notHistory.status == 400)
            #expect(notHistory.errorCode != nil)
            // Cut short: what came before is imported, and the reply says where reading stopped.
            let truncated = Array(#"{"locations":[{"latitudeE7":488566000,"longitudeE7":23522000,"timestamp":"2024-05-01T10:00:00Z"},{"latitudeE7":4885"#.utf8)
            let cut = try Self.post(app, device: deviceID, token: deviceToken, body: truncated)
            #expect(cut.status == 200, "\(cut.text)")
            #expect(cut.json["accepted"].int == 1)
            #expect(cut.json["stopped"]["code"].string == "truncated_file")
            let ok = try Self.post(app, device: deviceID, token: deviceToken, body: csv)
            #expect(ok.status == 200 && ok.json["format"].string == "csv" && ok.json["accepted"].int == 1)
        }
    }

    @Test func aBodyOverTheImportLimitIs413BeforeItIsRead() throws {
        let app = try TestApp { $0.importMaxBytes = 10_000 }
        defer { app.close() }
        let (_, deviceID, deviceToken) = try Self.device(app, "limited")
        let file = Self.recordsJSON(count: 200, start: 1_546_300_800_000)
        let reply = try Self.post(app, device: deviceID, token: deviceToken, body: file.bytes)
        #expect(reply.status == 413)
        #expect(reply.errorCode == "payload_too_large")
    }
}
