import Foundation
import Testing
import HTTPTestSupport

/// Every integer or time parameter of every route (query string, header or JSON body) at the
/// values that break careless parsing, against the real `fod serve`: each answers 400 or a
/// documented valid answer, never a 5xx, never a dropped connection (a trap).
@Suite struct ParameterBoundsTests {
    /// The probe values, in the order of every row's expected statuses.
    static let values = ["-9223372036854775808", "9223372036854775807", "-1", "0", "1e400",
                         "123456789012345678901234567890", "abc", ""]

    /// One parameter of one route: how to put a probe value into a request, and the status
    /// expected for each of `values`.
    struct Row: CustomStringConvertible {
        let description: String
        let expected: [Int]
        let request: (World, String) -> (method: String, path: String, headers: [String: String], body: String?)
    }

    /// A user with a device that has a fix, in a group; a second device for destructive rows.
    struct World {
        let user: String, device: String, deviceToken: String, group: String
        let spareDevice: String
        var userAuth: [String: String] { ["Authorization": "Bearer \(user)"] }
        var deviceAuth: [String: String] { ["Authorization": "Bearer \(deviceToken)"] }
        var json: [String: String] { ["Content-Type": "application/json"] }
    }

    // Expected statuses for the common kinds of parameter, in the order of `values`.
    /// A time (RFC 3339 or epoch ms, years 0001–9999); empty means absent.
    static let time = [400, 400, 200, 200, 400, 400, 400, 200]
    /// A page size with a default; empty means absent.
    static let limit = [400, 400, 400, 400, 400, 400, 400, 200]
    /// A position in an event log (≥ 0); empty means absent.
    static let since = [400, 200, 400, 200, 400, 400, 400, 200]
    /// Last-Event-ID: a non-negative integer (Int64.max is past the log: a fresh snapshot);
    /// empty means absent.
    static let eventID = [400, 200, 400, 200, 400, 400, 400, 200]
    /// A longitude or latitude in a query string: required, in degrees (out of bounds is 422).
    static let coordinate = [422, 422, 200, 200, 400, 422, 400, 400]
    /// A distance in meters (≥ 0); empty means absent.
    static let distance = [400, 200, 400, 200, 400, 200, 400, 200]

    // JSON bodies: a probe value is a number literal, except "abc" and "" which are strings.
    static func literal(_ value: String) -> String {
        value == "abc" || value.isEmpty ? "\"\(value)\"" : value
    }
    /// A time in a JSON body ("" is the same as absent).
    static let jsonTime = [400, 400, 200, 200, 400, 400, 400, 200]
    /// A fix timestamp: epoch seconds or ms, 2000-01-01 to 24 h ahead.
    static let fixTime = [400, 400, 400, 400, 400, 400, 400, 400]

    static func get(_ path: String, _ headers: @escaping (World) -> [String: String] = { $0.userAuth }) -> (World, String) -> (String, String, [String: String], String?) {
        { world, value in ("GET", path.replacingOccurrences(of: "$V", with: value).expanded(world), headers(world), nil) }
    }

    static func post(_ path: String, _ body: String, device: Bool = false) -> (World, String) -> (String, String, [String: String], String?) {
        { world, value in
            let headers = (device ? world.deviceAuth : world.userAuth).merging(world.json) { a, _ in a }
            return ("POST", path.expanded(world), headers, body.replacingOccurrences(of: "$V", with: literal(value)).expanded(world))
        }
    }

    static let exports = ["/v1/groups/$G/export.geojson?tracks=true", "/v1/devices/$D/export.geojson",
                          "/v1/devices/$D/export.gpx", "/v1/groups/$G/export/scatter?format=csv",
                          "/v1/devices/$D/export.ndjson", "/v1/groups/$G/export.ndjson"]
    static let near = "/v1/groups/$G/query"

