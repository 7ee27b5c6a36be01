// fuzz-modules: HTTPServer
// fuzz-support: FuzzCheck
// fuzz-max-len: 512
//
// Client addresses: `IPAddress` and `IPNetwork` parsing (what `--trusted-proxies` and
// `X-Forwarded-For` entries go through) and `TrustedProxies.client`. The first input byte picks
// the entry point, the rest is the text. Invariants: nothing traps; an address is accepted
// exactly when glibc's `inet_pton` accepts it, with the same bits; its text parses back to it
// and is a fixed point; an IPv6 limit key is the /64 that holds it; a block holds its own
// address and its text parses back to it; the client named behind a trusted proxy is the peer,
// or an address read from the header, and never a proxy unless only proxies were listed.
import Glibc
@testable import HTTPServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIPAddress(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let text = String(decoding: input, as: UTF8.self)
    switch selector % 3 {
    case 0: address(text)
    case 1: network(text)
    default: forwarded(text)
    }
    return 0
}

func address(_ text: String) {
    let ours = IPAddress(text)
    let theirs = inetPton(text)
    require(ours == theirs, "IPAddress and inet_pton disagree on \(shown(text.utf8)): \(String(describing: ours)) vs \(String(describing: theirs))")
    guard let ours else { return }
    let written = ours.description
    require(IPAddress(written) == ours, "\(written) does not parse back")
    require(IPAddress(written)?.description == written, "\(written) is not canonical")
    if ours.isIPv4 {
        require(ours.limitKey == written, "IPv4 limit key \(ours.limitKey)")
    } else {
        let block = IPNetwork(ours.limitKey)
        require(block?.prefixLength == 64 && block?.contains(ours) == true, "limit key \(ours.limitKey) does not hold \(written)")
    }
}

func network(_ text: String) {
    guard let block = IPNetwork(text) else { return }
    require(block.contains(block.address), "\(block) does not hold its own address")
    require(IPNetwork(block.description) == block, "\(block) does not parse back")
    require((0...128).contains(block.prefixLength) && (!block.address.isIPv4 || block.prefixLength >= 96),
            "\(block): prefix \(block.prefixLength)")
}

/// The input as `X-Forwarded-For` values (split at newlines) behind proxies 10.0.0.0/8 and
/// 2001:db8::/32, from a trusted and from an untrusted peer.
func forwarded(_ text: String) {
    guard let proxies = TrustedProxies(list: "10.0.0.0/8,2001:db8::/32"), let proxy = IPAddress("10.0.0.1"),
          let stranger = IPAddress("198.51.100.1") else { return require(false, "fixed addresses") }
    let values = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    require(proxies.client(peer: stranger, forwardedFor: values) == stranger, "an untrusted peer's header was taken")
    let client = proxies.client(peer: proxy, forwardedFor: values)
    guard client != proxy else { return }
    let entries = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
    let named = entries.compactMap { TrustedProxies.forwardedAddress($0) }
    require(named.contains(client), "client \(client) is not in the header")
    if proxies.trusts(client) {
        require(named.suffix(TrustedProxies.maxHops).allSatisfy(proxies.trusts) || named.count < entries.count,
                "a proxy \(client) was named the client while the header listed others")
    }
}

func inetPton(_ text: String) -> IPAddress? {
    guard !text.utf8.contains(0) else { return nil }
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return IPAddress(ipv4: UInt32(bigEndian: v4.s_addr)) }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
    return withUnsafeBytes(of: &v6) { IPAddress(ipv6Bytes: $0) }
}
