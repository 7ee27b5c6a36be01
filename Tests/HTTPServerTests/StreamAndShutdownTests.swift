import Foundation
import Synchronization
import Testing
import HTTPTestSupport
@testable import HTTPServer

@Suite struct StreamAndShutdownTests {
    @Test func pushStreamDeliversWritesAsTheyHappenAndEnds() throws {
        let streams = Mutex<[ResponseStream]>([])
        let opened = Gate()
        let route = Route("GET", "/stream", .inline { _ in
            let stream = ResponseStream(capacity: 1024)
            streams.withLock { $0.append(stream) }
            opened.open()
            return Response(contentType: "text/event-stream", stream: stream)
        })
        try withTestServer(extraRoutes: [route]) { server in
            let client = try HTTPTestClient(port: server.port)
            let head = try client.openStream("/stream")
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(opened.wait(seconds: 5))
            let stream = try #require(streams.withLock { $0.first })
            for i in 0..<5 {
                #expect(stream.write(Array("event \(i)\n".utf8)))
                #expect(String(decoding: try client.readChunk(), as: UTF8.self) == "event \(i)\n")
            }
            stream.finish()
            #expect(try client.readChunk().isEmpty)
        }
    }

    /// The push streams `GET /stream` opened, in order.
    final class OpenedStreams: Sendable {
        let all = Mutex<[ResponseStream]>([])

        var route: Route {
            Route("GET", "/stream", .inline { [self] _ in
                let stream = ResponseStream(capacity: 1024)
                all.withLock { $0.append(stream) }
                return Response(contentType: "text/event-stream", stream: stream)
            })
        }
    }

