import Foundation
import Testing
import HTTPTestSupport
import API
import Tracking
import TrackingTestSupport

/// Every leak class of the hardening issue, each pinned by a test that fails without its fix.
@Suite struct LeakTests {
    enum Deletion: String, CaseIterable, Sendable { case ownerRange, device, account, retention }

    /// Bob's B1 posts five fixes a second apart; deleting them (all, or the first two for a
    /// range) leaves no trace of them in `/changes` or a `Last-Event-ID` replay.
    @Test(arguments: Deletion.allCases)
    func deletedFixesAreNeverServedAgain(_ deletion: Deletion) async throws {
        let app = try TestApp()
        defer { app.close() }
        let w = try PermissionWorld(app: app)
        let start = w.sharedSince
        try LiveFeedTests.post(app, w, device: "B1", (0..<5).map { (Double($0), 1.0) }, from: start)
        #expect(try Self.bobLocations(app, w).count == 5)
        let bob = w.users["bob"]!
        let b1 = w.devices["B1"]!.id
        let survivors: [Double]
        switch deletion {
        case .ownerRange:
            let reply = try app.client().request("DELETE", "/v1/devices/\(b1)/locations?before=\(start + 2_000)",
                                                 headers: ["Authorization": "Bearer \(bob.token)"])
            #expect(reply.status == 200 && reply.json["deleted"].int == 2)
            survivors = [2, 3, 4]
        case .device:
            #expect(try app.client().request("DELETE", "/v1/devices/\(b1)", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
            survivors = []
        case .account:
            #expect(try app.client().request("DELETE", "/v1/me", headers: ["Authorization": "Bearer \(bob.token)"]).status == 204)
            survivors = []
        case .retention:
            let purged = try await RetentionJob(store: app.store, retainDays: 1).runOnce(now: start + 2_000 + 86_400_000)
            #expect(purged >= 2)
            survivors = [2, 3, 4]
        }
        #expect(try Self.bobLocations(app, w).map { $0["location"][0].double ?? -1 } == survivors)
        // A replay from the start of the log, up to a sentinel fix of Ann's.
        let (_, replay) = try LiveFeedTests.open(app, w, lastEventID: "0")
        try LiveFeedTests.post(app, w, device: "A1", [(9, 9)], from: start + 60_000)
        var replayed: [Double] = []
        while let e = try replay.nextEvent() {
            if e.name == "location" && e.json["deviceId"].string == w.devices["A1"]!.id { break }
            if e.name == "location" { replayed.append(e.json["location"][0].double ?? -1) }
            #expect(e.name != "redacted")
        }
        #expect(replayed == survivors)
    }

    static func bobLocations(_ app: TestApp, _ w: PermissionWorld) throws -> [TestJSON] {
        let reply = try app.client().get("/v1/groups/\(w.groupID)/changes?since=0", token: w.users["ann"]!.token)
        #expect(reply.status == 200)
        return reply.json["events"].array
            .filter { $0["type"].string == "location" && $0["data"]["deviceId"].string == w.devices["B1"]!.id }
            .map { $0["data"] }
    }

