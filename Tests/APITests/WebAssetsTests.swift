import Foundation
import Testing
import HTTPTestSupport
@testable import API
import HTTPServer
import JSONCore

/// The web map's files as served: types (modules need a JavaScript type), the security headers
/// on every file, and the CSP source derived from `--tile-url`.
@Suite struct WebAssetsTests {
    /// Serves `assets` alone on a loopback port for the duration of `body`.
    static func serving(_ assets: WebAssets, _ body: (HTTPTestClient) throws -> Void) throws {
        let logger = Logger(level: .error)
        let errors = ErrorMapper(logger: logger)
        var configuration = HTTPServer.Configuration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, router: Router(assets.routes), logger: logger) {
            errors.response(for: $0, request: $1)
        }
        try server.start()
        defer { server.shutdown() }
        try body(try HTTPTestClient(port: server.port))
    }

    /// The repository's own `Web/` and `Data/`, without Leaflet, and with the QR code encoder
    /// from `qrcodeDirectory` (none by default).
    static func shippedAssets(tileURL: String? = nil, qrcodeDirectory: String? = nil) -> WebAssets {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var configuration = WebAssets.Configuration(webDirectory: root.appendingPathComponent("Web").path,
                                                    dataDirectory: root.appendingPathComponent("Data").path)
        configuration.leafletDirectory = root.appendingPathComponent("no-leaflet-here").path
        configuration.qrcodeDirectory = qrcodeDirectory ?? root.appendingPathComponent("no-qrcode-here").path
        configuration.tileURL = tileURL
        return WebAssets(configuration)
    }

    static let expectedHeaders = [
        ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"), ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    @Test func everyShippedFileCarriesTheSecurityHeadersAndItsType() throws {
        let assets = Self.shippedAssets()
        let modules = assets.files.keys.filter { $0.hasSuffix(".js") }.sorted()
        #expect(modules.contains("app.js") && modules.contains("api.js") && modules.contains("live.js") && modules.contains("map.js"))
        try Self.serving(assets) { (client: HTTPTestClient) throws in
            let paths = ["/"] + assets.files.keys.sorted().map { "/static/" + $0 }
            for path in paths {
                let reply = try client.get(path)
                #expect(reply.status == 200, "\(path)")
                #expect(reply.header("Content-Security-Policy") == assets.security.contentSecurityPolicy, "\(path)")
                for (name, value) in Self.expectedHeaders { #expect(reply.header(name) == value, "\(path) \(name)") }
            }
            for module in modules {
                #expect(try client.get("/static/" + module).header("Content-Type") == "text/javascript; charset=utf-8", "\(module)")
            }
            #expect(try client.get("/").header("Content-Type") == "text/html; charset=utf-8")
            #expect(try client.get("/static/icon.svg").header("Content-Type") == "image/svg+xml")
        }
    }

    @Test func thePageLoadsOnlyAModuleAndHasNoInlineScriptOrHandler() throws {
        let assets = Self.shippedAssets()
        let html = String(decoding: assets.index?.bytes ?? [], as: UTF8.self)
        #expect(html.contains(#"<script type="module" src="/static/app.js"></script>"#))
        #expect(html.components(separatedBy: "<script").count == 2, "one script element")
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "no inline event handler")
        #expect(!html.contains("data:"), "nothing the CSP would block")
    }

    @Test func thePolicyIsStrict() {
        let csp = WebSecurityPolicy(tileURL: nil).contentSecurityPolicy
        for directive in ["default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self';", "connect-src 'self'",
                          "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
                          "require-trusted-types-for 'script'", "trusted-types fod-vendor"] {
            #expect(csp.contains(directive), "\(directive)")
        }
        for loose in ["unsafe-inline", "unsafe-eval", "unsafe-hashes", "data:", "blob:", " * ", "http:", "https:"] {
            #expect(!csp.contains(loose), "\(loose)")
        }
    }

    @Test(arguments: [
        ("https://tile.example/{z}/{x}/{y}.png", "https://tile.example"),
        ("https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png", "https://*.tile.openstreetmap.org"),
        ("https://tile-{s}.maps.example:8443/{z}/{x}/{y}.png?key=abc", "https://*.maps.example:8443"),
        ("https://a.{s}.maps.example/{z}/{x}/{y}.png", "https://*.maps.example"),
        ("HTTP://Tiles.Example/{z}/{x}/{y}.png", "http://tiles.example"),
        ("https://user@tile.example/{z}/{x}/{y}.png", "https://tile.example"),
        ("http://[::1]:8081/{z}/{x}/{y}.png", "http://[::1]:8081"),
    ])
    func tileTemplatesBecomeOneImageSource(template: String, source: String) {
        let policy = WebSecurityPolicy(tileURL: template)
        #expect(policy.tileSource == source)
        #expect(!policy.tilesRefused)
        #expect(policy.contentSecurityPolicy.contains("img-src 'self' \(source);"))
    }

    @Test(arguments: [
        "ftp://tile.example/{z}/{x}/{y}.png", "javascript:alert(1)", "//tile.example/{z}/{x}/{y}.png",
        "https://{s}/{z}/{x}/{y}.png", "https://tile.{s}/{z}.png", "https://tile.example:{port}/{z}.png",
        "https://tile.example:99999999/{z}.png", "https://evil.example; script-src */{z}.png",
        "https://evil.example'/{z}.png", "https://a b/{z}.png", "https:///{z}.png", "https://[zz]/{z}.png",
        "https://tile..example/{z}.png",
    ])
    func templatesNoSourceCanDescribeAreRefused(template: String) {
        let policy = WebSecurityPolicy(tileURL: template)
        #expect(policy.tilesRefused)
        #expect(policy.tileSource == nil)
        #expect(policy.contentSecurityPolicy.contains("img-src 'self';"))
        #expect(!policy.contentSecurityPolicy.contains("evil"))
    }

    @Test func sameOriginAndAbsentTilesAddNoSource() {
        for template in [nil, "", "/tiles/{z}/{x}/{y}.png"] {
            let policy = WebSecurityPolicy(tileURL: template)
            #expect(policy.tileSource == nil && !policy.tilesRefused, "\(String(describing: template))")
        }
    }

    @Test func aRefusedTemplateIsNotHandedToThePage() throws {
        let refused = Self.shippedAssets(tileURL: "https://{s}/{z}/{x}/{y}.png")
        let allowed = Self.shippedAssets(tileURL: "https://{s}.tile.example/{z}/{x}/{y}.png")
        func tileURL(_ assets: WebAssets) throws -> JSONValue? {
            try JSONParser.parse(assets.files["config.json"]?.bytes ?? [])["tileURL"]
        }
        #expect(try tileURL(refused) == .null)
        #expect(try tileURL(allowed)?.stringValue == "https://{s}.tile.example/{z}/{x}/{y}.png")
        try Self.serving(allowed) { (client: HTTPTestClient) throws in
            #expect(try client.get("/static/app.js").header("Content-Security-Policy")?.contains("img-src 'self' https://*.tile.example;") == true)
        }
    }

    /// The QR code encoder (Debian's node-qrcode-generator) is served as a script, with the
    /// headers of every asset, when installed, and config.json says so; without it, 404.
    @Test func theQRCodeEncoderIsServedWhenInstalled() throws {
        let directory = NSTemporaryDirectory() + "fod-qrcode-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = "var qrcode = function() { return null; };\n"
        try script.write(toFile: directory + "/qrcode.js", atomically: true, encoding: .utf8)
        let installed = Self.shippedAssets(qrcodeDirectory: directory)
        #expect(installed.hasQRCode)
        #expect(try JSONParser.parse(installed.files["config.json"]?.bytes ?? [])["qrcode"] == .bool(true))
        try Self.serving(installed) { (client: HTTPTestClient) throws in
            let reply = try client.get("/vendor/qrcode/qrcode.js")
            #expect(reply.status == 200 && reply.text == script)
            #expect(reply.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(reply.header("Content-Security-Policy") == installed.security.contentSecurityPolicy)
            for (name, value) in Self.expectedHeaders { #expect(reply.header(name) == value, "\(name)") }
        }
        let missing = Self.shippedAssets()
        #expect(!missing.hasQRCode)
        #expect(try JSONParser.parse(missing.files["config.json"]?.bytes ?? [])["qrcode"] == .bool(false))
        try Self.serving(missing) { (client: HTTPTestClient) throws in
            #expect(try client.get("/vendor/qrcode/qrcode.js").status == 404)
        }
    }

    @Test func onlyFilesFoundAtStartAreServed() throws {
        try Self.serving(Self.shippedAssets()) { (client: HTTPTestClient) throws in
            for path in ["/static/..%2FPackage.swift", "/static/%2E%2E", "/static/nope.js", "/vendor/leaflet/leaflet.js"] {
                #expect(try client.get(path).status == 404, "\(path)")
            }
        }
    }
}