    /// Opens `count` streams and waits until the server parked every one of them (its
    /// connection suspended, waiting for bytes).
    private func parkedStreams(_ count: Int, server: HTTPServer, streams: OpenedStreams) throws -> [(HTTPTestClient, ResponseStream)] {
        var clients: [HTTPTestClient] = []
        for _ in 0..<count {
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.openStream("/stream").status == 200)
            clients.append(client)
        }
        let deadline = Date().addingTimeInterval(5)
        while streams.all.withLock({ $0.count < count || !$0.allSatisfy { $0.isParked } }) && Date() < deadline {
            _ = Gate().wait(seconds: 0.001)
        }
        let opened = streams.all.withLock { $0 }
        try #require(opened.count == count && opened.allSatisfy { $0.isParked })
        return Array(zip(clients, opened))
    }

    @Test func parkedStreamsWrittenInOnePassAreResumedTogether() throws {
        let streams = OpenedStreams()
        try withTestServer(extraRoutes: [streams.route]) { server in
            let pairs = try parkedStreams(20, server: server, streams: streams)
            var wakes = StreamWakeups()
            for (_, stream) in pairs { #expect(stream.write(Array("one\n".utf8), wakes: &wakes)) }
            // Nothing resumed yet: every reader is still parked, its wake-up held in `wakes`.
            #expect(wakes.count == 20)
            #expect(pairs.allSatisfy { !$0.1.isParked && $0.1.pendingByteCount == 4 })
            wakes.wakeAll()
            #expect(wakes.count == 0)
            for (client, _) in pairs { #expect(String(decoding: try client.readChunk(), as: UTF8.self) == "one\n") }
        }
    }

    @Test func wakeUpsNotSentExplicitlyAreSentWhenDropped() throws {
        let streams = OpenedStreams()
        try withTestServer(extraRoutes: [streams.route]) { server in
            let pairs = try parkedStreams(3, server: server, streams: streams)
            func writeWithoutWaking() {
                var wakes = StreamWakeups()
                #expect(pairs[0].1.write(Array("a\n".utf8), wakes: &wakes))
                pairs[1].1.finish(with: Array("b\n".utf8), wakes: &wakes)
                pairs[2].1.finish(wakes: &wakes)
                #expect(wakes.count == 3)
            }
            writeWithoutWaking()
            #expect(String(decoding: try pairs[0].0.readChunk(), as: UTF8.self) == "a\n")
            #expect(String(decoding: try pairs[1].0.readChunk(), as: UTF8.self) == "b\n")
            #expect(try pairs[1].0.readChunk().isEmpty)
            #expect(try pairs[2].0.readChunk().isEmpty)
        }
    }

    @Test func pushStreamRefusesWritesBeyondItsCapacity() {
        let stream = ResponseStream(capacity: 10)
        #expect(stream.write(Array("12345".utf8)))
        #expect(!stream.write(Array("123456".utf8)))
        #expect(stream.pendingByteCount == 5)
    }

    @Test func streamNoticesTheClientLeaving() throws {
        let closed = Gate()
        let streams = Mutex<[ResponseStream]>([])
        let route = Route("GET", "/stream", .inline { _ in
            let stream = ResponseStream()
            stream.onClose { closed.open() }
            streams.withLock { $0.append(stream) }
            return Response(contentType: "text/plain", stream: stream)
        })
        try withTestServer(extraRoutes: [route]) { server in
            let client = try HTTPTestClient(port: server.port)
            _ = try client.openStream("/stream")
            let stream = try #require(streams.withLock { $0.first })
            #expect(stream.write(Array("x".utf8)))
            _ = try client.readChunk()
            client.close()
            // Writing to a closed socket makes the server notice; keep writing until it does.
            var noticed = false
            for _ in 0..<1000 where !noticed {
                _ = stream.write(Array("ping\n".utf8))
                noticed = closed.wait(seconds: 0.01)
            }
            #expect(noticed)
            #expect(stream.isClosed)
        }
    }

    @Test func pullStreamSendsEveryChunkInOrder() throws {
        let route = Route("GET", "/export", .inline { _ in
            let next = Mutex(0)
            let stream = ResponseStream { chunk in
                let i = next.withLock { n -> Int in n += 1; return n }
                guard i <= 1000 else { return false }
                chunk += Array("line \(i)\n".utf8)
                return true
            }
            return Response(contentType: "text/plain", stream: stream)
        })
        try withTestServer(extraRoutes: [route]) { server in
            let reply = try HTTPTestClient(port: server.port).get("/export")
            let lines = reply.text.split(separator: "\n")
            #expect(lines.count == 1000)
            #expect(lines.first == "line 1" && lines.last == "line 1000")
        }
    }

    @Test func shutdownFinishesInFlightRequestsAndEndsStreams() throws {
        let entered = Gate()
        let release = Gate()
        let slow = Route("GET", "/slow", .deferred { _ in
            entered.open()
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { release.wait(); c.resume() }
            }
            return Response(status: 200, contentType: "text/plain", bytes: Array("done".utf8))
        })
        let live = Route("GET", "/live", .inline { _ in Response(contentType: "text/plain", stream: ResponseStream()) })
        var configuration = HTTPServer.Configuration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, router: Router([slow, live]), logger: Logger(level: .error)) { e, _ in
            Response(status: 500, contentType: "text/plain", bytes: Array("\(e)".utf8))
        }
        try server.start()
        let streamClient = try HTTPTestClient(port: server.port)
        #expect(try streamClient.openStream("/live").status == 200)
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(entered.wait(seconds: 5))

        let stopped = Gate()
        DispatchQueue.global().async { server.shutdown(); stopped.open() }
        // The open stream is ended by the shutdown…
        #expect(try streamClient.readChunk().isEmpty)
        // …new connections are closed without a reply from then on…
        #expect(throws: (any Error).self) { try HTTPTestClient(port: server.port).get("/slow") }
        // …while the in-flight request keeps shutdown waiting until it completes.
        #expect(!stopped.wait(seconds: 0.2))
        release.open()
        let reply = try client.readReply()
        #expect(reply.status == 200 && reply.text == "done")
        #expect(stopped.wait(seconds: 10))
        #expect(throws: (any Error).self) { try HTTPTestClient(port: server.port).get("/slow") }
    }
}
