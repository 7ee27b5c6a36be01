/// An IPv4 or IPv6 address: 128 bits in network order, an IPv4 address held as its
/// IPv4-mapped IPv6 form (`::ffff:a.b.c.d`) so that both families compare and mask alike.
///
/// Parsing is strict and total (it never traps, whatever the text): IPv4 is four decimal parts
/// of 0–255 without leading zeros; IPv6 is RFC 4291 text (1–4 hex digits a group, at most one
/// `::`, an optional dotted IPv4 tail), without a zone (`%eth0`). This is what glibc's
/// `inet_pton` accepts (`Fuzz/IPAddress.swift` checks the two agree).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The first and last 64 bits of the address, most significant byte first.
    public let high: UInt64
    public let low: UInt64

    /// The top 96 bits of an IPv4-mapped address: `0000:…:0000:ffff`, as `high` and the top half of `low`.
    private static let mappedLowPrefix: UInt64 = 0x0000_FFFF_0000_0000

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The IPv4 address `value` (most significant byte first), as IPv4-mapped IPv6.
    public init(ipv4 value: UInt32) {
        self.init(high: 0, low: Self.mappedLowPrefix | UInt64(value))
    }

    /// 16 bytes in network order (a `sin6_addr`).
    public init<Bytes: Collection>(ipv6Bytes bytes: Bytes) where Bytes.Element == UInt8 {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.prefix(16).enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Whether this is an IPv4 address (an IPv4-mapped IPv6 address counts as one).
    public var isIPv4: Bool { high == 0 && low >> 32 == Self.mappedLowPrefix >> 32 }

    /// Parses an IPv4 or IPv6 address; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        if let v4 = Self.parseIPv4(bytes[...]) {
            self.init(ipv4: v4)
        } else if let v6 = Self.parseIPv6(bytes[...]) {
            self = v6
        } else {
            return nil
        }
    }

    /// Dotted decimal for IPv4, else the RFC 5952 form: lower-case hex without leading zeros,
    /// the longest run of two or more zero groups (the first of equals) written `::`.
    public var description: String {
        if isIPv4 { return Self.dotted(UInt32(truncatingIfNeeded: low)) }
        return Self.ipv6Text(groups)
    }

    /// The key under which abuse limits count this client: an IPv4 address itself, an IPv6
    /// address by its /64 network (`2001:db8:1:2::/64`), the block one subscriber or host is
    /// given, so that stepping through its addresses does not reset a limit.
    public var limitKey: String {
        if isIPv4 { return description }
        return Self.ipv6Text(IPAddress(high: high, low: 0).groups) + "/64"
    }

    /// The eight 16-bit groups, most significant first.
    var groups: [UInt16] {
        (0..<8).map { index in
            let word = index < 4 ? high : low
            return UInt16(truncatingIfNeeded: word >> (UInt64(3 - index % 4) * 16))
        }
    }

    // MARK: Parsing

    /// Four decimal parts 0–255 separated by dots, no leading zeros, nothing else.
    static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var parts = 0
        var part: UInt32 = 0
        var digits = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, parts < 3 else { return nil }
                value = value << 8 | part
                parts += 1
                part = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if digits > 0, part == 0 { return nil }
                part = part * 10 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
                guard part <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard parts == 3, digits > 0 else { return nil }
        return value << 8 | part
    }

    /// RFC 4291 text: hex groups, at most one `::`, an optional IPv4 tail in the last 32 bits.
    static func parseIPv6(_ bytes: ArraySlice<UInt8>) -> IPAddress? {
        guard bytes.count >= 2, bytes.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var compressed = false
        var index = bytes.startIndex
        // A leading "::", else no leading colon.
        if bytes[index] == UInt8(ascii: ":") {
            guard bytes[index + 1] == UInt8(ascii: ":") else { return nil }
            compressed = true
            index += 2
            if index == bytes.endIndex { return IPAddress(high: 0, low: 0) }
        }
        while index < bytes.endIndex {
            // One group (or the IPv4 tail), then ":" or "::" or the end.
            var end = index
            while end < bytes.endIndex, bytes[end] != UInt8(ascii: ":") { end += 1 }
            let field = bytes[index..<end]
            var parsed: [UInt16]
            if field.contains(UInt8(ascii: ".")) {
                guard end == bytes.endIndex, let v4 = parseIPv4(field) else { return nil }
                parsed = [UInt16(truncatingIfNeeded: v4 >> 16), UInt16(truncatingIfNeeded: v4)]
            } else {
                guard let group = parseHexGroup(field) else { return nil }
                parsed = [group]
            }
            if compressed { tail += parsed } else { head += parsed }
            guard head.count + tail.count <= 8 else { return nil }
            if end == bytes.endIndex { break }
            // `end` is a colon: a separator, or the start of "::".
            index = end + 1
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") {
                guard !compressed else { return nil }
                compressed = true
                index += 1
                if index == bytes.endIndex { break }
            } else if index == bytes.endIndex {
                return nil
            }
        }
        let explicit = head.count + tail.count
        if compressed {
            guard explicit <= 7 else { return nil }
        } else {
            guard explicit == 8 else { return nil }
        }
        let all = head + [UInt16](repeating: 0, count: 8 - explicit) + tail
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (position, group) in all.enumerated() {
            if position < 4 { high = high << 16 | UInt64(group) } else { low = low << 16 | UInt64(group) }
        }
        return IPAddress(high: high, low: low)
    }

    /// 1–4 hex digits.
    private static func parseHexGroup(_ bytes: ArraySlice<UInt8>) -> UInt16? {
        guard (1...4).contains(bytes.count) else { return nil }
        var value: UInt16 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: Formatting

    private static func dotted(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    private static func ipv6Text(_ groups: [UInt16]) -> String {
        // The longest run of zero groups (length ≥ 2; the first of equal runs).
        var bestStart = -1
        var bestLength = 1
        var runStart = -1
        for position in 0...groups.count {
            if position < groups.count, groups[position] == 0 {
                if runStart < 0 { runStart = position }
            } else if runStart >= 0 {
                if position - runStart > bestLength {
                    bestStart = runStart
                    bestLength = position - runStart
                }
                runStart = -1
            }
        }
        func hex(_ range: Range<Int>) -> String {
            groups[range].map { String($0, radix: 16) }.joined(separator: ":")
        }
        guard bestStart >= 0 else { return hex(0..<groups.count) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<groups.count)
    }
}

/// An address block such as `10.0.0.0/8` or `2001:db8::/32`; a bare address is a block of one.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The block's first address (host bits zero).
    public let address: IPAddress
    /// Leading bits that every member shares, 0–128 (an IPv4 /n is stored as /96+n).
    public let prefixLength: Int

    /// Parses `address` or `address/length` (IPv4 lengths 0–32, IPv6 0–128); nil otherwise.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let base = IPAddress(first) else { return nil }
        let width = base.isIPv4 ? 32 : 128
        var length = width
        if parts.count == 2, let digits = parts.last {
            guard (1...3).contains(digits.count), digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let value = Int(digits), value <= width else { return nil }
            length = value
        }
        prefixLength = length + (128 - width)
        address = IPNetwork.masked(base, prefixLength: prefixLength)
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        IPNetwork.masked(candidate, prefixLength: prefixLength) == address
    }

    public var description: String {
        address.description + "/" + String(address.isIPv4 ? prefixLength - 96 : prefixLength)
    }

    private static func masked(_ address: IPAddress, prefixLength: Int) -> IPAddress {
        func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits)) }
        return IPAddress(high: address.high & mask(prefixLength), low: address.low & mask(prefixLength - 64))
    }
}
