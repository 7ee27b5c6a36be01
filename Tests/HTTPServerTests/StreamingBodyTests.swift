import Foundation
import Synchronization
import Testing
import HTTPTestSupport
@testable import HTTPServer

/// Streamed request bodies (`Handler.streaming`): bounded buffering against a slow reader, the
/// body limit, refusal before the body, early replies.
/// The largest backlog a handler's stream held.
final class PeakBacklog: Sendable {
    private let bytes = Mutex(0)
    func note(_ value: Int) { bytes.withLock { $0 = max($0, value) } }
    var value: Int { bytes.withLock { $0 } }
}

@Suite struct StreamingBodyTests {
    /// A route that reads the body slowly (a yield per chunk) and answers its length and a
    /// checksum; it records the largest backlog its stream held.
    static func countingRoute(peak: PeakBacklog, refuse: Bool = false) -> Route {
        Route("POST", "/upload", maxBodyBytes: 64 << 20, .streaming { request in
            if refuse || request.header("authorization") == nil {
                throw HTTPError(status: 401, code: .unauthenticated, message: "no token")
            }
            return { _, body in
                var count = 0
                var sum: UInt64 = 0
                while let chunk = try await body.next() {
                    count += chunk.count
                    for byte in chunk { sum = sum &* 31 &+ UInt64(byte) }
                    await Task.yield()
                }
                peak.note(body.peakBufferedByteCount)
                return Response(status: 200, contentType: "text/plain", bytes: Array("\(count) \(sum)".utf8))
            }
        })
    }

    static func payload(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 &* 31 &+ UInt64($1) }
    }

    @Test func aLargeBodyArrivesWholeWithTheBacklogBounded() throws {
        let peak = PeakBacklog()
        try withTestServer(configure: { $0.streamingBodyBufferBytes = 256 * 1024 }, extraRoutes: [Self.countingRoute(peak: peak)]) { server in
            let body = Self.payload(6 << 20)
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 60)
            let reply = try client.request("POST", "/upload", headers: ["Authorization": "Bearer x"], body: body)
            #expect(reply.status == 200)
            #expect(reply.text == "\(body.count) \(Self.checksum(body))")
            // The capacity plus what one read of the connection can add after it filled.
            #expect(peak.value <= 256 * 1024 + 64 * 1024)
            // The connection stays usable.
            #expect(try client.get("/hello").text == "hi")
        }
    }

    @Test func aChunkedBodyIsStreamedToo() throws {
        let peak = PeakBacklog()
        try withTestServer(extraRoutes: [Self.countingRoute(peak: peak)]) { server in
            let body = Self.payload(1 << 20)
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 60)
            var head = "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\nTransfer-Encoding: chunked\r\n\r\n"
            try client.send(head)
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + 100_000)
                head = String(end - offset, radix: 16) + "\r\n"
                try client.send(Array(head.utf8) + body[offset..<end] + [13, 10])
                offset = end
            }
            try client.send("0\r\n\r\n")
            let reply = try client.readReply(method: "POST")
            #expect(reply.status == 200)
            #expect(reply.text == "\(body.count) \(Self.checksum(body))")
        }
    }

    @Test func aRefusedRequestIsAnsweredBeforeItsBody() throws {
        let peak = PeakBacklog()
        try withTestServer(extraRoutes: [Self.countingRoute(peak: peak)]) { server in
            let client = try HTTPTestClient(port: server.port)
            // Announces a large body but waits for 100 Continue, which a refusal never sends.
            try client.send("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50000000\r\nExpect: 100-continue\r\n\r\n")
            let reply = try client.readReply(method: "POST")
            #expect(reply.status == 401)
        }
    }

    @Test func aRefusedSmallBodyIsDroppedAndTheConnectionStaysOpen() throws {
        let peak = PeakBacklog()
        try withTestServer(extraRoutes: [Self.countingRoute(peak: peak)]) { server in
            let client = try HTTPTestClient(port: server.port)
            let refused = try client.request("POST", "/upload", body: Self.payload(10_000))
            #expect(refused.status == 401)
            #expect(try client.get("/hello").text == "hi")
        }
    }

    @Test func anAnnouncedBodyOverTheLimitIs413AndAChunkedOneToo() throws {
        let route = Route("POST", "/small", maxBodyBytes: 100_000, .streaming { _ in
            { _, body in
                var count = 0
                while let chunk = try await body.next() { count += chunk.count }
                return Response(status: 200, contentType: "text/plain", bytes: Array(String(count).utf8))
            }
        })
        try withTestServer(extraRoutes: [route]) { server in
            let announced = try HTTPTestClient(port: server.port).request("POST", "/small", body: Self.payload(100_001))
            #expect(announced.status == 413)
            let client = try HTTPTestClient(port: server.port)
            let part = Self.payload(60_000)
            try client.send("POST /small HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<3 { try client.send(Array((String(part.count, radix: 16) + "\r\n").utf8) + part + [13, 10]) }
            try client.send("0\r\n\r\n")
            let chunked = try client.readReply(method: "POST")
            #expect(chunked.status == 413)
            #expect(chunked.text.contains("payload_too_large"))
        }
    }

    @Test func aHandlerThatAnswersEarlyHasTheRestOfTheBodyDropped() throws {
        let route = Route("POST", "/first", maxBodyBytes: 64 << 20, .streaming { _ in
            { _, body in
                let first = try await body.next() ?? []
                return Response(status: 200, contentType: "text/plain", bytes: Array("got \(first.count > 0)".utf8))
            }
        })
        try withTestServer(configure: { $0.streamingBodyBufferBytes = 64 * 1024 }, extraRoutes: [route]) { server in
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 60)
            let reply = try client.request("POST", "/first", body: Self.payload(4 << 20))
            #expect(reply.status == 200 && reply.text == "got true")
            #expect(try client.get("/hello").text == "hi")
        }
    }

    @Test func anEmptyBodyEndsAtOnce() throws {
        let peak = PeakBacklog()
        try withTestServer(extraRoutes: [Self.countingRoute(peak: peak)]) { server in
            let reply = try HTTPTestClient(port: server.port).request("POST", "/upload", headers: ["Authorization": "Bearer x"], body: [])
            #expect(reply.status == 200 && reply.text == "0 0")
        }
    }
}
