import API
import Foundation
import HTTPServer
import HTTPTestSupport
import Testing

/// Every route that needs a credential checks it from the head before reading a byte of the
/// body (issue #47, finding 1): an upload without the right credential is answered at once,
/// whatever it announced, and nothing of it is held; OsmAnd bodies that carry their own device
/// id are small; history imports are limited per device and in all (finding 6).
@Suite struct BodyAdmissionAPITests {
    /// Announces `length` bytes, sends `sent` of them, then stalls: the reply must come anyway.
    static func stalledUpload(_ app: TestApp, _ method: String, _ target: String, headers: [String: String] = [:],
                              length: Int = 8 << 20, sent: Int = 256 * 1024) throws -> HTTPTestClient.Reply {
        let client = try HTTPTestClient(port: app.port)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        try client.send(head + "\r\n")
        // The server may answer and close while this is still on its way.
        try? client.send([UInt8](repeating: UInt8(ascii: " "), count: sent))
        return try client.readReply(method: method)
    }

    struct Case: CustomTestStringConvertible {
        let method: String, target: String, headers: [String: String], status: Int
        var testDescription: String { "\(method) \(target) \(headers.keys.sorted()) → \(status)" }
    }

    /// The routes that take bodies, each with a credential it must refuse.
    static func cases(device: DeviceFixture, group: String) -> [Case] {
        let json = ["Content-Type": "application/json"]
        let user = json.merging(["Authorization": "Bearer \(device.user.token)"]) { $1 }
        let deviceToken = json.merging(["Authorization": "Bearer \(device.deviceToken)"]) { $1 }
        let forged = json.merging(["Authorization": "Bearer fodd_forged"]) { $1 }
        let basic = Data("\(device.deviceID):fodd_forged".utf8).base64EncodedString()
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        return [
            Case(method: "POST", target: "/v1/devices/\(device.deviceID)/locations", headers: json, status: 401),
            Case(method: "POST", target: "/v1/devices/\(device.deviceID)/locations", headers: forged, status: 401),
            Case(method: "POST", target: "/v1/devices/\(device.deviceID)/locations", headers: user, status: 403),
            Case(method: "POST", target: "/v1/ingest/overland", headers: json, status: 401),
            Case(method: "POST", target: "/v1/ingest/overland", headers: user, status: 401),
            Case(method: "POST", target: "/v1/ingest/owntracks", headers: json.merging(["Authorization": "Basic \(basic)"]) { $1 }, status: 401),
            Case(method: "POST", target: "/v1/ingest/osmand?id=fodd_forged", headers: form, status: 401),
            Case(method: "POST", target: "/v1/ingest/osmand", headers: form, status: 413),
            Case(method: "POST", target: "/v1/groups/\(group)/query", headers: json, status: 401),
            Case(method: "POST", target: "/v1/groups/\(group)/query", headers: deviceToken, status: 403),
            Case(method: "POST", target: "/v1/groups/\(group)/places", headers: forged, status: 401),
            Case(method: "PATCH", target: "/v1/me", headers: json, status: 401),
            Case(method: "POST", target: "/v1/devices/\(device.deviceID)/import", headers: json, status: 401),
            Case(method: "POST", target: "/v1/users", headers: json, status: 413),
            Case(method: "GET", target: "/v1/devices/\(device.deviceID)/locations", headers: forged, status: 401),
        ]
    }

    /// The routes that take no credential: their bodies are anonymous (small).
    static let openRoutes: Set<String> = [
        "POST /v1/users", "POST /v1/sessions", "GET /v1/shared/{token}", "GET /v1/shared/{token}/live", "GET /s/{token}",
        "GET /healthz", "GET /metrics", "GET /v1/server",
    ]

    @Test func everyRouteThatTakesACredentialChecksItBeforeTheBody() throws {
        try TestApp.with { app in
            for route in API.router(app.services, metrics: MetricsEndpoint(bearerToken: nil, render: { "" })).routes {
                let name = "\(route.method) \(route.pattern)"
                if case .streaming = route.handler { continue }  // its `admit` is its check
                #expect((route.headCheck == nil) == Self.openRoutes.contains(name), "\(name)")
            }
        }
    }

