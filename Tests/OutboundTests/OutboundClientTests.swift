import Testing
import Timestamps
import ReceiverTestSupport
@testable import Outbound

@Suite struct DestinationURLTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let url: String
        let expected: Result<String, DestinationURL.Problem>
        var testDescription: String { url }
    }

    /// `expected`: "scheme host port rest" or the problem.
    static let rows: [Row] = [
        Row(url: "https://ntfy.example/family", expected: .success("https ntfy.example 443 /family")),
        Row(url: "http://192.168.1.10:8123/api/webhook/fod", expected: .success("http 192.168.1.10 8123 /api/webhook/fod")),
        Row(url: "HTTPS://Hooks.Example.ORG?x=1", expected: .success("https hooks.example.org 443 ?x=1")),
        Row(url: "http://[2001:db8::1]:8080/x", expected: .success("http 2001:db8::1 8080 /x")),
        Row(url: "ftp://example.org/", expected: .failure(.notHTTP)),
        Row(url: "file:///etc/passwd", expected: .failure(.notHTTP)),
        Row(url: "https://user:pass@example.org/", expected: .failure(.userInfo)),
        Row(url: "https://:443/", expected: .failure(.noHost)),
        Row(url: "https://example.org:0/", expected: .failure(.badPort)),
        Row(url: "https://example.org:99999/", expected: .failure(.badPort)),
        Row(url: "https://example.org:+80/", expected: .failure(.badPort)),
        Row(url: "https://exa mple.org/", expected: .failure(.badCharacter)),
        Row(url: "https://example.org/\u{7f}", expected: .failure(.badCharacter)),
        Row(url: "https://example.org/" + String(repeating: "a", count: 2_100), expected: .failure(.tooLong)),
    ]

    @Test(arguments: rows)
    func parses(_ row: Row) {
        let parsed = Result { () throws(DestinationURL.Problem) -> String in
            let url = try DestinationURL(row.url)
            return "\(url.scheme) \(url.host) \(url.port) \(url.rest)"
        }
        #expect(parsed == row.expected)
    }
}

@Suite struct AddressPolicyTests {
    static func v4(_ text: String) -> [UInt8] { text.split(separator: ".").compactMap { UInt8($0) } }

    @Test(arguments: [
        ("127.0.0.1", false), ("10.1.2.3", false), ("172.16.0.1", false), ("172.31.255.255", false), ("172.32.0.1", true),
        ("192.168.1.1", false), ("169.254.169.254", false), ("100.64.0.1", false), ("0.0.0.0", false), ("224.0.0.1", false),
        ("255.255.255.255", false), ("240.0.0.1", false), ("198.51.100.7", false), ("8.8.8.8", true), ("93.184.216.34", true),
    ])
    func ipv4(_ address: String, _ allowed: Bool) {
        #expect(AddressPolicy.isPublic(Self.v4(address)) == allowed)
        #expect(AddressPolicy(allowPrivate: true).allows(ResolvedAddress(bytes: Self.v4(address))))
    }

    @Test func ipv6() {
        func bytes(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] } }
        #expect(!AddressPolicy.isPublic(bytes([0, 0, 0, 0, 0, 0, 0, 1])))                       // ::1
        #expect(!AddressPolicy.isPublic(bytes([0, 0, 0, 0, 0, 0, 0, 0])))                       // ::
        #expect(!AddressPolicy.isPublic(bytes([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1])))            // ::ffff:127.0.0.1
        #expect(!AddressPolicy.isPublic(bytes([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1])))            // ::ffff:10.0.0.1
        #expect(AddressPolicy.isPublic(bytes([0, 0, 0, 0, 0, 0xffff, 0x0808, 0x0808])))         // ::ffff:8.8.8.8
        #expect(!AddressPolicy.isPublic(bytes([0xfe80, 0, 0, 0, 0, 0, 0, 1])))                 // link-local
        #expect(!AddressPolicy.isPublic(bytes([0xfd00, 0, 0, 0, 0, 0, 0, 1])))                 // unique local
        #expect(!AddressPolicy.isPublic(bytes([0xff02, 0, 0, 0, 0, 0, 0, 1])))                 // multicast
        #expect(!AddressPolicy.isPublic(bytes([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1])))             // documentation
        #expect(!AddressPolicy.isPublic(bytes([0x64, 0xff9b, 0, 0, 0, 0, 0x7f00, 1])))         // NAT64 of 127.0.0.1
        #expect(AddressPolicy.isPublic(bytes([0x2a00, 0x1450, 0x4001, 0x80b, 0, 0, 0, 0x200e])))
    }
}

