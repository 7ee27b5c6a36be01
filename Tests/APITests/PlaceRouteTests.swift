import Foundation
import Testing
import HTTPTestSupport

/// Place CRUD and validation (API.md, "Places (geofences) and arrivals").
@Suite struct PlaceRouteTests {
    static let square = #"{"type":"Polygon","coordinates":[[[-74.05,40.68],[-74.04,40.68],[-74.04,40.69],[-74.05,40.69],[-74.05,40.68]]]}"#

    @Test func createListChangeDelete() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            let client = try app.client()
            let ann = w.users["ann"]!.token, bob = w.users["bob"]!.token
            let circle = try w.createCircle("School", radius: 120, as: "bob")
            #expect(circle.status == 201)
            #expect(circle.json["groupId"].string == w.groupID && circle.json["radius"].double == 120)
            #expect(circle.json["geometry"]["type"].string == "Point" && circle.json["createdBy"].string == w.users["bob"]!.id)
            #expect(circle.json["createdAt"].string?.hasSuffix("Z") == true)
            let polygon = try client.request("POST", "/v1/groups/\(w.groupID)/places", token: ann, json: #"{"name":"Island","geometry":\#(Self.square)}"#)
            #expect(polygon.status == 201 && !polygon.json["radius"].exists)
            let list = try client.get("/v1/groups/\(w.groupID)/places", token: w.users["cat"]!.token)
            #expect(list.status == 200 && list.json["places"].array.map { $0["name"].string } == ["School", "Island"])
            #expect(list.json["places"][0]["inside"].count == 0)
            let id = try #require(circle.json["id"].string)
            let renamed = try client.request("PATCH", "/v1/groups/\(w.groupID)/places/\(id)", token: bob, json: #"{"name":"Old school","radius":200}"#)
            #expect(renamed.status == 200 && renamed.json["name"].string == "Old school" && renamed.json["radius"].double == 200)
            #expect(renamed.json["geometry"]["type"].string == "Point")
            let reshaped = try client.request("PATCH", "/v1/groups/\(w.groupID)/places/\(id)", token: ann, json: #"{"geometry":\#(Self.square)}"#)
            #expect(reshaped.status == 200 && !reshaped.json["radius"].exists)
            let one = try client.get("/v1/groups/\(w.groupID)/places/\(id)", token: bob)
            #expect(one.status == 200 && one.json["geometry"]["type"].string == "Polygon" && one.json["inside"].count == 0)
            let gone = try client.request("DELETE", "/v1/groups/\(w.groupID)/places/\(id)", headers: ["Authorization": "Bearer \(bob)"])
            #expect(gone.status == 204)
            #expect(try client.get("/v1/groups/\(w.groupID)/places/\(id)", token: bob).status == 404)
            #expect(try client.get("/v1/groups/\(w.groupID)/places", token: ann).json["places"].count == 1)
        }
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let body: String
        let status: Int
        let code: String
        var testDescription: String { code + " " + body }
    }

    static let invalid: [Invalid] = [
        Invalid(body: #"{"geometry":{"type":"Point","coordinates":[0,0]},"radius":50}"#, status: 400, code: "missing_field"),
        Invalid(body: #"{"name":"","geometry":{"type":"Point","coordinates":[0,0]},"radius":50}"#, status: 400, code: "invalid_name"),
        Invalid(body: #"{"name":"X","radius":50}"#, status: 400, code: "missing_field"),
        Invalid(body: #"{"name":"X","geometry":"here","radius":50}"#, status: 400, code: "wrong_type"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Point","coordinates":[0,0]}}"#, status: 400, code: "invalid_radius"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Point","coordinates":[0,0]},"radius":"big"}"#, status: 400, code: "invalid_radius"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Point","coordinates":[0,0]},"radius":10}"#, status: 422, code: "invalid_radius"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Point","coordinates":[0,0]},"radius":50001}"#, status: 422, code: "invalid_radius"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Point","coordinates":[0,0]},"radius":1e400}"#, status: 400, code: "malformed_json"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Point","coordinates":[200,0]},"radius":50}"#, status: 422, code: "coordinate_out_of_bounds"),
        Invalid(body: #"{"name":"X","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}"#, status: 422, code: "unsupported_geometry"),
        Invalid(body: #"{"name":"X","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}"#, status: 422, code: "invalid_loop"),
        Invalid(body: #"{"name":"X","geometry":\#(square),"radius":50}"#, status: 400, code: "invalid_radius"),
    ]

    @Test(arguments: invalid)
    func invalidPlacesAreRefusedWithClearErrors(_ c: Invalid) throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            let reply = try app.client().request("POST", "/v1/groups/\(w.groupID)/places", token: w.users["ann"]!.token, json: c.body)
            #expect(reply.status == c.status && reply.errorCode == c.code, "\(reply.text)")
            #expect(reply.json["error"]["message"].string?.isEmpty == false)
        }
    }

    @Test func limitsOnPlacesAndVertices() throws {
        let app = try TestApp { $0.places.placesPerGroup = 2; $0.places.verticesPerPolygon = 10 }
        defer { app.close() }
        let w = try PlaceWorld(app: app)
        #expect(try w.createCircle("A", radius: 50).status == 201)
        #expect(try w.createCircle("B", radius: 50).status == 201)
        let third = try w.createCircle("C", radius: 50)
        #expect(third.status == 409 && third.errorCode == "too_many_places")
        let ring = (0...11).map { i -> String in
            let angle = Double(i % 11) / 11 * 2 * Double.pi
            return "[\(-74 + 0.01 * cos(angle)),\(40.7 + 0.01 * sin(angle))]"
        }
        let reply = try app.client().request("PATCH", "/v1/groups/\(w.groupID)/places/\(third.json["id"].string ?? "none")", token: w.users["ann"]!.token,
                                             json: #"{"geometry":{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}}"#)
        #expect(reply.status == 404)
        let first = try app.client().get("/v1/groups/\(w.groupID)/places", token: w.users["ann"]!.token).json["places"][0]["id"].string ?? ""
        let tooMany = try app.client().request("PATCH", "/v1/groups/\(w.groupID)/places/\(first)", token: w.users["ann"]!.token,
                                               json: #"{"geometry":{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}}"#)
        #expect(tooMany.status == 400 && tooMany.errorCode == "too_many_vertices")
        let empty = try app.client().request("PATCH", "/v1/groups/\(w.groupID)/places/\(first)", token: w.users["ann"]!.token, json: "{}")
        #expect(empty.status == 400 && empty.errorCode == "empty_change")
    }

    @Test func aPlaceOfAnotherGroupIsNotFoundThroughThisOne() throws {
        try TestApp.with { app in
            let w = try PlaceWorld(app: app)
            let other = try PlaceWorld(app: app)
            let foreign = try #require(try other.createCircle("Theirs", radius: 50).json["id"].string)
            let client = try app.client()
            #expect(try client.get("/v1/groups/\(w.groupID)/places/\(foreign)", token: w.users["ann"]!.token).status == 404)
            let patch = try client.request("PATCH", "/v1/groups/\(w.groupID)/places/\(foreign)", token: w.users["ann"]!.token, json: #"{"name":"Mine"}"#)
            #expect(patch.status == 404)
            let delete = try client.request("DELETE", "/v1/groups/\(w.groupID)/places/\(foreign)", headers: ["Authorization": "Bearer \(w.users["ann"]!.token)"])
            #expect(delete.status == 404)
            #expect(try client.get("/v1/groups/\(other.groupID)/places", token: other.users["ann"]!.token).json["places"][0]["name"].string == "Theirs")
        }
    }
}
