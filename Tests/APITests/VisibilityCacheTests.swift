import Foundation
import HTTPTestSupport
import SQLiteStore
import Storage
import Testing
import Tracking

/// History queries read a group's sharing devices from a cache (`VisibilityCache`): every
/// change of who sees whom must show in the very next query, whoever committed it. Each step
/// below first queries (filling the cache), then changes the visibility, then queries again.
@Suite struct VisibilityCacheTests {
    /// The longitudes of B1's fixes that Ann's history query returns.
    static func bobSeenByAnn(_ app: TestApp, _ w: PermissionWorld) throws -> [Double] {
        let body = #"{"filter":{"location":{"$geoWithin":{"$box":[[0,49],[40,51]]}}},"scope":"history","limit":1000}"#
        let reply = try app.client().request("POST", "/v1/groups/\(w.groupID)/query", token: w.users["ann"]!.token, json: body)
        return reply.json["results"].array.filter { $0["deviceId"].string == w.devices["B1"]!.id }.compactMap { $0["location"][0].double }.sorted()
    }

    @Test func sharingOffOnAndRemovalShowInTheNextQuery() throws {
        try TestApp.with { app in
            let w = try PermissionWorld(app: app)
            let client = try app.client()
            let fixes = (0..<3).map { #"{"location":[\#(10 + $0),50],"timestamp":\#(w.sharedSince + 1 + Int64($0))}"# }
            _ = try client.request("POST", "/v1/devices/\(w.devices["B1"]!.id)/locations", token: w.devices["B1"]!.token,
                                   json: #"{"locations":[\#(fixes.joined(separator: ","))]}"#)
            #expect(try Self.bobSeenByAnn(app, w) == [10, 11, 12])
            #expect(try Self.bobSeenByAnn(app, w) == [10, 11, 12])

            _ = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":false}"#)
            #expect(try Self.bobSeenByAnn(app, w) == [])

            _ = try client.request("PUT", "/v1/groups/\(w.groupID)/sharing", token: w.users["bob"]!.token, json: #"{"shareLocation":true}"#)
            #expect(try Self.bobSeenByAnn(app, w) == [10, 11, 12])

            let removed = try client.request("DELETE", "/v1/groups/\(w.groupID)/members/\(w.users["bob"]!.id)",
                                             headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"])
            #expect(removed.status == 204)
            #expect(try Self.bobSeenByAnn(app, w) == [])
        }
    }

    /// A change written by another connection (another process, a repair by hand) is seen too:
    /// the triggers bump the version whoever writes.
    @Test(.enabled(if: TestStoreKind.isSQLite, "SQLite's visibility cache and the triggers that bump its version; PostgreSQL caches no rights (every read asks the database), and a change by another node is ClusterTests' case"))
    func aChangeByAnotherConnectionIsSeenAtOnce() throws {
        let directory = NSTemporaryDirectory() + "fod-visibility-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal)
        defer { backend.close() }
        let other = try Database(path: backend.path)
        try other.execute("""
            INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES ('u1', 'a@x', 'A', '!', 0), ('u2', 'b@x', 'B', '!', 0);
            INSERT INTO devices (key, id, owner_id, name, token_hash, created_at) VALUES (1, 'd1', 'u1', 'A1', 'h1', 0), (2, 'd2', 'u2', 'B1', 'h2', 0);
            INSERT INTO groups (id, name, owner_id, created_at) VALUES ('g', 'G', 'u1', 0);
            INSERT INTO memberships (group_id, user_id, device_id, share_location, joined_at) VALUES ('g', 'u1', 'd1', 1, 0), ('g', 'u2', 'd2', 1, 0);
            INSERT INTO sharing_periods (group_id, user_id, device_id, start_ts, end_ts) VALUES ('g', 'u1', 'd1', 0, NULL), ('g', 'u2', 'd2', 0, NULL);
            """)
        let group = GroupID("g")
        let first = try backend.sharingDevices(groupID: group)
        #expect(first.byKey.count == 2)
        #expect(try backend.sharingDevices(groupID: group) === first)

        try other.execute("UPDATE memberships SET share_location = 0 WHERE user_id = 'u2'")
        #expect(try backend.sharingDevices(groupID: group).byKey.values.map(\.deviceID) == [DeviceID("d1")])

        try other.execute("UPDATE memberships SET share_location = 1 WHERE user_id = 'u2'; UPDATE sharing_periods SET end_ts = 5 WHERE user_id = 'u2'")
        let windows = try backend.sharingDevices(groupID: group).byKey[DeviceKey(storeValue: 2)]?.windows
        #expect(windows?.contains(4) == true && windows?.contains(6) == false)

        try other.execute("DELETE FROM devices WHERE id = 'd1'")
        #expect(try backend.sharingDevices(groupID: group).byKey.values.map(\.deviceID) == [DeviceID("d2")])
    }
}
