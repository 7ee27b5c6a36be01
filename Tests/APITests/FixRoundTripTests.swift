import Foundation
import Testing
import HTTPTestSupport
import ProcessTestSupport

/// "Every fix comes back out" (API.md, issue #45) through the real HTTP server: the NDJSON
/// export of a device whose fixes came from a Takeout file, the native API and the OwnTracks
/// app (every stored field, with and without ids) imports into a new device and exports the
/// same bytes; GeoJSON never drops a fix and its tracks carry their times; GPX carries speed,
/// course, accuracy and battery in its extension and reads back; a group's NDJSON holds what
/// the caller may read.
@Suite struct FixRoundTripTests {
    /// A second device of `owner`: (id, token).
    static func newDevice(_ app: TestApp, _ owner: DeviceFixture, name: String) throws -> (id: String, token: String) {
        let reply = try app.client().request("POST", "/v1/devices", token: owner.user.token, json: #"{"name":"\#(name)"}"#)
        return (reply.json["device"]["id"].string ?? "", reply.json["deviceToken"].string ?? "")
    }

    static func export(_ app: TestApp, _ path: String, token: String) throws -> HTTPTestClient.Reply {
        let reply = try HTTPTestClient(port: app.port, timeoutSeconds: 120).get(path, token: token)
        guard reply.status == 200 else { throw TestFailure("GET \(path): \(reply.status) \(reply.text)") }
        return reply
    }

    /// A Takeout `Records.json` of 2013 in Europe with one fix in Sydney days away from the
    /// others, every field Takeout has (accuracy, altitude, velocity, heading), times as
    /// `timestamp` and `timestampMs`.
    static let takeout2013 = """
        {"locations": [
          {"latitudeE7": 488584000, "longitudeE7": 22945000, "accuracy": 12, "altitude": 35, "velocity": 0, "heading": 0,
           "timestamp": "2013-05-01T08:00:00Z", "source": "GPS"},
          {"latitudeE7": 488590123, "longitudeE7": 22950456, "accuracy": 9, "altitude": 36.5, "velocity": 1, "heading": 271,
           "timestampMs": "1367395260000"},
          {"latitudeE7": 488601000, "longitudeE7": 22961000, "accuracy": 15, "timestamp": "2013-05-01T08:02:30.250Z"},
          {"latitudeE7": -338688197, "longitudeE7": 1512093048, "accuracy": 20, "altitude": 58, "velocity": 3, "heading": 45,
           "timestamp": "2013-05-06T01:00:00Z"},
          {"latitudeE7": 515007000, "longitudeE7": -1246000, "accuracy": 30, "timestamp": "2013-05-12T12:00:00Z"},
          {"latitudeE7": 515010000, "longitudeE7": -1250000, "accuracy": 31, "altitude": -2.25, "timestamp": "2013-05-12T12:05:00Z"}
        ]}
        """

    /// Ann's phone with fixes from an import, the native API (battery, ids, none) and OwnTracks.
    static func deviceWithEveryField(_ app: TestApp) throws -> (DeviceFixture, count: Int) {
        let ann = try DeviceFixture(app: app, name: "ann")
        let imported = try ImportTests.post(app, device: ann.deviceID, token: ann.deviceToken, body: Array(takeout2013.utf8))
        guard imported.json["accepted"].int == 6 else { throw TestFailure("import: \(imported.text)") }
        let now = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        // A fix without id first at `now`, then one with an id at the same time (kept: ids decide).
        let native = try ann.post(app, #"""
            {"locations": [
              {"location": [11.5755, 48.1374, 519.25], "timestamp": \#(now - 60_000), "accuracy": 3.25, "speed": 0.1,
               "heading": 359.9, "battery": 55.5, "id": "phone-1"},
              {"location": [-0.0, 0.1], "timestamp": \#(now)},
              {"location": [11.58, 48.14], "timestamp": \#(now), "id": "phone-2", "battery": 100},
              {"location": [179.9999999, -89.9999999], "timestamp": \#(now + 1), "accuracy": 100000, "altitude": -12000, "speed": 1000, "heading": 360, "battery": 0}
            ]}
            """#)
        guard native.json["accepted"].int == 4 else { throw TestFailure("native: \(native.text)") }
        let basic = Data("\(ann.deviceID):\(ann.deviceToken)".utf8).base64EncodedString()
        let owntracks = #"{"_type":"location","lat":48.2,"lon":11.6,"tst":\#((now + 60_000) / 1000),"acc":7,"alt":510,"vel":12,"cog":33,"batt":64,"tid":"an"}"#
        let posted = try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": "Basic \(basic)", "Content-Type": "application/json"],
                                              body: Array(owntracks.utf8))
        guard posted.status == 200 else { throw TestFailure("owntracks: \(posted.status) \(posted.text)") }
        return (ann, 11)
    }

    @Test func anNDJSONExportImportedIntoANewDeviceExportsTheSameBytes() throws {
        try TestApp.with { app in
            let (ann, count) = try Self.deviceWithEveryField(app)
            let first = try Self.export(app, "/v1/devices/\(ann.deviceID)/export.ndjson", token: ann.user.token)
            #expect(first.header("Content-Type") == "application/x-ndjson")
            let lines = first.body.split(separator: 10)
            #expect(lines.count == count && first.body.last == 10)
            // Every stored field is there: an imported fix's derived id, battery, a fix without id.
            #expect(first.text.contains(#""id":"gr:1367395200000:488584000:22945000","location":[2.2945,48.8584],"timestamp":"2013-05-01T08:00:00.000Z","accuracy":12,"altitude":35,"speed":0,"heading":0}"#))
            #expect(first.text.contains(#","accuracy":3.25,"altitude":519.25,"speed":0.1,"heading":359.9,"battery":55.5}"#))
            // (SQLite keeps -0 as 0, PostgreSQL as -0: either exports and imports as it is stored.)
            #expect(first.text.contains(#"{"location":[0,0.1],"timestamp":"#) || first.text.contains(#"{"location":[-0,0.1],"timestamp":"#))
            #expect(first.text.contains(#""speed":3.333333333,"heading":33,"battery":64}"#))

            let copy = try Self.newDevice(app, ann, name: "copy")
            let imported = try ImportTests.post(app, device: copy.id, token: copy.token, body: first.body)
            #expect(imported.status == 200 && imported.json["format"].string == "ndjson", "\(imported.text)")
            #expect(imported.json["accepted"].int == count && imported.json["rejected"].int == 0, "\(imported.text)")
            let second = try Self.export(app, "/v1/devices/\(copy.id)/export.ndjson", token: ann.user.token)
            #expect(second.body == first.body, "\(first.text)\n---\n\(second.text)")
            // Importing it again stores nothing new (ids, and the timestamp for a fix without one).
            let again = try ImportTests.post(app, device: copy.id, token: copy.token, body: first.body)
            #expect(again.json["accepted"].int == 0 && again.json["duplicates"].int == count, "\(again.text)")
            // from/to cut the same way the other exports do.
            let may2013 = try Self.export(app, "/v1/devices/\(ann.deviceID)/export.ndjson?from=2013-05-01T00:00:00Z&to=2013-05-31T00:00:00Z",
                                          token: ann.user.token)
            #expect(may2013.body.split(separator: 10).count == 6)
        }
    }

    @Test func geoJSONKeepsTheLonelySydneyFixAndItsTracksCarryTheirTimes() throws {
        try TestApp.with { app in
            let ann = try DeviceFixture(app: app, name: "ann")
            _ = try ImportTests.post(app, device: ann.deviceID, token: ann.deviceToken, body: Array(Self.takeout2013.utf8))
            let reply = try Self.export(app, "/v1/devices/\(ann.deviceID)/export.geojson", token: ann.user.token)
            let features = reply.json["features"].array
            let lone = features.filter { $0["properties"]["kind"].string == "fix" }
            #expect(lone.map { [$0["geometry"]["coordinates"][0].double, $0["geometry"]["coordinates"][1].double] } == [[151.2093048, -33.8688197]])
            #expect(lone.first?["properties"]["timestamp"].string == "2013-05-06T01:00:00.000Z")
            let tracks = features.filter { $0["properties"]["kind"].string == "track" }
            let times = tracks.flatMap { $0["properties"]["coordTimes"].array.flatMap(\.array) }.compactMap(\.string)
            #expect(times == ["2013-05-01T08:00:00.000Z", "2013-05-01T08:01:00.000Z", "2013-05-01T08:02:30.250Z",
                              "2013-05-12T12:00:00.000Z", "2013-05-12T12:05:00.000Z"])
            for track in tracks {
                #expect(track["geometry"]["coordinates"].array.map(\.count) == track["properties"]["coordTimes"].array.map(\.count))
            }
            // What GDAL reads: every fix is a feature or a vertex, and the document is valid for it.
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/ogrinfo") {
                let file = NSTemporaryDirectory() + "fod-roundtrip-\(UUID().uuidString).geojson"
                try Data(reply.body).write(to: URL(fileURLWithPath: file))
                defer { try? FileManager.default.removeItem(atPath: file) }
                let (status, output) = try runToCompletion("/usr/bin/ogrinfo", ["-ro", "-al", "-so", file])
                #expect(status == 0 && output.contains("Feature Count: 3"), "\(output)")  // latest position, the track, Sydney
            }
            // The GeoJSON export imports back: the same fixes, the latest position not twice.
            let copy = try Self.newDevice(app, ann, name: "copy")
            let imported = try ImportTests.post(app, device: copy.id, token: copy.token, body: reply.body)
            #expect(imported.json["format"].string == "geojson")
            #expect(imported.json["accepted"].int == 6 && imported.json["duplicates"].int == 1, "\(imported.text)")
            #expect(imported.json["rejected"].int == 0, "\(imported.text)")
        }
    }

    @Test func gpxCarriesSpeedCourseAccuracyAndBatteryAndReadsThemBack() throws {
        try TestApp.with { app in
            let (ann, count) = try Self.deviceWithEveryField(app)
            let gpx = try Self.export(app, "/v1/devices/\(ann.deviceID)/export.gpx", token: ann.user.token)
            #expect(gpx.text.contains(#"xmlns:fod="urn:find-our-devices:gpx:1""#))
            #expect(gpx.text.contains("<extensions><fod:speed>0.1</fod:speed><fod:course>359.9</fod:course><fod:accuracy>3.25</fod:accuracy><fod:battery>55.5</fod:battery></extensions>"))
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint") {
                let file = NSTemporaryDirectory() + "fod-roundtrip-\(UUID().uuidString).gpx"
                try Data(gpx.body).write(to: URL(fileURLWithPath: file))
                defer { try? FileManager.default.removeItem(atPath: file) }
                let (status, output) = try runToCompletion("/usr/bin/xmllint", ["--noout", file])
                #expect(status == 0, "\(output)")
            }
            let copy = try Self.newDevice(app, ann, name: "from-gpx")
            let imported = try ImportTests.post(app, device: copy.id, token: copy.token, body: gpx.body)
            #expect(imported.json["format"].string == "gpx" && imported.json["accepted"].int == count, "\(imported.text)")
            let original = try Self.export(app, "/v1/devices/\(ann.deviceID)/export.ndjson", token: ann.user.token).body.split(separator: 10).map { TestJSON(Array($0)) }
            let back = try Self.export(app, "/v1/devices/\(copy.id)/export.ndjson", token: ann.user.token).body.split(separator: 10).map { TestJSON(Array($0)) }
            try #require(back.count == original.count)
            for (a, b) in zip(original, back) {
                #expect(a["timestamp"].string == b["timestamp"].string)
                for key in ["speed", "heading", "accuracy", "battery"] {
                    #expect(abs((a[key].double ?? -1) - (b[key].double ?? -1)) < 1e-7, "\(key): \(a[key].double ?? -1) vs \(b[key].double ?? -1)")
                }
                #expect(abs((a["altitude"].double ?? -1) - (b["altitude"].double ?? -1)) <= 0.005)
            }
        }
    }

    @Test func aGroupsNDJSONHoldsWhatTheCallerMayReadWithEachDevice() throws {
        try TestApp.with { app in
            let w = try ExportAPITests.world(app)
            let reply = try Self.export(app, "/v1/groups/\(w.groupID)/export.ndjson", token: w.users["ann"]!.token)
            let lines = reply.body.split(separator: 10).map { TestJSON(Array($0)) }
            let devices = lines.compactMap { $0["deviceId"].string }
            #expect(lines.count == 20 && devices.count == 20)  // Ann's and Bob's ten each; never Cat's or Fay's
            #expect(Set(devices) == [w.devices["A1"]!.id, w.devices["B1"]!.id])
            #expect(devices == devices.sorted(), "device after device")
            let times = lines.compactMap { $0["timestamp"].string }
            for device in Set(devices) {
                let own = zip(devices, times).filter { $0.0 == device }.map(\.1)
                #expect(own == own.sorted(), "oldest first")
            }
            for user in ["fay", "dan", "eve"] {
                #expect(try app.client().get("/v1/groups/\(w.groupID)/export.ndjson", token: w.users[user]!.token).status == 404)
            }
            #expect(try app.client().get("/v1/devices/\(w.devices["C1"]!.id)/export.ndjson", token: w.users["ann"]!.token).status == 404)
        }
    }
}
