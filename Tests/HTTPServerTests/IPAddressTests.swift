#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestRandom
@testable import HTTPServer

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("203.0.113.7", "203.0.113.7"),
        ("0.0.0.0", "0.0.0.0"),
        ("255.255.255.255", "255.255.255.255"),
        ("::", "::"),
        ("::1", "::1"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0db8:0000:0000:0000:ff00:0042:8329", "2001:db8::ff00:42:8329"),
        ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
        ("1:0:3:4:5:6:7:8", "1:0:3:4:5:6:7:8"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("fe80::", "fe80::"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("::192.0.2.1", "::c000:201"),
        ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
    ])
    func parsesAndWritesCanonically(_ text: String, _ canonical: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == canonical)
        #expect(IPAddress(canonical) == address)
    }

    @Test(arguments: [
        "", " ", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.04", "1..3.4", "1.2.3.4 ", "-1.2.3.4",
        ":", ":::", "1:2", "1:", ":1", "1::2::3", "1:::2", "12345::", "g::", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1.2.3.4::", "::1.2.3", "::256.0.0.1", "1:2:3:4:5:6:7:1.2.3.4",
        "fe80::1%eth0", "[::1]", "unknown", "::ffff:01.2.3.4",
    ])
    func refusesWhatIsNoAddress(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    /// Random addresses written in every way the grammar allows parse back to themselves, and
    /// the parser accepts exactly what glibc's `inet_pton` does, with the same bytes.
    @Test func agreesWithInetPton() {
        var random = SplitMix64(seed: 2026_12_06)
        let alphabet = Array("0123456789abcdefABCDEF:.:.::1f0".utf8)
        for round in 0..<20_000 {
            var text: String
            if round % 2 == 0 {
                // A real address, written with random zero runs compressed and random case.
                let groups = (0..<8).map { _ in random.next() % 3 == 0 ? UInt16(0) : UInt16(truncatingIfNeeded: random.next() >> (random.next() % 16)) }
                var parts = groups.map { String($0, radix: 16) }
                if random.next() % 2 == 0, let start = (0..<8).randomElement(using: &random) {
                    let end = min(8, start + Int(random.next() % 4))
                    if (start..<end).allSatisfy({ groups[$0] == 0 }), end > start {
                        parts.replaceSubrange(start..<end, with: [""])
                        if start == 0 { parts.insert("", at: 0) }
                        if end == 8 { parts.append("") }
                    }
                }
                text = parts.joined(separator: ":")
                if random.next() % 3 == 0 { text = text.uppercased() }
            } else {
                let length = Int(random.next() % 20)
                text = String(decoding: (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
            }
            let ours = IPAddress(text)
            #expect(ours == Self.inetPton(text), "\(text)")
            if let ours { #expect(IPAddress(ours.description) == ours, "\(text)") }
        }
    }

    static func inetPton(_ text: String) -> IPAddress? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return IPAddress(ipv4: UInt32(bigEndian: v4.s_addr)) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: &v6) { IPAddress(ipv6Bytes: $0) }
    }

    @Test func limitKeysGroupAnIPv6NetworkAndKeepIPv4Apart() throws {
        #expect(try #require(IPAddress("203.0.113.7")).limitKey == "203.0.113.7")
        #expect(try #require(IPAddress("::ffff:203.0.113.7")).limitKey == "203.0.113.7")
        let a = try #require(IPAddress("2001:db8:1:2:aaaa::1"))
        let b = try #require(IPAddress("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        let c = try #require(IPAddress("2001:db8:1:3::1"))
        #expect(a.limitKey == "2001:db8:1:2::/64")
        #expect(a.limitKey == b.limitKey)
        #expect(a.limitKey != c.limitKey)
        #expect(try #require(IPAddress("::1")).limitKey == "::/64")
    }

    @Test func networksContainTheirMembersOnly() throws {
        func ip(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }
        func block(_ text: String) throws -> IPNetwork { try #require(IPNetwork(text)) }
        let ten = try block("10.0.0.0/8")
        #expect(try ten.contains(ip("10.255.1.2")))
        #expect(try !ten.contains(ip("11.0.0.1")))
        #expect(try !ten.contains(ip("a00::1")))  // IPv6 with the same top bits is not in an IPv4 block
        #expect(ten.description == "10.0.0.0/8")
        #expect(try block("10.1.2.3/8").description == "10.0.0.0/8")
        let one = try block("127.0.0.1")
        #expect(try one.contains(ip("127.0.0.1")))
        #expect(try !one.contains(ip("127.0.0.2")))
        let v6 = try block("2001:db8::/32")
        #expect(try v6.contains(ip("2001:db8:ffff::1")))
        #expect(try !v6.contains(ip("2001:db9::1")))
        #expect(try block("0.0.0.0/0").contains(ip("8.8.8.8")))
        #expect(try block("::/0").contains(ip("8.8.8.8")))
        for bad in ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "::/129", "/8", "10.0.0.0/0008", "x/1"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct TrustedProxiesTests {
    static let proxies = TrustedProxies(list: "127.0.0.1, 10.0.0.0/8,2001:db8:ffff::/48") ?? TrustedProxies()
    static func address(_ text: String) -> IPAddress { IPAddress(text) ?? IPAddress(high: 0, low: 0) }

    @Test(arguments: [
        // peer, X-Forwarded-For values, client
        ("198.51.100.1", ["203.0.113.7"], "198.51.100.1"),  // an untrusted peer's header is ignored
        ("127.0.0.1", [], "127.0.0.1"),
        ("127.0.0.1", ["203.0.113.7"], "203.0.113.7"),
        ("127.0.0.1", ["1.1.1.1, 203.0.113.7"], "203.0.113.7"),  // the client's own claim on the left is not taken
        ("127.0.0.1", ["203.0.113.7, 10.1.1.1"], "203.0.113.7"),  // through two trusted proxies
        ("127.0.0.1", ["203.0.113.7", "10.1.1.1"], "203.0.113.7"),  // the same list in two headers
        ("127.0.0.1", ["garbage, 203.0.113.7"], "203.0.113.7"),
        ("127.0.0.1", ["203.0.113.7, garbage"], "127.0.0.1"),  // a malformed last entry: the proxy itself
        ("127.0.0.1", ["203.0.113.7, unknown, 10.0.0.2"], "10.0.0.2"),
        ("127.0.0.1", ["10.0.0.3, 10.0.0.2"], "10.0.0.3"),  // only proxies: the farthest
        ("127.0.0.1", ["[2001:db8::7]:443"], "2001:db8::7"),
        ("127.0.0.1", ["[2001:db8::7]"], "2001:db8::7"),
        ("127.0.0.1", ["2001:db8::7"], "2001:db8::7"),
        ("127.0.0.1", ["203.0.113.7:5678"], "203.0.113.7"),
        ("127.0.0.1", ["  203.0.113.7\t"], "203.0.113.7"),
        ("127.0.0.1", ["203.0.113.7:99999999"], "127.0.0.1"),
        ("127.0.0.1", ["[2001:db8::7"], "127.0.0.1"),
        ("127.0.0.1", ["2001:db8:ffff:1::9, 203.0.113.7"], "203.0.113.7"),
        ("127.0.0.1", ["203.0.113.7, 2001:db8:ffff:1::9"], "203.0.113.7"),
        ("127.0.0.1", [""], "127.0.0.1"),
        ("127.0.0.1", [","], "127.0.0.1"),
    ])
    func namesTheClient(_ peer: String, _ forwarded: [String], _ client: String) {
        #expect(Self.proxies.networks.count == 3 && IPAddress(peer) != nil)
        #expect(Self.proxies.client(peer: Self.address(peer), forwardedFor: forwarded).description == client)
    }

    /// However long the list a client sends, at most `maxHops` entries are read.
    @Test func readsABoundedNumberOfEntries() {
        let chain = Array(repeating: "10.0.0.9", count: 10_000).joined(separator: ",")
        #expect(Self.proxies.client(peer: Self.address("127.0.0.1"), forwardedFor: ["203.0.113.7," + chain]).description == "10.0.0.9")
        let shortChain = Array(repeating: "10.0.0.9", count: TrustedProxies.maxHops - 1).joined(separator: ",")
        #expect(Self.proxies.client(peer: Self.address("127.0.0.1"), forwardedFor: ["203.0.113.7," + shortChain]).description == "203.0.113.7")
    }

    @Test func listsParseOrFailWhole() {
        #expect(TrustedProxies(list: "")?.isEmpty == true)
        #expect(TrustedProxies(list: "127.0.0.1,nope") == nil)
        #expect(TrustedProxies(list: "10.0.0.0/40") == nil)
        #expect(TrustedProxies(list: " ::1 , 192.168.0.0/16 ")?.networks.map(\.description) == ["::1/128", "192.168.0.0/16"])
    }
}