@Suite struct RetryAfterTests {
    @Test func deltaSecondsAndHTTPDates() {
        let now: Int64 = 784_111_777_000   // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.seconds("120", now: now) == 120)
        #expect(RetryAfter.seconds("0", now: now) == 0)
        #expect(RetryAfter.seconds("9999999999", now: now) == RetryAfter.maxSeconds)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == 60)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:40:37 GMT", now: now) == 0)
        #expect(RetryAfter.seconds("-5", now: now) == nil)
        #expect(RetryAfter.seconds("soon", now: now) == nil)
        #expect(RetryAfter.seconds("Sun, 06 Foo 1994 08:50:37 GMT", now: now) == nil)
    }
}

/// The client against a real HTTP receiver on loopback.
@Suite struct OutboundClientTests {
    static func client(allowPrivate: Bool = true, totalMilliseconds: Int = 10_000) -> OutboundClient {
        var configuration = OutboundClient.Configuration()
        configuration.policy = AddressPolicy(allowPrivate: allowPrivate)
        configuration.totalTimeoutMilliseconds = totalMilliseconds
        return OutboundClient(configuration: configuration)
    }

    @Test func postsHeadersAndBodyAndReadsTheAnswer() throws {
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script([.init(status: 429, headers: [("Retry-After", "30")], body: Array("slow down".utf8))])
        let request = OutboundRequest(url: try DestinationURL(receiver.url("/hook")), headers: [("Content-Type", "application/json"), ("X-Test", "1")],
                                      body: Array(#"{"a":1}"#.utf8))
        let answer = try Self.client().send(request).get()
        #expect(answer.status == 429 && answer.retryAfterSeconds == 30 && answer.body == Array("slow down".utf8))
        let got = try #require(receiver.next())
        #expect(got.method == "POST" && got.path == "/hook" && got.text == #"{"a":1}"#)
        #expect(got.header("X-Test") == "1" && got.header("Content-Type") == "application/json")
    }

    @Test func readsAtMostTheCapOfAnAnswer() throws {
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script([.init(status: 200, body: [UInt8](repeating: 65, count: 200_000))])
        let answer = try Self.client().send(OutboundRequest(url: try DestinationURL(receiver.url()))).get()
        #expect(answer.status == 200 && answer.body.count == 64 * 1024)
    }

    @Test func doesNotFollowRedirects() throws {
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        receiver.script([.init(status: 302, headers: [("Location", receiver.url("/elsewhere"))])])
        let answer = try Self.client().send(OutboundRequest(url: try DestinationURL(receiver.url("/first")))).get()
        #expect(answer.status == 302)
        _ = receiver.next()
        #expect(receiver.next(timeout: 0.5) == nil)
        #expect(receiver.all.map(\.path) == ["/first"])
    }

    @Test func aReceiverThatHangsTimesOut() throws {
        let receiver = try LocalReceiver()
        let gate = ReceiverGate()
        defer { gate.open(); receiver.close() }
        receiver.script([.init(status: 200, hold: gate)])
        let result = Self.client(totalMilliseconds: 300).send(OutboundRequest(url: try DestinationURL(receiver.url())))
        #expect(result == .failure(.timedOut))
    }

    @Test func loopbackIsRefusedUnlessPrivateDestinationsAreAllowed() throws {
        let receiver = try LocalReceiver()
        defer { receiver.close() }
        let result = Self.client(allowPrivate: false).send(OutboundRequest(url: try DestinationURL(receiver.url())))
        guard case .failure(.destinationNotAllowed) = result else {
            Issue.record("expected a refusal, got \(result)")
            return
        }
        #expect(receiver.next(timeout: 0.3) == nil)
        // A name that resolves to loopback is refused the same way (the address decides, not the name).
        let named = Self.client(allowPrivate: false).send(OutboundRequest(url: try DestinationURL("http://localhost:\(receiver.port)/")))
        guard case .failure(.destinationNotAllowed) = named else {
            Issue.record("expected a refusal, got \(named)")
            return
        }
    }

    @Test func aClosedPortIsAConnectionFailure() throws {
        let receiver = try LocalReceiver()
        let url = try DestinationURL(receiver.url())
        receiver.close()
        guard case .failure(.connectionFailed) = Self.client().send(OutboundRequest(url: url)) else {
            Issue.record("expected a connection failure")
            return
        }
    }
}
