/// Which network addresses a notification may be sent to (API.md "Destinations"): never a
/// loopback, private, link-local, multicast, unspecified (or otherwise reserved) address unless
/// private destinations are allowed — the guard against a server being made to reach into its
/// own network (server-side request forgery).
public struct AddressPolicy: Sendable, Equatable {
    /// Allow every address (`--notify-allow-private`: receivers on one's own network).
    public var allowPrivate: Bool

    public init(allowPrivate: Bool = false) { self.allowPrivate = allowPrivate }

    /// Whether an address may be connected to.
    public func allows(_ address: ResolvedAddress) -> Bool {
        allowPrivate || Self.isPublic(address.bytes)
    }

    /// Whether 4 (IPv4) or 16 (IPv6) network-order bytes name a public unicast address.
    public static func isPublic(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return isPublicV4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: return isPublicV6(bytes)
        default: return false
        }
    }

    static func isPublicV4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Bool {
        switch a {
        case 0: return false                                  // "this network", unspecified
        case 10: return false                                 // private
        case 100 where (64...127).contains(b): return false   // shared address space (carrier NAT)
        case 127: return false                                // loopback
        case 169 where b == 254: return false                 // link-local
        case 172 where (16...31).contains(b): return false    // private
        case 192 where b == 0 && (c == 0 || c == 2): return false   // IETF protocol assignments, TEST-NET-1
        case 192 where b == 168: return false                 // private
        case 198 where b == 18 || b == 19: return false       // benchmarking
        case 198 where b == 51 && c == 100: return false      // TEST-NET-2
        case 203 where b == 0 && c == 113: return false       // TEST-NET-3
        case 224...255: return false                          // multicast, reserved, broadcast
        default: return true
        }
    }

    static func isPublicV6(_ b: [UInt8]) -> Bool {
        if b[0..<10].allSatisfy({ $0 == 0 }) {
            // IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address it is.
            if b[10] == 0xff && b[11] == 0xff { return isPublicV4(b[12], b[13], b[14], b[15]) }
            // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d.
            if b[10] == 0 && b[11] == 0 { return false }
        }
        if b[0] == 0xff { return false }                                  // multicast
        if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return false }         // link-local fe80::/10
        if b[0] == 0xfe && (b[1] & 0xc0) == 0xc0 { return false }         // site-local fec0::/10 (deprecated)
        if (b[0] & 0xfe) == 0xfc { return false }                         // unique local fc00::/7
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return false }   // documentation 2001:db8::/32
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b { return false }   // NAT64 64:ff9b::/96 reaches IPv4
        if b[0] == 0x20 && b[1] == 0x02 { return false }                  // 6to4 2002::/16 embeds IPv4
        if b[0] == 0x01 && b[1...7].allSatisfy({ $0 == 0 }) { return false }   // discard-only 100::/64
        return true
    }
}
