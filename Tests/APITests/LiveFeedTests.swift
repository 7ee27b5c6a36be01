import Foundation
import Testing
import HTTPTestSupport
import API

@Suite struct LiveFeedTests {
    static func open(_ app: TestApp, _ w: PermissionWorld, as user: String = "ann", lastEventID: String? = nil,
                     viaQuery: Bool = false) throws -> (HTTPTestClient.Reply, SSEReader) {
        let client = try app.client()
        let token = w.users[user]!.token
        var headers: [String: String] = viaQuery ? [:] : ["Authorization": "Bearer \(token)"]
        if let lastEventID { headers["Last-Event-ID"] = lastEventID }
        let path = "/v1/groups/\(w.groupID)/live" + (viaQuery ? "?token=\(token)" : "")
        let head = try client.openStream(path, headers: headers)
        return (head, SSEReader(client: client))
    }

    /// Posts `fixes` one second apart from `ts`, in batches of 100 (the most one append turns
    /// into one event per fix; larger appends log a summary).
    static func post(_ app: TestApp, _ w: PermissionWorld, device: String, _ fixes: [(Double, Double)], from ts: Int64) throws {
        let d = w.devices[device]!
        let body = fixes.enumerated().map { #"{"location":[\#($1.0),\#($1.1)],"timestamp":\#(ts + Int64($0) * 1000)}"# }
        for start in stride(from: 0, to: body.count, by: 100) {
            let batch = body[start..<min(start + 100, body.count)]
            let reply = try app.client().request("POST", "/v1/devices/\(d.id)/locations", token: d.token, json: #"{"locations":[\#(batch.joined(separator: ","))]}"#)
            guard reply.status == 200 else { throw TestFailure("post failed: \(reply.text)") }
        }
    }

    @Test func snapshotFirstThenLocationsInCommitOrder() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let (head, events) = try Self.open(app, w, viaQuery: true)
            #expect(head.status == 200 && head.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            let snapshot = try #require(try events.nextEvent())
            #expect(snapshot.name == "snapshot" && snapshot.json["id"].string == w.groupID)
            #expect(snapshot.json["members"].count == 3)
            let start = w.sharedSince
            try Self.post(app, w, device: "B1", (0..<20).map { (Double($0) / 10, 1.0) }, from: start)
            var ids: [Int] = []
            for i in 0..<20 {
                let e = try #require(try events.nextEvent())
                #expect(e.name == "location")
                #expect(e.json["deviceId"].string == w.devices["B1"]!.id && e.json["location"][0].double == Double(i) / 10)
                #expect(e.json["latest"].bool == (i == 19))
                ids.append(Int(e.id ?? "") ?? -1)
            }
            #expect(ids == ids.sorted() && Set(ids).count == 20 && ids.first! > Int(snapshot.id ?? "0")!)
        }
    }

