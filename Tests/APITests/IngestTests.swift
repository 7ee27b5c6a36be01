import Foundation
import Testing
import HTTPTestSupport
import Tracking

/// A user with one device, ready to post fixes.
struct DeviceFixture {
    let user: (id: String, token: String)
    let deviceID: String
    let deviceToken: String

    init(app: TestApp, name: String = "owner") throws {
        user = try app.signUp(name + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        let reply = try app.client().request("POST", "/v1/devices", token: user.token, json: #"{"name":"phone"}"#)
        deviceID = reply.json["device"]["id"].string ?? ""
        deviceToken = reply.json["deviceToken"].string ?? ""
    }

    @discardableResult
    func post(_ app: TestApp, _ json: String, token: String? = nil) throws -> HTTPTestClient.Reply {
        try app.client().request("POST", "/v1/devices/\(deviceID)/locations", token: token ?? deviceToken, json: json)
    }

    func history(_ app: TestApp, query: String = "", token: String? = nil) throws -> HTTPTestClient.Reply {
        try app.client().get("/v1/devices/\(deviceID)/locations\(query.isEmpty ? "" : "?" + query)", token: token ?? user.token)
    }
}

@Suite struct IngestTests {
    struct Invalid: Sendable, CustomTestStringConvertible {
        let body: String, code: String?, message: String
        var testDescription: String { body }
    }

    @Test(arguments: [
        Invalid(body: #"{"location":[354.473,-1.94617]}"#, code: nil, message: "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617"),
        Invalid(body: #"{"location":[10,95]}"#, code: nil, message: "longitude/latitude is out of bounds, lng: 10 lat: 95"),
        Invalid(body: #"{"location":["10",5]}"#, code: nil, message: "Point must only contain numeric elements"),
        Invalid(body: #"{"location":[10]}"#, code: nil, message: ""),
        Invalid(body: #"{"location":"10,5"}"#, code: nil, message: ""),
        Invalid(body: #"{"location":[10,5],"timestamp":"yesterday"}"#, code: nil, message: ""),
        Invalid(body: #"{"location":[10,5],"timestamp":"2099-01-01T00:00:00Z"}"#, code: nil, message: "future"),
        Invalid(body: #"{"location":[10,5],"accuracy":-3}"#, code: nil, message: "accuracy"),
        Invalid(body: #"{"location":[10,5],"heading":400}"#, code: nil, message: "heading"),
        Invalid(body: #"{"location":[10,5],"battery":101}"#, code: nil, message: "battery"),
        Invalid(body: #"{"location":[10,5],"id":""}"#, code: nil, message: "id"),
        Invalid(body: #"{"nothing":1}"#, code: nil, message: ""),
        Invalid(body: #"{"locations":[]}"#, code: nil, message: ""),
        Invalid(body: #"[1,2]"#, code: nil, message: ""),
    ])
    func invalidSingleFixIs400WithTheErrorShape(_ c: Invalid) throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let reply = try device.post(app, c.body)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.errorCode != nil)
            let message = reply.json["error"]["message"].string ?? ""
            #expect(c.message.isEmpty || message.contains(c.message), "\(message)")
            #expect(try device.history(app).json["locations"].count == 0)
        }
    }

    @Test func boundaryCoordinatesAreAccepted() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let reply = try device.post(app, #"{"locations":[{"location":[180,90],"timestamp":1700000000000},{"location":[-180,-90],"timestamp":1700000001000},{"location":[0,0,12.5],"timestamp":1700000002}]}"#)
            #expect(reply.json["accepted"].int == 3)
            #expect(reply.json["rejected"].count == 0)
        }
    }

    @Test func mixedBatchStoresTheGoodFixesAndNamesTheBadOnes() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let reply = try device.post(app, """
                {"locations":[
                  {"location":[13.4,52.5],"timestamp":"2026-11-30T08:00:00.000Z","id":"a"},
                  {"location":[200,52.5],"timestamp":"2026-11-30T08:01:00.000Z","id":"b"},
                  {"location":[13.5,52.6],"timestamp":"2026-11-30T08:02:00.000Z","id":"c","accuracy":5,"altitude":40,"speed":1.5,"heading":90,"battery":77},
                  {"location":[13.5,"x"],"id":"d"}
                ]}
                """)
            #expect(reply.status == 200)
            #expect(reply.json["accepted"].int == 2)
            #expect(reply.json["duplicates"].int == 0)
            let rejected = reply.json["rejected"].array
            #expect(rejected.map { $0["index"].int } == [1, 3])
            #expect(rejected[0]["error"]["message"].string == "longitude/latitude is out of bounds, lng: 200 lat: 52.5")
            #expect(rejected[1]["error"]["message"].string == "Point must only contain numeric elements")
            let history = try device.history(app).json["locations"].array
            #expect(history.map { $0["id"].string } == ["a", "c"])
            #expect(history[1]["location"][0].double == 13.5 && history[1]["battery"].double == 77 && history[1]["heading"].double == 90)
            #expect(history[0]["timestamp"].string == "2026-11-30T08:00:00.000Z")
        }
    }

    @Test func duplicatesAcrossBatchesAreCountedNotStored() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let batch = #"{"locations":[{"location":[1,1],"timestamp":1000000000000,"id":"x1"},{"location":[1,2],"timestamp":1000000001000},{"location":[1,3],"timestamp":1000000002000,"id":"x3"}]}"#
            #expect(try device.post(app, batch).json["accepted"].int == 3)
            let again = try device.post(app, batch)
            #expect(again.json["accepted"].int == 0 && again.json["duplicates"].int == 3)
            // Same id with another time is a duplicate; no id with a stored fix's time is too.
            let more = try device.post(app, #"{"locations":[{"location":[5,5],"timestamp":1000000009000,"id":"x1"},{"location":[6,6],"timestamp":1000000002000},{"location":[7,7],"timestamp":1000000002000,"id":"new"}]}"#)
            #expect(more.json["accepted"].int == 1 && more.json["duplicates"].int == 2)
            // Within one batch, the first wins.
            let inner = try device.post(app, #"{"locations":[{"location":[8,8],"timestamp":1000000010000,"id":"y"},{"location":[9,9],"timestamp":1000000011000,"id":"y"},{"location":[9,9],"timestamp":1000000010000}]}"#)
            #expect(inner.json["accepted"].int == 1 && inner.json["duplicates"].int == 2)
            #expect(try device.history(app).json["locations"].count == 5)
        }
    }

    @Test func concurrentResendsAreStoredOnce() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let fixes = (0..<200).map { #"{"location":[\#(Double($0) / 100),1],"timestamp":\#(1_600_000_000_000 + $0 * 1000),"id":"c\#($0)"}"# }
            let body = #"{"locations":[\#(fixes.joined(separator: ","))]}"#
            let accepted = Counter()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                if let reply = try? device.post(app, body) { accepted.add(reply.json["accepted"].int ?? -1000) }
            }
            #expect(accepted.value == 200)
            #expect(try device.history(app).json["locations"].count == 200)
        }
    }

    @Test func latestLocationIsTheNewestByTimestampNotTheLastToArrive() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            try device.post(app, #"{"location":[10,10],"timestamp":"2026-11-30T10:00:00Z"}"#)
            try device.post(app, #"{"location":[20,20],"timestamp":"2026-11-30T09:00:00Z"}"#)  // late backfill
            let devices = try app.client().get("/v1/devices", token: device.user.token).json["devices"]
            #expect(devices[0]["lastLocation"]["location"][0].double == 10)
            #expect(devices[0]["lastLocation"]["timestamp"].string == "2026-11-30T10:00:00.000Z")
            let history = try device.history(app).json["locations"].array
            #expect(history.map { $0["location"][0].double } == [20, 10])  // oldest first
        }
    }

    @Test func onlyTheDeviceItselfWritesItsLocations() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let other = try DeviceFixture(app: app, name: "other")
            let fix = #"{"location":[1,1]}"#
            let byOwner = try device.post(app, fix, token: device.user.token)
            #expect(byOwner.status == 403)
            #expect(byOwner.json["error"]["message"].string == "cannot write partition device=\(device.deviceID)")
            let byOtherDevice = try device.post(app, fix, token: other.deviceToken)
            #expect(byOtherDevice.status == 403)
            #expect(try device.post(app, fix, token: "fodd_nonsense").status == 401)
            let rotated = try app.client().request("POST", "/v1/devices/\(device.deviceID)/token", headers: ["Authorization": "Bearer \(device.user.token)"])
            #expect(try device.post(app, fix).status == 401)
            #expect(try device.post(app, fix, token: rotated.json["deviceToken"].string).status == 200)
            #expect(try device.history(app, token: device.deviceToken).status == 401)
            #expect(try device.history(app, token: rotated.json["deviceToken"].string).status == 403)
        }
    }

    @Test func historyPagesWithAKeysetCursorAndTimeFilters() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let base: Int64 = 1_700_000_000_000
            for chunk in 0..<5 {
                let fixes = (0..<500).map { i in
                    #"{"location":[\#(Double(i % 360) - 180),\#(Double(chunk))],"timestamp":\#(base + Int64((chunk * 500 + i) * 1000))}"#
                }
                #expect(try device.post(app, #"{"locations":[\#(fixes.joined(separator: ","))]}"#).json["accepted"].int == 500)
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let reply = try device.history(app, query: "limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(reply.status == 200)
                seen += reply.json["locations"].array.compactMap { $0["timestamp"].string }
                cursor = reply.json["nextCursor"].string
            } while cursor != nil
            #expect(seen.count == 2500)
            #expect(seen == seen.sorted() && Set(seen).count == 2500)
            // base is 2023-11-14T22:13:20Z; fixes are 1 s apart; both bounds are inclusive.
            let instant = try device.history(app, query: "from=\(base + 100_000)&to=2023-11-14T22:15:00.000Z")
            #expect(instant.json["locations"].array.compactMap { $0["timestamp"].string } == ["2023-11-14T22:15:00.000Z"])
            let minute = try device.history(app, query: "from=2023-11-14T22:15:00Z&to=2023-11-14T22:15:59.999Z")
            #expect(minute.json["locations"].count == 60)
            #expect(try device.history(app, query: "limit=0").status == 400)
            #expect(try device.history(app, query: "limit=10001").status == 400)
            #expect(try device.history(app, query: "cursor=%%%").status == 400)
            #expect(try device.history(app, query: "from=soon").status == 400)
        }
    }

    @Test func ownerDeletesHistoryBeforeATime() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            #expect(try device.post(app, #"{"locations":[{"location":[1,1],"timestamp":1000000000000},{"location":[2,2],"timestamp":1700000000000},{"location":[3,3],"timestamp":1700000001000}]}"#).json["accepted"].int == 3)
            let deleted = try app.client().request("DELETE", "/v1/devices/\(device.deviceID)/locations?before=1700000000500", headers: ["Authorization": "Bearer \(device.user.token)"])
            #expect(deleted.status == 200 && deleted.json["deleted"].int == 2)
            #expect(try device.history(app).json["locations"].count == 1)
            #expect(try app.client().request("DELETE", "/v1/devices/\(device.deviceID)/locations", headers: ["Authorization": "Bearer \(device.user.token)"]).status == 400)
        }
    }

    @Test func retentionPurgesOlderHistoryAndKeepsLatestConsistent() async throws {
        let app = try TestApp()
        defer { app.close() }
        let device = try DeviceFixture(app: app)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try device.post(app, #"{"locations":[{"location":[1,1],"timestamp":\#(now - 40 * 86_400_000)},{"location":[2,2],"timestamp":\#(now - 20 * 86_400_000)},{"location":[3,3],"timestamp":\#(now - 86_400_000)}]}"#)
        let job = RetentionJob(store: app.store, retainDays: 30, batch: 1)
        #expect(try await job.runOnce(now: now) == 1)
        #expect(try device.history(app).json["locations"].count == 2)
        let all = RetentionJob(store: app.store, retainDays: 0)
        #expect(try await all.runOnce(now: now) == 2)
        let devices = try app.client().get("/v1/devices", token: device.user.token).json["devices"]
        #expect(devices[0]["lastLocation"].isNull)
    }

    @Test func sharingOffHidesHistoryFromMembersButNotFromTheOwner() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let b1 = w.devices["B1"]!
            let client = try app.client()
            #expect(try client.request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token, json: #"{"location":[2.35,48.85]}"#).status == 200)
            #expect(try client.get("/v1/devices/\(b1.id)/locations", token: w.users["ann"]!.token).json["locations"].count == 1)
            let group = try client.get("/v1/groups/\(w.groupID)", token: w.users["ann"]!.token).json["members"].array
            #expect(group.first { $0["deviceId"].string == b1.id }?["location"]["coordinates"][0].double == 2.35)
            #expect(try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#).status == 200)
            #expect(try client.get("/v1/devices/\(b1.id)/locations", token: w.users["ann"]!.token).status == 404)
            let hidden = try client.get("/v1/groups/\(w.groupID)", token: w.users["ann"]!.token).json["members"].array
            #expect(hidden.first { $0["deviceId"].string == b1.id }?["location"].isNull == true)
            #expect(try client.get("/v1/devices/\(b1.id)/locations", token: w.users["bob"]!.token).json["locations"].count == 1)
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ n: Int) { lock.lock(); total += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return total }
}