    static var rows: [Row] { [
        Row(description: "history from", expected: time, request: get("/v1/devices/$D/locations?from=$V")),
        Row(description: "history to", expected: time, request: get("/v1/devices/$D/locations?to=$V")),
        Row(description: "history limit", expected: limit, request: get("/v1/devices/$D/locations?limit=$V")),
        Row(description: "history cursor", expected: limit, request: get("/v1/devices/$D/locations?cursor=$V")),
        Row(description: "history cursor holding the value", expected: [200, 200, 200, 200, 400, 400, 400, 400], request: { world, value in
            let cursor = Data("\(value):\(value)".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            return ("GET", "/v1/devices/\(world.device)/locations?cursor=\(cursor)", world.userAuth, nil)
        }),
        Row(description: "delete history before", expected: [400, 400, 200, 200, 400, 400, 400, 400], request: { world, value in
            ("DELETE", "/v1/devices/\(world.spareDevice)/locations?before=\(value)", world.userAuth, nil)
        }),
        Row(description: "changes since", expected: since, request: get("/v1/groups/$G/changes?since=$V")),
        Row(description: "changes limit", expected: limit, request: get("/v1/groups/$G/changes?limit=$V")),
        Row(description: "live Last-Event-ID", expected: eventID, request: { world, value in
            ("GET", "/v1/groups/\(world.group)/live", world.userAuth.merging(["Last-Event-ID": value]) { a, _ in a }, nil)
        }),
        Row(description: "live lastEventId", expected: eventID, request: get("/v1/groups/$G/live?lastEventId=$V")),
        Row(description: "query limit", expected: [400, 400, 400, 400, 400, 400, 400, 400],
            request: post(near, #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[0,0],0.1]}}},"limit":$V}"#)),
        Row(description: "query from", expected: jsonTime,
            request: post(near, #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[0,0],0.1]}}},"scope":"history","from":$V}"#)),
        Row(description: "query to", expected: jsonTime,
            request: post(near, #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[0,0],0.1]}}},"scope":"history","to":$V}"#)),
        Row(description: "query $maxDistance", expected: [400, 200, 400, 200, 400, 200, 400, 400],
            request: post(near, #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[0,0]},"$maxDistance":$V}}}}"#)),
        Row(description: "query $minDistance", expected: [400, 200, 400, 200, 400, 200, 400, 400],
            request: post(near, #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[0,0]},"$minDistance":$V}}}}"#)),
        Row(description: "query $centerSphere radius", expected: [400, 200, 400, 200, 400, 200, 400, 400],
            request: post(near, #"{"filter":{"location":{"$geoWithin":{"$centerSphere":[[0,0],$V]}}}}"#)),
        Row(description: "query point longitude", expected: [422, 422, 200, 200, 400, 422, 400, 400],
            request: post(near, #"{"filter":{"location":{"$near":{"$geometry":{"type":"Point","coordinates":[$V,0]}}}}}"#)),
        Row(description: "near lon", expected: coordinate, request: get("/v1/groups/$G/near?lat=0&lon=$V")),
        Row(description: "near lat", expected: coordinate, request: get("/v1/groups/$G/near?lon=0&lat=$V")),
        Row(description: "near maxDistance", expected: distance, request: get("/v1/groups/$G/near?lon=0&lat=0&maxDistance=$V")),
        Row(description: "near minDistance", expected: distance, request: get("/v1/groups/$G/near?lon=0&lat=0&minDistance=$V")),
        Row(description: "near limit", expected: limit, request: get("/v1/groups/$G/near?lon=0&lat=0&limit=$V")),
        Row(description: "near from", expected: time, request: get("/v1/groups/$G/near?lon=0&lat=0&scope=history&from=$V")),
        Row(description: "near to", expected: time, request: get("/v1/groups/$G/near?lon=0&lat=0&scope=history&to=$V")),
    ] + exports.flatMap { path -> [Row] in
        let joiner = path.contains("?") ? "&" : "?"
        return [
            Row(description: "\(path) from", expected: time, request: get(path + joiner + "from=$V")),
            Row(description: "\(path) to", expected: time, request: get(path + joiner + "to=$V")),
            Row(description: "\(path) gap", expected: [400, 400, 400, 200, 400, 400, 400, 200], request: get(path + joiner + "gap=$V")),
            Row(description: "\(path) simplify", expected: limit, request: get(path + joiner + "simplify=$V")),
        ]
    } + [
        Row(description: "fix timestamp", expected: fixTime,
            request: post("/v1/devices/$D/locations", #"{"location":[1,2],"timestamp":$V}"#, device: true)),
        Row(description: "fix longitude", expected: [400, 400, 200, 200, 400, 400, 400, 400],
            request: post("/v1/devices/$D/locations", #"{"location":[$V,2]}"#, device: true)),
        Row(description: "fix accuracy", expected: [400, 400, 400, 200, 400, 400, 400, 400],
            request: post("/v1/devices/$D/locations", #"{"location":[1,2],"accuracy":$V}"#, device: true)),
        Row(description: "fix battery", expected: [400, 400, 400, 200, 400, 400, 400, 400],
            request: post("/v1/devices/$D/locations", #"{"location":[1,2],"battery":$V}"#, device: true)),
        Row(description: "batch timestamp", expected: [200, 200, 200, 200, 400, 200, 200, 200],
            request: post("/v1/devices/$D/locations", #"{"locations":[{"location":[1,2],"timestamp":$V}]}"#, device: true)),
        // The phone apps' endpoints answer 200 whatever the values (recorded for the owner, API.md
        // "Phone apps never stall"); still never a trap.
        Row(description: "OsmAnd timestamp", expected: [200, 200, 200, 200, 200, 200, 200, 200],
            request: get("/v1/ingest/osmand?id=$T&lat=1&lon=2&timestamp=$V", { _ in [:] })),
        Row(description: "OsmAnd lat", expected: [200, 200, 200, 200, 200, 200, 200, 200],
            request: get("/v1/ingest/osmand?id=$T&lon=2&lat=$V", { _ in [:] })),
        Row(description: "OwnTracks tst", expected: [200, 200, 200, 200, 200, 200, 200, 200], request: { world, value in
            let basic = Data("\(world.device):\(world.deviceToken)".utf8).base64EncodedString()
            return ("POST", "/v1/ingest/owntracks", ["Authorization": "Basic \(basic)", "Content-Type": "application/json"],
                    #"{"_type":"location","lat":1,"lon":2,"tst":\#(literal(value))}"#)
        }),
        Row(description: "Overland timestamp", expected: [200, 200, 200, 200, 200, 200, 200, 200],
            request: post("/v1/ingest/overland",
                          #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":$V}}]}"#,
                          device: true)),
    ] }

    @Test func everyNumericParameterAtItsExtremesIsRefusedOrValid() throws {
        let served = try ServedStore("fod-bounds-")
        defer { served.remove() }
        let server = try served.serve()
        defer { server.stop() }
        let world = try Self.makeWorld(port: server.port)
        for row in Self.rows {
            #expect(row.expected.count == Self.values.count, "\(row)")
            for (value, expected) in zip(Self.values, row.expected) {
                let (method, path, headers, body) = row.request(world, value)
                let client = try HTTPTestClient(port: server.port)
                let status: Int
                do {
                    if path.contains("/live") {
                        status = try client.openStream(path, headers: headers).status
                    } else {
                        status = try client.request(method, path, headers: headers, body: body.map { Array($0.utf8) }).status
                    }
                } catch {
                    Issue.record("\(row) = \"\(value)\": no answer (\(error)); the server may have trapped")
                    return
                }
                #expect(status == expected, "\(row) = \"\(value)\"")
            }
        }
    }

    static func makeWorld(port: UInt16) throws -> World {
        let client = try HTTPTestClient(port: port)
        let user = try client.request("POST", "/v1/users", json: #"{"email":"b@example.org","password":"password-b","displayName":"B"}"#)
        let token = try #require(user.json["token"].string)
        let device = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"phone"}"#)
        let deviceID = try #require(device.json["device"]["id"].string)
        let deviceToken = try #require(device.json["deviceToken"].string)
        let spare = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"spare"}"#)
        let group = try client.request("POST", "/v1/groups", token: token, json: #"{"name":"g","deviceId":"\#(deviceID)"}"#)
        let fix = try client.request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: #"{"location":[0.001,0.001]}"#)
        #expect(fix.status == 200)
        return World(user: token, device: deviceID, deviceToken: deviceToken, group: try #require(group.json["id"].string),
                     spareDevice: try #require(spare.json["device"]["id"].string))
    }
}

extension String {
    /// `$D`, `$G` and `$T` replaced by the world's device id, group id and device token.
    fileprivate func expanded(_ world: ParameterBoundsTests.World) -> String {
        replacingOccurrences(of: "$D", with: world.device).replacingOccurrences(of: "$G", with: world.group)
            .replacingOccurrences(of: "$T", with: world.deviceToken)
    }
}