    /// Group A's `$near` and `$geoWithin` answers and explains are the same before and after an
    /// outsider's group stores thousands of fixes right at the query's centre.
    @Test func explainDoesNotDependOnOtherGroupsData() async throws {
        let app = try TestApp()
        defer { app.close() }
        do {
            let w = try PermissionWorld(app: app)
            try LiveFeedTests.post(app, w, device: "B1", (0..<50).map { (2.30 + Double($0) / 1000, 48.80) }, from: w.sharedSince)
            let queries = [
                #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[2.35,48.85]}}}},"scope":"history","limit":5,"explain":true}"#,
                #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[2.35,48.85]},"$maxDistance":20000}}},"scope":"history","limit":100,"explain":true}"#,
                #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.01]}}},"scope":"history","limit":10,"explain":true}"#,
            ]
            func answers() throws -> [String] {
                try queries.map { body in
                    let reply = try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.users["ann"]!.token, json: body)
                    #expect(reply.status == 200)
                    return reply.text
                }
            }
            let before = try answers()
            // Fay (an outsider) makes her own group and floods the centre with fixes.
            let fay = w.users["fay"]!, f1 = w.devices["F1"]!
            #expect(try app.client().request("POST", "/v1/groups", token: fay.token, json: #"{"name":"B","deviceId":"\#(f1.id)"}"#).status == 201)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for batch in 0..<3 {
                let fixes = (0..<2_000).map { k in
                    #"{"location":[\#(2.35 + Double(k % 50) / 10_000),\#(48.85 + Double(k / 50) / 10_000)],"timestamp":\#(now + Int64(batch * 2_000 + k) + 1_000)}"#
                }
                #expect(try app.client().request("POST", "/v1/devices/\(f1.id)/locations", token: f1.token,
                                                 json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#).json["accepted"].int == 2_000)
            }
            #expect(try answers() == before)
            // SQLite moves fixes into its cell index later (a merge): the answers must not change
            // when it does. PostgreSQL indexes each fix in its append's transaction.
            try await app.storage.sqlite?.drainIndex()
            #expect(try answers() == before)
        }
    }

    enum Change: String, CaseIterable, Sendable { case sharingOff, leave, removal, groupDeletion }

    /// An export that is under way stops a member's rows the moment they stop sharing, leave or
    /// are removed, and stops altogether when the group is deleted.
    @Test(arguments: Change.allCases)
    func exportsReCheckVisibilityAsTheyGo(_ change: Change) async throws {
        let app = try TestApp()
        defer { app.close() }
        let w = try PermissionWorld(app: app)
        try LiveFeedTests.post(app, w, device: "A1", (0..<30).map { (Double($0) / 100, 1.0) }, from: w.sharedSince)
        try LiveFeedTests.post(app, w, device: "B1", (0..<30).map { (Double($0) / 100, 2.0) }, from: w.sharedSince)
        let ann = Credential.user(userID: UserID(w.users["ann"]!.id))
        let exports = app.services.exports
        let subjects = try exports.groupSubjects(groupID: GroupID(w.groupID), credential: ann)
        #expect(subjects.count == 2)
        let cursor = exports.rows(of: subjects, from: nil, to: nil, scope: .group(GroupID(w.groupID)), credential: ann, pageSize: 10)
        let first = try #require(try cursor.nextPage())
        #expect(first.rows.count == 10)
        let bob = w.users["bob"]!
        switch change {
        case .sharingOff: _ = try await app.services.groups.setSharing(groupID: GroupID(w.groupID), userID: UserID(bob.id), share: false)
        case .leave: try await app.services.groups.removeMember(groupID: GroupID(w.groupID), memberID: UserID(bob.id), by: UserID(bob.id))
        case .removal: try await app.services.groups.removeMember(groupID: GroupID(w.groupID), memberID: UserID(bob.id), by: UserID(w.users["ann"]!.id))
        case .groupDeletion: try await app.services.groups.delete(groupID: GroupID(w.groupID), by: UserID(w.users["ann"]!.id))
        }
        var rest: [DeviceID: Int] = [:]
        while let page = try cursor.nextPage() { rest[page.subject.deviceID, default: 0] += page.rows.count }
        #expect(rest[DeviceID(w.devices["B1"]!.id)] == nil)
        if change == .groupDeletion {
            #expect(rest.isEmpty && cursor.revoked)
        } else {
            // Ann's own rows go on (the first page was one device's).
            let annRows = rest[DeviceID(w.devices["A1"]!.id), default: 0] + (first.subject.deviceID == DeviceID(w.devices["A1"]!.id) ? 10 : 0)
            #expect(annRows == 30)
        }
    }

    /// A sharing change committed between a stream's registration and its starting snapshot is
    /// never lost: Bob's fixes after it do not reach the new stream.
    @Test func aSharingChangeDuringSubscriptionIsNotLost() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let bob = w.users["bob"]!
            let port = app.port
            let groupID = w.groupID
            app.services.live.afterRegistrationHook.withLock { hook in
                hook = {
                    _ = try? HTTPTestClient(port: port).request("PUT", "/v1/groups/\(groupID)/sharing", token: bob.token,
                                                                 json: #"{"shareLocation":false}"#)
                }
            }
            let (_, events) = try LiveFeedTests.open(app, w)
            try LiveFeedTests.post(app, w, device: "B1", [(7, 7)], from: w.sharedSince)
            try LiveFeedTests.post(app, w, device: "A1", [(1, 1)], from: w.sharedSince + 1_000)
            var locations: [String] = []
            while let e = try events.nextEvent() {
                if e.name == "location" { locations.append(e.json["deviceId"].string ?? "") }
                if e.name == "location" && e.json["deviceId"].string == w.devices["A1"]!.id { break }
            }
            #expect(locations == [w.devices["A1"]!.id])
        }
    }

    /// A change made while the group has no open stream is seen by the next one.
    @Test func aSharingChangeWithNoOpenStreamIsNotLost() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            do {
                let (_, first) = try LiveFeedTests.open(app, w)
                _ = try first.nextEvent()
            }
            #expect(try app.client().request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token,
                                             json: #"{"shareLocation":false}"#).status == 200)
            let (_, events) = try LiveFeedTests.open(app, w)
            #expect(try events.nextEvent()?.name == "snapshot")
            try LiveFeedTests.post(app, w, device: "B1", [(7, 7)], from: w.sharedSince)
            try LiveFeedTests.post(app, w, device: "A1", [(1, 1)], from: w.sharedSince + 1_000)
            let next = try #require(try events.nextEvent())
            #expect(next.name == "location" && next.json["deviceId"].string == w.devices["A1"]!.id)
        }
    }

    /// A replay stops at the reader's own removal, even when it was committed after the
    /// reader's membership was checked.
    @Test func aReplayStopsAtTheReadersOwnRemoval() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let last = try app.client().get("/v1/groups/\(w.groupID)/changes?since=0", token: w.users["ann"]!.token).json["last"].int ?? 0
            let port = app.port, groupID = w.groupID
            let ann = w.users["ann"]!, bob = w.users["bob"]!
            app.services.live.afterSnapshotHook.withLock { hook in
                hook = {
                    _ = try? HTTPTestClient(port: port).request("DELETE", "/v1/groups/\(groupID)/members/\(bob.id)",
                                                                 headers: ["Authorization": "Bearer \(ann.token)"])
                }
            }
            let (head, events) = try LiveFeedTests.open(app, w, as: "bob", lastEventID: String(last))
            #expect(head.status == 200)
            let removed = try #require(try events.nextEvent())
            #expect(removed.name == "membership" && removed.json["type"].string == "removed" && removed.json["userId"].string == bob.id)
            #expect(try events.nextEvent() == nil)
        }
    }

    /// A 10,000-fix batch of a device in four groups writes two events per group (a summary and
    /// the new latest position), not 40,000.
    @Test func eventFanOutPerRequestIsBounded() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let bob = w.users["bob"]!, b1 = w.devices["B1"]!
            var groups = [w.groupID]
            for k in 0..<3 {
                let reply = try app.client().request("POST", "/v1/groups", token: bob.token, json: #"{"name":"extra \#(k)","deviceId":"\#(b1.id)"}"#)
                groups.append(reply.json["id"].string ?? "")
            }
            let heads = try groups.map { g in try app.client().get("/v1/groups/\(g)/changes?since=0", token: bob.token).json["last"].int ?? 0 }
            let from = Int64(Date().timeIntervalSince1970 * 1000) + 1_000  // after every group's joining
            let fixes = (0..<10_000).map { #"{"location":[\#(Double($0 % 100) / 100),1],"timestamp":\#(from + Int64($0))}"# }
            #expect(try app.client().request("POST", "/v1/devices/\(b1.id)/locations", token: b1.token,
                                             json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#).json["accepted"].int == 10_000)
            for (group, head) in zip(groups, heads) {
                let events = try app.client().get("/v1/groups/\(group)/changes?since=\(head)", token: bob.token).json["events"].array
                #expect(events.map { $0["type"].string ?? "" } == ["locations", "location"])
                #expect(events.first?["data"]["count"].int == 10_000)
                #expect(events.last?["data"]["latest"].bool == true && events.last?["data"]["location"][0].double == 0.99)
            }
        }
    }
}
