import Foundation
import HTTPServer
import JSONCore

/// The web map's files, read once at start-up and served from memory: `Web/` (page, ES modules,
/// styles), the countries basemap and the demo region's shorelines from `Data/`, Leaflet from
/// Debian's `libjs-leaflet` and the QR code encoder from Debian's `node-qrcode-generator`
/// (`libjs-qrcode-generator`) when they are installed, and a `config.json` saying which map
/// to use and whether QR codes can be drawn. Only names found at start-up are
/// served, so a request path can never reach another file. Every answer carries the headers of
/// `WebSecurityPolicy` (CSP, no referrer, no framing, no sniffing).
public struct WebAssets: Sendable {
    public struct Configuration: Sendable {
        /// Directory with index.html and the scripts (the repository's `Web/`).
        public var webDirectory: String
        /// Directory with the shipped data (`Data/`), for the basemap.
        public var dataDirectory: String
        /// Where Debian installs Leaflet (`libjs-leaflet`).
        public var leafletDirectory = "/usr/share/javascript/leaflet"
        /// Where Debian installs the QR code encoder (`node-qrcode-generator`).
        public var qrcodeDirectory = "/usr/share/javascript/qrcode-generator"
        /// A tile URL template (`https://tile.example/{z}/{x}/{y}.png`), nil for no tiles.
        public var tileURL: String?
        /// Plain text shown with the tiles (never parsed as HTML).
        public var tileAttribution = ""

        public init(webDirectory: String, dataDirectory: String) {
            self.webDirectory = webDirectory
            self.dataDirectory = dataDirectory
        }
    }

    struct Asset: Sendable { let contentType: String; let bytes: [UInt8] }

    let index: Asset?
    /// The share-link page (`Web/share.html`), served at `/s/{token}` by `ShareRoutes`.
    let sharePage: Asset?
    let files: [String: Asset]
    let vendor: [String: Asset]
    /// `qrcode.js` of `node-qrcode-generator`, nil when it is not installed.
    let qrcode: Asset?
    /// The headers sent with every file; its `tileSource` decides whether tiles are used.
    public let security: WebSecurityPolicy

    public init(_ configuration: Configuration) {
        func load(_ path: String) -> Asset? {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return Asset(contentType: Self.contentType(of: path), bytes: Array(data))
        }
        index = load(configuration.webDirectory + "/index.html")
        sharePage = load(configuration.webDirectory + "/share.html")
        var files: [String: Asset] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: configuration.webDirectory)) ?? []
        where !name.hasSuffix(".html") && !name.hasPrefix(".") {
            files[name] = load(configuration.webDirectory + "/" + name)
        }
        files["countries-110m.geojson"] = load(configuration.dataDirectory + "/countries-110m.geojson")
        files["shoreline-ny-harbor.geojson"] = load(configuration.dataDirectory + "/shoreline-ny-harbor.geojson")
        var vendor: [String: Asset] = [:]
        for name in ["leaflet.js", "leaflet.css"] {
            vendor[name] = load(configuration.leafletDirectory + "/" + name)
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: configuration.leafletDirectory + "/images")) ?? [] {
            vendor["images/" + name] = load(configuration.leafletDirectory + "/images/" + name)
        }
        let leaflet = vendor["leaflet.js"] != nil && vendor["leaflet.css"] != nil
        let qrcode = load(configuration.qrcodeDirectory + "/qrcode.js")
        let security = WebSecurityPolicy(tileURL: configuration.tileURL)
        // A template the CSP cannot allow is not handed to the page: no tiles rather than every
        // tile blocked.
        let tileURL = security.tilesRefused ? nil : configuration.tileURL.flatMap { $0.isEmpty ? nil : $0 }
        let config: JSONValue = ["leaflet": .bool(leaflet), "qrcode": .bool(qrcode != nil),
                                 "tileURL": tileURL.map { .string($0) } ?? .null,
                                 "tileAttribution": .string(configuration.tileAttribution)]
        files["config.json"] = Asset(contentType: "application/json; charset=utf-8", bytes: config.serialized())
        self.files = files
        self.vendor = leaflet ? vendor : [:]
        self.qrcode = qrcode
        self.security = security
    }

    /// Whether the page itself was found (the server still runs without it).
    public var hasPage: Bool { index != nil }
    public var hasLeaflet: Bool { !vendor.isEmpty }
    public var hasQRCode: Bool { qrcode != nil }

    var routes: [Route] {
        let assets = self
        return [
            Route("GET", "/", .inline { _ in
                guard let index = assets.index else { throw HTTPError(status: 404, code: .notFound, message: "the web map is not installed (Web/ missing)") }
                return assets.response(index)
            }),
            Route("GET", "/static/{file}", .inline { request in
                guard let asset = assets.files[request.parameter("file")] else { throw HTTPError.notFound(request.path) }
                return assets.response(asset)
            }),
            Route("GET", "/vendor/leaflet/{file}", .inline { request in
                guard let asset = assets.vendor[request.parameter("file")] else { throw HTTPError.notFound(request.path) }
                return assets.response(asset)
            }),
            Route("GET", "/vendor/qrcode/qrcode.js", .inline { request in
                guard let asset = assets.qrcode else { throw HTTPError.notFound(request.path) }
                return assets.response(asset)
            }),
            Route("GET", "/vendor/leaflet/images/{file}", .inline { request in
                guard let asset = assets.vendor["images/" + request.parameter("file")] else { throw HTTPError.notFound(request.path) }
                return assets.response(asset)
            }),
        ]
    }

    func response(_ asset: Asset, status: Int = 200) -> Response {
        var response = Response(status: status, contentType: asset.contentType, bytes: asset.bytes)
        response.setHeader("Cache-Control", "no-cache")
        security.apply(to: &response)
        return response
    }

    static func contentType(of path: String) -> String {
        switch path.split(separator: ".").last.map(String.init) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"  // module scripts load only with a JavaScript type
        case "css": "text/css; charset=utf-8"
        case "geojson": "application/geo+json"
        case "json": "application/json; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
