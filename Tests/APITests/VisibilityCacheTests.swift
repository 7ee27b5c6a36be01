import Foundation
import HTTPTestSupport
import Testing
import Tracking

/// History queries read a group's sharing devices from a cache (`SharingDevicesCache`): every
/// change of who sees whom must show in the very next query, whoever committed it. Each step
/// below first queries (filling the cache), then changes the visibility, then queries again.
@Suite struct VisibilityCacheTests {
    /// The longitudes of B1's fixes that Ann's history query returns.
    static func bobSeenByAnn(_ app: TestApp, _ w: PermissionWorld) throws -> [Double] {
        let body = #"{"filter":{"location":{"$geoWithin":{"$box":[[0,49],[40,51]]}}},"scope":"history","limit":1000}"#
        let reply = try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.users["ann"]!.token, json: body)
        guard reply.status == 200 else { throw TestFailure("query: \(reply.status) \(reply.text)") }
        return reply.json["results"].array.filter { $0["deviceId"].string == w.devices["B1"]!.id }.compactMap { $0["location"][0].double }.sorted()
    }

    /// Returns once the wall clock (milliseconds since 1970) is past `milliseconds`: a wait on
    /// the condition itself, a few milliseconds at most here.
    static func waitForClock(toPass milliseconds: Int64) {
        while Int64(Date().timeIntervalSince1970 * 1000) <= milliseconds { sched_yield() }
    }

    @Test func sharingOffOnAndRemovalShowInTheNextQuery() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let fixes = (0..<3).map { #"{"location":[\#(10 + $0),50],"timestamp":\#(w.sharedSince + 1 + Int64($0))}"# }
            let posted = try client.request("POST", "/v1/devices/\(w.devices["B1"]!.id)/locations", token: w.devices["B1"]!.token,
                                            json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#)
            #expect(posted.status == 200, "\(posted.status) \(posted.text)")
            #expect(try Self.bobSeenByAnn(app, w) == [10, 11, 12])
            #expect(try Self.bobSeenByAnn(app, w) == [10, 11, 12])

            // Turning sharing off ends the period at the server's clock, turning it on starts the
            // next one. The fixes are stamped up to 4 ms after the world was set up: a fast run
            // turned sharing off and on within that time, a fix fell between the two periods and
            // rightly stayed hidden. The clock passes the newest fix first.
            Self.waitForClock(toPass: w.sharedSince + 3)
            let off = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#)
            #expect(off.status == 200, "\(off.status) \(off.text)")
            #expect(try Self.bobSeenByAnn(app, w) == [])

            let on = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":true}"#)
            #expect(on.status == 200, "\(on.status) \(on.text)")
            #expect(try Self.bobSeenByAnn(app, w) == [10, 11, 12])

            let removed = try client.request("DELETE", "/v1/groups/\(w.groupID)/members/\(w.users["bob"]!.id)",
                                             headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"])
            #expect(removed.status == 204)
            #expect(try Self.bobSeenByAnn(app, w) == [])
        }
    }

    /// A change written by another connection (another process or node, a repair by hand) is
    /// seen too: the triggers move the group's visibility version whoever writes.
    @Test func aChangeByAnotherConnectionIsSeenAtOnce() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let group = GroupID(w.groupID)
            let (a1, b1) = (DeviceID(w.devices["A1"]!.id), DeviceID(w.devices["B1"]!.id))
            let bob = w.users["bob"]!.id
            func sharing() throws -> Set<DeviceID> { Set(try app.store.sharingDevices(groupID: group).byKey.values.map(\.deviceID)) }
            let first = try app.store.sharingDevices(groupID: group)
            #expect(Set(first.byKey.values.map(\.deviceID)) == [a1, b1])
            #expect(try app.store.sharingDevices(groupID: group) === first)  // from the cache

            try app.storage.executeOnAnotherConnection("UPDATE memberships SET share_location = FALSE WHERE user_id = '\(bob)'")
            #expect(try sharing() == [a1])

            try app.storage.executeOnAnotherConnection("""
                UPDATE memberships SET share_location = TRUE WHERE user_id = '\(bob)';
                UPDATE sharing_periods SET end_ts = \(w.sharedSince) WHERE user_id = '\(bob)' AND end_ts IS NULL
                """)
            let windows = try app.store.sharingDevices(groupID: group).byKey.values.first { $0.deviceID == b1 }?.windows
            #expect(windows?.contains(w.sharedSince - 1) == true && windows?.contains(w.sharedSince + 1) == false)

            try app.storage.executeOnAnotherConnection("DELETE FROM devices WHERE id = '\(a1.rawValue)'")
            #expect(try sharing() == [b1])
        }
    }
}
