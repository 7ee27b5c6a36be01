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

    @Test func aCompletingRequestUnansweredAtTheDeadlineGets503AndItsLateReplyIsIgnored() throws {
        // The worker (a writer in the real routes) holds the reply past the grace period.
        let held = Mutex<Reply?>(nil)
        let started = Gate()
        let route = Route("POST", "/slow-write", .completing(inlineBodyBytes: 1_024) { _, reply in
            held.withLock { $0 = reply }
            started.open()
        })
        var configuration = HTTPServer.Configuration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        configuration.shutdownGraceSeconds = 0.05
        let server = HTTPServer(configuration: configuration, router: Router([route]), logger: Logger(level: .error)) { e, _ in
            let status = (e as? HTTPError)?.status ?? 500
            return Response(status: status, contentType: "text/plain", bytes: Array("\(status)".utf8))
        }
        try server.start()
        let client = try HTTPTestClient(port: server.port)
        try client.send("POST /slow-write HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab")
        #expect(started.wait(seconds: 5))
        server.shutdown()
        #expect(try client.readReply().status == 503)
        // The commit finishing afterwards answers no one and touches no stopped connection.
        let reply = try #require(held.withLock { $0 })
        reply(.success(Response(status: 200, contentType: "text/plain", bytes: Array("late".utf8))))
    }
}
