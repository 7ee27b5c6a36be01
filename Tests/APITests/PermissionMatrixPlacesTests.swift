import Testing
import HTTPTestSupport

/// The permission matrix rows of the place routes: every actor of `PermissionWorld` × every
/// place operation. In each world Bob (a sharing member) created place P and Ann (the owner)
/// place Q.
///
/// Choices written down: any member creates and reads places (sharing or not); only a place's
/// creator or the group's owner changes or deletes it (403 for other members, naming the
/// group partition); non-members get 404 for everything (the group stays hidden); device
/// tokens get 403 (they never read, and places are not theirs to write).
@Suite struct PermissionMatrixPlacesTests {
    typealias Actor = PermissionWorld.Actor

    struct Operation: Sendable, CustomTestStringConvertible {
        let name: String
        let request: @Sendable (PermissionWorld, _ bobsPlace: String, _ annsPlace: String) -> (String, String, String?)
        /// In `Actor.allCases` order: owner, memberSharing, memberNotSharing, invited, formerMember,
        /// outsider, ownDeviceToken, otherMemberDeviceToken, revokedDeviceToken, signedOutToken, noCredential.
        let expected: [String]
        var testDescription: String { name }
    }

    static let circle = #"{"name":"Here","geometry":{"type":"Point","coordinates":[8.5,47.4]},"radius":100}"#

    static let operations: [Operation] = [
        Operation(name: "list places", request: { w, _, _ in ("GET", "/v1/groups/\(w.groupID)/places", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "GET Bob's place", request: { w, p, _ in ("GET", "/v1/groups/\(w.groupID)/places/\(p)", nil) },
                  expected: ["200", "200", "200", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "create a place", request: { w, _, _ in ("POST", "/v1/groups/\(w.groupID)/places", circle) },
                  expected: ["201", "201", "201", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "rename Bob's place", request: { w, p, _ in ("PATCH", "/v1/groups/\(w.groupID)/places/\(p)", #"{"name":"Renamed"}"#) },
                  expected: ["200", "200", "403", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "rename Ann's place", request: { w, _, q in ("PATCH", "/v1/groups/\(w.groupID)/places/\(q)", #"{"name":"Renamed"}"#) },
                  expected: ["200", "403", "403", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "delete Bob's place", request: { w, p, _ in ("DELETE", "/v1/groups/\(w.groupID)/places/\(p)", nil) },
                  expected: ["204", "204", "403", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "delete Ann's place", request: { w, _, q in ("DELETE", "/v1/groups/\(w.groupID)/places/\(q)", nil) },
                  expected: ["204", "403", "403", "404", "404", "404", "403", "403", "401", "401", "401"]),
        Operation(name: "delete an unknown place", request: { w, _, _ in ("DELETE", "/v1/groups/\(w.groupID)/places/p_unknown", nil) },
                  expected: ["404", "404", "404", "404", "404", "404", "403", "403", "401", "401", "401"]),
    ]

    /// A fresh world with Bob's place P and Ann's place Q.
    static func world(_ app: TestApp) throws -> (PermissionWorld, String, String) {
        let w = try PermissionWorld(app: app)
        let client = try app.client()
        let p = try client.request("POST", "/v1/groups/\(w.groupID)/places", token: w.users["bob"]!.token, json: circle).json["id"].string
        let q = try client.request("POST", "/v1/groups/\(w.groupID)/places", token: w.users["ann"]!.token, json: circle).json["id"].string
        guard let p, let q else { throw TestFailure("world setup: places not created") }
        return (w, p, q)
    }

    @Test(arguments: operations)
    func everyActor(_ operation: Operation) throws {
        try TestApp.with { app in
            let client = try app.client()
            var (world, bobsPlace, annsPlace) = try Self.world(app)
            var outcomes: [String] = []
            for actor in Actor.allCases {
                let (method, path, body) = operation.request(world, bobsPlace, annsPlace)
                var headers: [String: String] = [:]
                if let token = world.token(actor) { headers["Authorization"] = "Bearer \(token)" }
                if body != nil { headers["Content-Type"] = "application/json" }
                let reply = try client.request(method, path, headers: headers, body: body.map { Array($0.utf8) })
                if reply.status >= 400 { #expect(reply.errorCode != nil, "\(actor) \(operation.name): \(reply.text)") }
                #expect(reply.header("Cache-Control") == "no-store", "\(actor) \(operation.name): \(reply.headers)")
                if reply.status == 403 {
                    #expect(reply.json["error"]["message"].string?.contains("partition ") == true, "\(actor) \(operation.name): \(reply.text)")
                }
                outcomes.append(String(reply.status))
                if reply.status < 300 && method != "GET" { (world, bobsPlace, annsPlace) = try Self.world(app) }
            }
            let table = zip(Actor.allCases, zip(outcomes, operation.expected)).filter { $0.1.0 != $0.1.1 }
                .map { "\($0.0): got \($0.1.0), expected \($0.1.1)" }
            #expect(table.isEmpty, "\(operation.name):\n\(table.joined(separator: "\n"))")
        }
    }
}
