import HTTPServer

/// The headers that lock the web map down, sent with the page and every one of its assets.
///
/// The page runs only its own files: scripts, styles, fetches and the live feed from the same
/// origin, no inline script or handler, no `eval`, and Trusted Types required, so a string can
/// never reach `innerHTML` or a script URL (the scripts loaded at run time, Leaflet and the QR
/// code encoder, go through the page's `fod-vendor` policy, which creates those URLs only). Images come from the same origin, plus the tile
/// server when `--tile-url` is set. The page cannot be framed and sends no referrer.
///
/// Invariant: `contentSecurityPolicy` contains only characters of the directives written here
/// and of `tileSource`, which holds a scheme, a host (letters, digits, `-`, `.`, a leading `*.`,
/// or a bracketed IPv6 address) and an optional port: nothing from the tile template can add a
/// directive or a second source.
public struct WebSecurityPolicy: Sendable {
    /// The CSP source tiles are loaded from (`https://*.tile.example`), nil when tiles come from
    /// the same origin or there are none.
    public let tileSource: String?
    /// Whether the tile template was refused because no CSP source can describe it (the map
    /// then runs without tiles rather than being blocked tile by tile).
    public let tilesRefused: Bool
    public let contentSecurityPolicy: String

    /// - Parameter tileURL: the `--tile-url` template (`https://{s}.tile.example/{z}/{x}/{y}.png`),
    ///   nil or empty for no tiles.
    public init(tileURL: String?) {
        var source: String?
        var refused = false
        if let tileURL, !tileURL.isEmpty {
            switch Self.tileOrigin(of: tileURL) {
            case .sameOrigin: source = nil
            case .source(let value): source = value
            case .unusable: refused = true
            }
        }
        tileSource = source
        tilesRefused = refused
        let images = ["'self'"] + (source.map { [$0] } ?? [])
        contentSecurityPolicy = [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src " + images.joined(separator: " "),
            "connect-src 'self'",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
            "require-trusted-types-for 'script'",
            "trusted-types fod-vendor",
        ].joined(separator: "; ")
    }

    /// The headers, in the order they are sent.
    public var headers: [(name: String, value: String)] {
        [
            ("Content-Security-Policy", contentSecurityPolicy),
            ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
        ]
    }

    func apply(to response: inout Response) {
        for (name, value) in headers { response.setHeader(name, value) }
    }

    enum TileOrigin: Equatable {
        /// A path on this server (`/tiles/{z}/{x}/{y}.png`): `'self'` covers it.
        case sameOrigin
        /// The CSP source that matches every URL the template expands to.
        case source(String)
        /// Not a URL a CSP source can describe (another scheme, a placeholder in the port or
        /// the last host label, characters a host cannot have).
        case unusable
    }

    /// Where the tiles of `template` come from. Placeholders (`{s}`, `{r}`, …) in the host
    /// become a wildcard over the labels they are in: `https://{s}.tile.example` and
    /// `https://tile-{s}.maps.example` give `https://*.tile.example` and `https://*.maps.example`.
    static func tileOrigin(of template: String) -> TileOrigin {
        if template.hasPrefix("/") && !template.hasPrefix("//") { return .sameOrigin }
        let lowered = template.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") { scheme = "https" } else if lowered.hasPrefix("http://") { scheme = "http" } else {
            return .unusable
        }
        let afterScheme = template.dropFirst(scheme.count + 3)
        var authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard let hostAndPort = splitHostAndPort(authority), let host = wildcardHost(hostAndPort.host) else { return .unusable }
        if let port = hostAndPort.port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .unusable }
            return .source("\(scheme)://\(host):\(port)")
        }
        return .source("\(scheme)://\(host)")
    }

    private static func splitHostAndPort(_ authority: Substring) -> (host: Substring, port: Substring?)? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":") else { return nil }
            return (host, rest.dropFirst())
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, nil) }
        return (authority[..<colon], authority[authority.index(after: colon)...])
    }

    /// The host as a CSP host-source, placeholders turned into a leading `*.`; nil when the
    /// host has characters a host cannot have or no fixed label is left.
    private static func wildcardHost(_ host: Substring) -> String? {
        if host.hasPrefix("[") {
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return String(host)
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let lastTemplated = labels.lastIndex { $0.contains("{") || $0.contains("}") }
        let fixed = lastTemplated.map { labels[labels.index(after: $0)...] } ?? labels[...]
        guard !fixed.isEmpty, fixed.allSatisfy(isHostLabel) else { return nil }
        let name = fixed.joined(separator: ".").lowercased()
        return lastTemplated == nil ? name : "*." + name
    }

    private static func isHostLabel(_ label: Substring) -> Bool {
        !label.isEmpty && label.count <= 63 && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}
