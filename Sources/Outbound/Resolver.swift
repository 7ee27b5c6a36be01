import Glibc

/// One address a host name resolved to.
public struct ResolvedAddress: Sendable, Equatable, CustomStringConvertible {
    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public var isIPv6: Bool { bytes.count == 16 }

    /// The address as text (`203.0.113.7`, `2001:db8::1`), as curl's `--resolve` takes it.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv6 ? AF_INET6 : AF_INET
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) != nil }
        guard ok else { return "?" }
        return text.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

/// Host name resolution, once per attempt: the addresses are checked and the connection is
/// pinned to the one chosen, so a name that resolves differently a moment later (DNS
/// rebinding) cannot move the connection to a forbidden address.
public enum Resolver {
    public enum Failure: Error, Sendable, Equatable {
        case unknownHost(String)
    }

    /// The host's addresses in the resolver's order (a literal address is returned as is).
    public static func resolve(_ host: String, port: Int) throws(Failure) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw .unknownHost(host) }
        defer { freeaddrinfo(first) }
        var addresses: [ResolvedAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let sockaddr = current.pointee.ai_addr {
                switch current.pointee.ai_family {
                case AF_INET:
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(ResolvedAddress(bytes: withUnsafeBytes(of: address) { Array($0) }))
                case AF_INET6:
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(ResolvedAddress(bytes: withUnsafeBytes(of: address) { Array($0) }))
                default: break
                }
            }
            node = current.pointee.ai_next
        }
        var unique: [ResolvedAddress] = []
        for address in addresses where !unique.contains(address) { unique.append(address) }
        guard !unique.isEmpty else { throw .unknownHost(host) }
        return unique
    }
}