    @Test func reconnectWithLastEventIDGetsExactlyTheMissedEvents() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let (_, first) = try Self.open(app, w)
            let snapshot = try #require(try first.nextEvent())
            let start = w.sharedSince
            try Self.post(app, w, device: "A1", [(0, 0)], from: start)
            let seen = try #require(try first.nextEvent())
            #expect(seen.name == "location")
            // Disconnected: 500 events happen meanwhile.
            try Self.post(app, w, device: "B1", (0..<500).map { (Double($0) / 1000, 2.0) }, from: start + 10_000)
            let (_, resumed) = try Self.open(app, w, lastEventID: seen.id)
            var got: [Int] = []
            for _ in 0..<500 {
                let e = try #require(try resumed.nextEvent())
                #expect(e.name == "location")
                got.append(Int(e.id ?? "") ?? -1)
            }
            let firstMissed = Int(seen.id!)! + 1
            #expect(got == Array(firstMissed..<(firstMissed + 500)))
            // Then live events continue on the resumed stream, none twice.
            try Self.post(app, w, device: "A1", [(5, 5)], from: start + 900_000)
            let live = try #require(try resumed.nextEvent())
            #expect(Int(live.id ?? "") == firstMissed + 500 && live.json["location"][0].double == 5)
            _ = snapshot
        }
    }

    @Test func tooOldLastEventIDGetsAFreshSnapshot() async throws {
        let app = try TestApp()
        defer { app.close() }
        let w = try PermissionWorld(app: app)
        let start = w.sharedSince
        try Self.post(app, w, device: "B1", (0..<5).map { (Double($0), 0) }, from: start)
        _ = try await app.store.pruneEvents(before: Int64(Date().timeIntervalSince1970 * 1000) + 1000)
        let (_, events) = try Self.open(app, w, lastEventID: "1")
        let e = try #require(try events.nextEvent())
        #expect(e.name == "snapshot")
        #expect(e.json["members"].array.first { $0["deviceId"].string == w.devices["B1"]!.id }?["location"]["coordinates"][0].double == 4)
    }

    @Test func sharingOffStopsThatMembersLocationsAtOnce() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let (_, events) = try Self.open(app, w)
            _ = try events.nextEvent()
            let start = w.sharedSince
            #expect(try app.client().request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#).status == 200)
            try Self.post(app, w, device: "B1", [(1, 1)], from: start)  // hidden
            try Self.post(app, w, device: "A1", [(2, 2)], from: start)  // visible
            let sharing = try #require(try events.nextEvent())
            #expect(sharing.name == "membership" && sharing.json["type"].string == "sharing" && sharing.json["shareLocation"].bool == false)
            let next = try #require(try events.nextEvent())
            #expect(next.name == "location" && next.json["deviceId"].string == w.devices["A1"]!.id)
            // The polling view hides them too.
            let changes = try app.client().get("/v1/groups/\(w.groupID)/changes?since=0", token: w.users["ann"]!.token)
            let locations = changes.json["events"].array.filter { $0["type"].string == "location" }
            #expect(!locations.contains { $0["data"]["deviceId"].string == w.devices["B1"]!.id })
            #expect(locations.contains { $0["data"]["deviceId"].string == w.devices["A1"]!.id })
        }
    }

    @Test func removedMembersStreamEndsWithAFinalEvent() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let (_, bob) = try Self.open(app, w, as: "bob")
            _ = try bob.nextEvent()
            #expect(try app.client().request("DELETE", "/v1/groups/\(w.groupID)/members/\(w.users["bob"]!.id)",
                                             headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"]).status == 204)
            let last = try #require(try bob.nextEvent())
            #expect(last.name == "membership" && last.json["type"].string == "removed")
            #expect(try bob.nextEvent() == nil && bob.ended)
        }
    }

    @Test func groupDeletionEndsEveryStream() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let (_, cat) = try Self.open(app, w, as: "cat")
            _ = try cat.nextEvent()
            #expect(try app.client().request("DELETE", "/v1/groups/\(w.groupID)", headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"]).status == 204)
            #expect(try cat.nextEvent()?.json["type"].string == "deleted")
            #expect(try cat.nextEvent() == nil)
        }
    }

    @Test func nonMembersCannotSubscribe() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            for user in ["fay", "dan", "eve"] {
                let reply = try app.client().get("/v1/groups/\(w.groupID)/live", token: w.users[user]!.token)
                #expect(reply.status == 404)
            }
            #expect(try app.client().get("/v1/groups/\(w.groupID)/live", token: w.devices["B1"]!.token).status == 403)
            #expect(try app.client().get("/v1/groups/\(w.groupID)/live").status == 401)
            #expect(try app.client().get("/v1/groups/\(w.groupID)/live?token=fodu_bogus").status == 401)
            #expect(try app.client().get("/v1/groups/\(w.groupID)/changes", token: w.users["fay"]!.token).status == 404)
        }
    }

    @Test func heartbeatsArrive() throws {
        var live = LiveHub.Configuration()
        live.heartbeatSeconds = 0.1
        try TestApp.with(live: live) { app in
            let w = try PermissionWorld(app: app)
            let (_, events) = try Self.open(app, w)
            _ = try events.nextEvent()
            let beat = try #require(try events.next())
            #expect(beat.isComment)
        }
    }

    @Test func changesPagesThroughTheLog() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let start = w.sharedSince
            try Self.post(app, w, device: "A1", (0..<30).map { (Double($0), 0) }, from: start)
            var since = 0, locations = 0, pages = 0
            while true {
                let page = try app.client().get("/v1/groups/\(w.groupID)/changes?since=\(since)&limit=7", token: w.users["bob"]!.token)
                let events = page.json["events"].array
                if events.isEmpty { break }
                pages += 1
                locations += events.filter { $0["type"].string == "location" }.count
                #expect(events.map { $0["id"].int ?? 0 } == events.map { $0["id"].int ?? 0 }.sorted())
                since = page.json["last"].int ?? 0
            }
            #expect(locations == 30 && pages >= 5)
        }
    }
}

@Suite struct LiveFeedBacklogTests {
    @Test func aBacklogLargerThanTheStreamBufferGetsASnapshotInsteadOfLosingEvents() throws {
        var live = LiveHub.Configuration()
        live.streamCapacity = 16 * 1024
        try TestApp.with(live: live) { app in
            let w = try PermissionWorld(app: app)
            let start = w.sharedSince
            try LiveFeedTests.post(app, w, device: "B1", (0..<400).map { (Double($0) / 1000, 1.0) }, from: start)
            let (_, events) = try LiveFeedTests.open(app, w, lastEventID: "1")
            let first = try #require(try events.nextEvent())
            #expect(first.name == "snapshot")
            #expect(first.json["members"].array.first { $0["deviceId"].string == w.devices["B1"]!.id }?["location"]["coordinates"][0].double == 0.399)
            // Live events continue after the snapshot's id.
            try LiveFeedTests.post(app, w, device: "A1", [(7, 7)], from: start + 900_000)
            let next = try #require(try events.nextEvent())
            #expect(next.name == "location" && Int(next.id ?? "") == Int(first.id ?? "")! + 1)
        }
    }
}

@Suite struct ChangesPagingTests {
    @Test func hiddenEventsNeverYieldAnEmptyPageBeforeTheEnd() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let start = w.sharedSince
            // Bob's 30 fixes, then Bob stops sharing (they become hidden), then Ann's one fix.
            try LiveFeedTests.post(app, w, device: "B1", (0..<30).map { (Double($0), 0) }, from: start)
            _ = try app.client().request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#)
            try LiveFeedTests.post(app, w, device: "A1", [(9, 9)], from: start)
            var since = 0, seenAnn = false
            while true {
                let page = try app.client().get("/v1/groups/\(w.groupID)/changes?since=\(since)&limit=5", token: w.users["ann"]!.token)
                let events = page.json["events"].array
                if events.isEmpty { break }
                seenAnn = seenAnn || events.contains { $0["data"]["deviceId"].string == w.devices["A1"]!.id && $0["type"].string == "location" }
                since = page.json["last"].int ?? 0
            }
            #expect(seenAnn)
        }
    }
}