    static func group(_ app: TestApp, _ device: DeviceFixture) throws -> String {
        try app.client().request("POST", "/v1/groups", token: device.user.token,
                                 json: #"{"name":"Bodies","deviceId":"\#(device.deviceID)"}"#).json["id"].string ?? ""
    }

    @Test(arguments: [true, false])
    func uploadsWithoutTheRightCredentialAreAnsweredBeforeTheirBody(checksInline: Bool) throws {
        let app = try TestApp(configure: { $0.credentialChecksInline = checksInline })
        defer { app.close() }
        let device = try DeviceFixture(app: app)
        let group = try Self.group(app, device)
        for test in Self.cases(device: device, group: group) {
            let reply = try Self.stalledUpload(app, test.method, test.target, headers: test.headers)
            #expect(reply.status == test.status, "\(test.testDescription): \(reply.text)")
            #expect(reply.errorCode != nil, "\(test.testDescription): the API error shape")
        }
        #expect(app.server.heldBodyBytes == 0)
        // The right credential still sends a large batch.
        var batch = #"{"locations":["#
        for k in 0..<5_000 {
            batch += (k == 0 ? "" : ",") + #"{"location":[2.35,48.85],"timestamp":\#(1_700_000_000_000 + k * 1_000),"accuracy":5}"#
        }
        let posted = try device.post(app, batch + "]}")
        #expect(posted.status == 200 && posted.json["accepted"].int == 5_000, "\(posted.text)")
    }

    @Test func osmAndBodiesThatCarryTheirOwnDeviceIDAreSmall() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            let fix = "id=\(device.deviceToken)&lat=48.85&lon=2.35&timestamp=1700000000"
            let padding = "&note=" + String(repeating: "x", count: 20_000)
            // The id in the form: a fix fits; a padded form is past the anonymous limit.
            let small = try app.client().request("POST", "/v1/ingest/osmand", headers: form, body: Array(fix.utf8))
            #expect(small.status == 200 && small.json["accepted"].int == 1)
            let padded = try app.client().request("POST", "/v1/ingest/osmand", headers: form, body: Array((fix + padding).utf8))
            #expect(padded.status == 413)
            // With the id in the query the route's own limit applies.
            let queried = try app.client().request("POST", "/v1/ingest/osmand?id=\(device.deviceToken)", headers: form,
                                                   body: Array(("lat=48.86&lon=2.35&timestamp=1700000100" + padding).utf8))
            #expect(queried.status == 200 && queried.json["accepted"].int == 1)
            // A JSON batch (Traccar Client's) names its device in the body: it may be larger.
            let elements = (0..<200).map { k in #"{"id":"\#(device.deviceToken)","lat":48.8,"lon":2.3,"timestamp":\#(1_700_001_000 + k)}"# }
            let batch = "[" + elements.joined(separator: ",") + "]"
            #expect(batch.utf8.count > 16 * 1024)
            let posted = try app.client().request("POST", "/v1/ingest/osmand", token: nil, json: batch)
            #expect(posted.status == 200 && posted.json["accepted"].int == 200, "\(posted.text)")
            // A query id that is no device token is refused before the body.
            #expect(try app.client().request("POST", "/v1/ingest/osmand?id=fodd_forged", token: nil, json: batch).status == 401)
        }
    }

    /// An import that announced a file and sends nothing more (it holds its slot).
    static func stalledImport(_ app: TestApp, _ device: DeviceFixture) throws -> HTTPTestClient {
        let client = try HTTPTestClient(port: app.port)
        try client.send("POST /v1/devices/\(device.deviceID)/import HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(device.deviceToken)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"locations\": [")
        return client
    }

    @Test func importsAreLimitedPerDeviceAndInAll() throws {
        let app = try TestApp(configure: { $0.importsPerDevice = 1; $0.concurrentImports = 2 })
        defer { app.close() }
        let ann = try DeviceFixture(app: app, name: "ann"), bob = try DeviceFixture(app: app, name: "bob")
        let cat = try DeviceFixture(app: app, name: "cat")
        let first = try Self.stalledImport(app, ann)
        #expect(eventually(within: 10) { app.services.importSlots.runningCount == 1 })
        // Ann's second import waits for 100 Continue it never gets: it is refused first.
        let again = try Self.stalledUpload(app, "POST", "/v1/devices/\(ann.deviceID)/import",
                                           headers: ["Authorization": "Bearer \(ann.deviceToken)", "Expect": "100-continue"], sent: 0)
        #expect(again.status == 429 && again.errorCode == "rate_limited" && again.header("Retry-After") != nil, "\(again.text)")
        // Bob's fills the node's two slots; Cat's is then refused with 503.
        let second = try Self.stalledImport(app, bob)
        #expect(eventually(within: 10) { app.services.importSlots.runningCount == 2 })
        let busy = try Self.stalledUpload(app, "POST", "/v1/devices/\(cat.deviceID)/import",
                                          headers: ["Authorization": "Bearer \(cat.deviceToken)", "Expect": "100-continue"], sent: 0)
        #expect(busy.status == 503 && busy.errorCode == "busy" && busy.header("Retry-After") != nil, "\(busy.text)")
        // A finished import gives its slot back.
        try first.send("]}" + String(repeating: " ", count: 1_000_000 - 17))
        #expect([200, 400].contains(try first.readReply(method: "POST").status))
        second.close()
        #expect(eventually(within: 10) { app.services.importSlots.runningCount == 0 })
        let file = Array(#"{"locations":[{"location":[2.35,48.85],"timestamp":"2024-01-01T00:00:00Z"}]}"#.utf8)
        let done = try ImportTests.post(app, device: cat.deviceID, token: cat.deviceToken, body: file)
        #expect(done.status == 200 && done.json["accepted"].int == 1, "\(done.text)")
    }
}
