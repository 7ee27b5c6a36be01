import Foundation
import Testing
import HTTPTestSupport

/// The share-link limits are flags of `fod serve` (docs/security.md).
@Suite struct ShareLimitFlagTests {
    @Test func shareLinkLimitsFollowTheFlags() throws {
        let served = try ServedStore("fod-share-flags-")
        defer { served.remove() }
        let (refused, message) = try FodProcess.run(["serve", "--share-link-max-hours", "0", "--data", served.directory] + served.storeArguments)
        #expect(refused == 2 && message.contains("--share-link-max-hours must be 1–8760"), "\(message)")
        let server = try served.serve(["--share-links-per-device", "2", "--share-link-max-hours", "2", "--share-lookup-limit", "3"])
        defer { server.stop() }
        let client = try HTTPTestClient(port: server.port)
        let user = try client.request("POST", "/v1/users", json: #"{"email":"s@example.org","password":"password-s","displayName":"S"}"#)
        let token = try #require(user.json["token"].string)
        let device = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"phone"}"#)
        let deviceID = try #require(device.json["device"]["id"].string)
        let path = "/v1/devices/\(deviceID)/shares"

        let tooLong = try client.request("POST", path, token: token, json: #"{"expiresIn":7201}"#)
        #expect(tooLong.status == 400, "\(tooLong.text)")
        #expect(try client.request("POST", path, token: token, json: #"{"expiresIn":7200}"#).status == 201)
        #expect(try client.request("POST", path, token: token, json: "{}").status == 201)
        let third = try client.request("POST", path, token: token, json: "{}")
        #expect(third.status == 409 && third.json["error"]["code"].string == "too_many_share_links", "\(third.text)")

        let unknown = "fods_" + String(repeating: "A", count: 43)
        for _ in 0..<3 { #expect(try client.get("/v1/shared/\(unknown)").status == 404) }
        #expect(try client.get("/v1/shared/\(unknown)").status == 429)
    }
}
