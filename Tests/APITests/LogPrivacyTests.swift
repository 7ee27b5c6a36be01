import Foundation
import Testing
import HTTPTestSupport

/// No credential reaches the log (issue #47, finding 7): share tokens in paths are redacted
/// whatever the method or route — `OPTIONS`, `POST` and `DELETE` on `/s/{token}` were logged in
/// full — and tokens in query strings are never logged. Through the real binary's access log.
@Suite struct LogPrivacyTests {
    @Test func noTokenAppearsInTheAccessLog() throws {
        let served = try ServedStore("fod-logs-")
        defer { served.remove() }
        let server = try served.serve(["--log-level", "info"])
        let client = try HTTPTestClient(port: server.port)
        let user = try client.request("POST", "/v1/users", json: #"{"email":"logs@example.org","password":"password-logs","displayName":"L"}"#)
        let userToken = try #require(user.json["token"].string)
        let device = try client.request("POST", "/v1/devices", token: userToken, json: #"{"name":"phone"}"#)
        let deviceID = try #require(device.json["device"]["id"].string)
        let deviceToken = try #require(device.json["deviceToken"].string)
        let share = try client.request("POST", "/v1/devices/\(deviceID)/shares", token: userToken, json: #"{"expiresIn":600}"#)
        let shareToken = try #require(share.json["token"].string)
        let group = try client.request("POST", "/v1/groups", token: userToken, json: #"{"name":"G","deviceId":"\#(deviceID)"}"#)
        let groupID = try #require(group.json["id"].string)

        let requests: [(String, String)] = [
            ("GET", "/s/\(shareToken)"), ("OPTIONS", "/s/\(shareToken)"), ("POST", "/s/\(shareToken)"), ("DELETE", "/s/\(shareToken)"),
            ("GET", "/s/\(shareToken)/more"), ("PUT", "/v1/shared/\(shareToken)"), ("GET", "/v1/shared/\(shareToken)/elsewhere"),
            ("GET", "/v1/shared/\(shareToken)"),
            ("GET", "/v1/ingest/osmand?id=\(deviceToken)&lat=50.1&lon=10.1&timestamp=1700000000"),
            ("GET", "/v1/groups/\(groupID)/changes?token=\(userToken)"),
        ]
        for (method, path) in requests { _ = try client.request(method, path) }
        #expect(server.stop() == 0)
        let log = server.standardError
        for (method, _) in requests { #expect(log.contains("info \(method) /"), "\(method) not logged:\n\(log)") }
        #expect(log.contains("OPTIONS /s/<redacted> 405"), "\(log)")
        for secret in [shareToken, deviceToken, userToken] { #expect(!log.contains(secret), "a token in the log:\n\(log)") }
    }
}
