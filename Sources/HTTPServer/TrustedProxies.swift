/// The proxies whose word on a request's origin the server takes: a request from one of them
/// comes from the address its `X-Forwarded-For` names (as nginx's `real_ip_recursive` and
/// Express's "trust proxy" read it); from anyone else, from its TCP peer, whatever it sends.
///
/// Each proxy appends the address it got the request from, so the list is read from the right:
/// entries are skipped while they are trusted proxies themselves, and the first one that is not
/// is the client. A malformed entry stops the walk at the last address read (a client may
/// write anything at the left of the list; a trusted proxy writes its peer correctly).
public struct TrustedProxies: Sendable, Equatable {
    /// The trusted blocks; empty trusts no one (the TCP peer is always the client).
    public let networks: [IPNetwork]

    /// Entries of `X-Forwarded-For` read at most, from the right: no real chain of proxies is
    /// longer, and the walk costs nothing more whatever a client sends.
    public static let maxHops = 16

    public init(_ networks: [IPNetwork] = []) {
        self.networks = networks
    }

    /// Parses a comma-separated list of addresses and blocks (`127.0.0.1, 10.0.0.0/8, ::1`);
    /// nil when an entry is not one.
    public init?(list: String) {
        var networks: [IPNetwork] = []
        for entry in list.split(separator: ",") {
            guard let network = IPNetwork(Self.trimmed(entry)) else { return nil }
            networks.append(network)
        }
        self.init(networks)
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func trusts(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The client of a request that arrived from `peer` with these `X-Forwarded-For` values
    /// (every such header's value, in arrival order).
    public func client(peer: IPAddress, forwardedFor values: [String]) -> IPAddress {
        guard trusts(peer), !values.isEmpty else { return peer }
        var client = peer
        var read = 0
        for value in values.reversed() {
            // Entries from the right, without splitting the whole value: only the last
            // `maxHops` are ever read, however long the list.
            var rest = Substring(value)
            var more = true
            while more {
                let entry: Substring
                if let comma = rest.lastIndex(of: ",") {
                    entry = rest[rest.index(after: comma)...]
                    rest = rest[..<comma]
                } else {
                    entry = rest
                    more = false
                }
                guard read < Self.maxHops, let address = Self.forwardedAddress(entry) else { return client }
                read += 1
                client = address
                if !trusts(address) { return client }
            }
        }
        return client
    }

    /// One entry of `X-Forwarded-For`: an address, `[ipv6]`, `[ipv6]:port` or `ipv4:port`.
    static func forwardedAddress(_ entry: Substring) -> IPAddress? {
        let text = trimmed(entry)
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return nil }
            return IPAddress(text[text.index(after: text.startIndex)..<close])
        }
        if let address = IPAddress(text) { return address }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let host = parts.first, let port = parts.last, Self.isPort(":" + port),
              let v4 = IPAddress.parseIPv4(Array(host.utf8)[...]) else { return nil }
        return IPAddress(ipv4: v4)
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }

    /// `:` and 1–5 digits.
    private static func isPort(_ text: some StringProtocol) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.utf8.first == UInt8(ascii: ":") && (1...5).contains(digits.count)
            && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
