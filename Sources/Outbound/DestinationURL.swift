/// An `http` or `https` URL a notification may be sent to, taken apart once.
///
/// Rules (API.md "Destinations"): the scheme is `http` or `https`; the URL has a host; it has no
/// user information (credentials travel in headers, never in a URL that may be logged); at most
/// 2,048 bytes; no spaces or control characters.
public struct DestinationURL: Sendable, Equatable, CustomStringConvertible {
    public let scheme: String
    /// The host as written, lower-cased, without IPv6 brackets.
    public let host: String
    /// The port (the scheme's default when none is written).
    public let port: Int
    /// Everything from the first `/`, `?` or `#` after the authority ("" when none).
    public let rest: String
    /// The URL as given.
    public let text: String

    public static let maxLength = 2_048

    public enum Problem: Error, Sendable, Equatable {
        case notHTTP, tooLong, noHost, userInfo, badPort, badCharacter
    }

    public init(_ text: String) throws(Problem) {
        guard text.utf8.count <= Self.maxLength else { throw .tooLong }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7f }) else { throw .badCharacter }
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { throw .notHTTP }
        let afterScheme = text.utf8.dropFirst(scheme.utf8.count + 3)
        let authorityEnd = afterScheme.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? afterScheme.endIndex
        let authority = String(decoding: afterScheme[afterScheme.startIndex..<authorityEnd], as: UTF8.self)
        let rest = String(decoding: afterScheme[authorityEnd...], as: UTF8.self)
        guard !authority.contains("@") else { throw .userInfo }
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .noHost }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badPort }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .noHost }
        var port = scheme == "https" ? 443 : 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                  (1...65_535).contains(value) else { throw .badPort }
            port = value
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.rest = rest
        self.text = text
    }

    public var description: String { text }
}
