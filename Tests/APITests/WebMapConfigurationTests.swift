import Foundation
import Testing
import HTTPTestSupport

/// The web app as `fod serve` configures it (issue #44): OpenStreetMap's street tiles by default
/// with their attribution, the CSP naming that host and nothing else; `--tile-url none` for the
/// offline basemap only; another template without OpenStreetMap's attribution; and the owner's
/// device lists carrying the OwnTracks friends setting the Phones panel switches.
@Suite struct WebMapConfigurationTests {
    static func directory() -> String { NSTemporaryDirectory() + "fod-webmap-" + UUID().uuidString }

    /// `body(client)` against a `fod serve` with `arguments`.
    static func serving(_ arguments: [String], _ body: (HTTPTestClient) throws -> Void) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FodProcess(dataDirectory: directory, extraArguments: arguments)
        defer { server.stop() }
        try body(try HTTPTestClient(port: server.port))
    }

    static func imageSources(_ reply: HTTPTestClient.Reply) -> String? {
        reply.header("Content-Security-Policy")?.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("img-src ") }
    }

    @Test func streetTilesFromOpenStreetMapByDefault() throws {
        try Self.serving([]) { (client: HTTPTestClient) throws in
            let config = try client.get("/static/config.json")
            #expect(config.status == 200)
            #expect(config.json["tileURL"].string == "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
            #expect(config.json["tileAttribution"].string == "© OpenStreetMap contributors")
            #expect(config.json["qrcode"].bool != nil, "whether the QR encoder is served: \(config.text)")
            #expect(Self.imageSources(config) == "img-src 'self' https://tile.openstreetmap.org")
            #expect(Self.imageSources(try client.get("/")) == "img-src 'self' https://tile.openstreetmap.org")
        }
    }

    @Test func noneLeavesTheOfflineBasemapAndTheStrictestImageSources() throws {
        for none in ["none", "NONE"] {
            try Self.serving(["--tile-url", none]) { (client: HTTPTestClient) throws in
                let config = try client.get("/static/config.json")
                #expect(config.json["tileURL"].isNull, "\(none): \(config.text)")
                #expect(config.json["tileAttribution"].string == "")
                #expect(Self.imageSources(config) == "img-src 'self'")
            }
        }
    }

    @Test func anotherTileServerKeepsOnlyItsOwnAttribution() throws {
        try Self.serving(["--tile-url", "https://{s}.tiles.example/{z}/{x}/{y}.png"]) { (client: HTTPTestClient) throws in
            let config = try client.get("/static/config.json")
            #expect(config.json["tileURL"].string == "https://{s}.tiles.example/{z}/{x}/{y}.png")
            #expect(config.json["tileAttribution"].string == "", "OpenStreetMap's attribution belongs to its tiles only")
            #expect(Self.imageSources(config) == "img-src 'self' https://*.tiles.example")
        }
        try Self.serving(["--tile-url", "https://tiles.example/{z}/{x}/{y}.png", "--tile-attribution", "Tiles: Example"]) { (client: HTTPTestClient) throws in
            #expect(try client.get("/static/config.json").json["tileAttribution"].string == "Tiles: Example")
        }
    }

    /// The Phones panel reads the friends switch from the owner's list of devices.
    @Test func theOwnersDeviceListCarriesTheFriendsSetting() throws {
        try Self.serving([]) { (client: HTTPTestClient) throws in
            let user = try client.request("POST", "/v1/users", json: #"{"email":"ann@example.org","password":"ann-password","displayName":"Ann"}"#)
            let token = try #require(user.json["token"].string)
            let added = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"Ann phone"}"#)
            let id = try #require(added.json["device"]["id"].string)
            #expect(try client.get("/v1/devices", token: token).json["devices"][0]["receiveGroupLocations"].bool == false)
            #expect(try client.request("PATCH", "/v1/devices/\(id)", token: token, json: #"{"receiveGroupLocations":true}"#).status == 200)
            #expect(try client.get("/v1/devices", token: token).json["devices"][0]["receiveGroupLocations"].bool == true)
            #expect(try client.get("/v1/me", token: token).json["devices"][0]["receiveGroupLocations"].bool == true)
        }
    }
}
