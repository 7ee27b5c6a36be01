import ErrorCodes
import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import HTTPServer

/// A one-shot gate a test opens to let a blocked handler go on (no sleeps).
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func open() { semaphore.signal() }
    func wait() { semaphore.wait() }
    func wait(seconds: Double) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
}

/// Starts a server on a free port with the test routes; shuts it down after `body`.
func withTestServer(configure: (inout HTTPServer.Configuration) -> Void = { _ in },
                    extraRoutes: [Route] = [], logger: Logger = Logger(level: .error),
                    _ body: (HTTPServer) throws -> Void) throws {
    var configuration = HTTPServer.Configuration()
    configuration.bindAddress = "127.0.0.1"
    configuration.port = 0
    configure(&configuration)
    var router = Router([
        Route("GET", "/hello", .inline { _ in Response(status: 200, contentType: "text/plain", bytes: Array("hi".utf8)) }),
        Route("POST", "/echo", maxBodyBytes: 64, .inline { request in
            Response(status: 200, contentType: "application/octet-stream", bytes: request.body)
        }),
        Route("POST", "/big", .inline { request in
            Response(status: 200, contentType: "text/plain", bytes: Array(String(request.body.count).utf8))
        }),
        Route("GET", "/items/{id}", .inline { request in
            let q = request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return Response(status: 200, contentType: "text/plain", bytes: Array("\(request.parameter("id"))?\(q)".utf8))
        }),
        Route("GET", "/later", .deferred { _ in
            await Task.yield()
            return Response(status: 202, contentType: "text/plain", bytes: Array("later".utf8))
        }),
        Route("GET", "/fail", .inline { _ in throw HTTPError(status: 418, code: ErrorCode("teapot"), message: "short and stout") }),
    ])
    for route in extraRoutes { router.add(route) }
    let server = HTTPServer(configuration: configuration, router: router, logger: logger) { error, _ in
        let e = error as? HTTPError ?? HTTPError(status: 500, code: ErrorCode("internal"), message: "\(error)")
        var response = Response(status: e.status, contentType: "text/plain", bytes: Array("\(e.code): \(e.message)".utf8))
        for header in e.headers { response.setHeader(header.name, header.value) }
        return response
    }
    try server.start()
    defer { server.shutdown() }
    try body(server)
}

@Suite struct LiveServerTests {
    @Test func inlineAndDeferredRepliesShareOneKeepAliveConnection() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            for _ in 0..<3 {
                let a = try client.get("/hello")
                #expect(a.status == 200 && a.text == "hi")
                #expect(a.header("X-Request-Id") != nil)
                let b = try client.get("/later")
                #expect(b.status == 202 && b.text == "later")
            }
            #expect(server.openConnectionCount == 1)
        }
    }

    @Test func adaptiveRouteAnswersInlineWhenItCanAndFromATaskOtherwise() throws {
        let inlineTries = Mutex(0), taskRuns = Mutex(0)
        let route = Route("POST", "/adaptive", .adaptive(inline: { request in
            inlineTries.withLock { $0 += 1 }
            if request.body == Array("boom".utf8) { throw HTTPError(status: 418, code: ErrorCode("teapot"), message: "inline") }
            guard request.body.count < 4 else { return nil }
            return Response(status: 200, contentType: "text/plain", bytes: Array("inline \(request.body.count)".utf8))
        }, deferred: { request in
            taskRuns.withLock { $0 += 1 }
            await Task.yield()
            return Response(status: 200, contentType: "text/plain", bytes: Array("task \(request.body.count)".utf8))
        }))
        try withTestServer(extraRoutes: [route]) { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("POST", "/adaptive", body: Array("abc".utf8)).text == "inline 3")
            #expect(taskRuns.withLock { $0 } == 0)
            // Too costly inline: the same request (body included) is answered from the task.
            #expect(try client.request("POST", "/adaptive", body: Array("abcdef".utf8)).text == "task 6")
            #expect(taskRuns.withLock { $0 } == 1)
            // A throw on the server's thread is an answer, not a reason to try again.
            let refused = try client.request("POST", "/adaptive", body: Array("boom".utf8))
            #expect(refused.status == 418 && refused.text == "teapot: inline")
            #expect(taskRuns.withLock { $0 } == 1)
            #expect(inlineTries.withLock { $0 } == 3)
            #expect(server.openConnectionCount == 1)
        }
    }

    @Test func completingRouteAnswersOnceFromWhicheverThreadFinishes() throws {
        // Where `start` ran: on the server's thread (no task) or in a task.
        let startedInTask = Mutex<[Bool]>([])
        let route = Route("POST", "/completing", .completing(inlineBodyBytes: 4) { request, reply in
            startedInTask.withLock { $0.append(withUnsafeCurrentTask { $0 != nil }) }
            let body = request.body
            if body == Array("boom".utf8) { throw HTTPError(status: 418, code: ErrorCode("teapot"), message: "start") }
            if body == Array("now".utf8) {
                return reply(.success(Response(status: 200, contentType: "text/plain", bytes: Array("at once".utf8))))
            }
            DispatchQueue.global().async {
                if body == Array("fail".utf8) {
                    reply(.failure(HTTPError(status: 409, code: ErrorCode("conflict"), message: "worker")))
                }
                reply(.success(Response(status: 201, contentType: "text/plain", bytes: Array("worker \(body.count)".utf8))))
                reply(.success(Response(status: 200, contentType: "text/plain", bytes: Array("ignored".utf8))))
            }
        })
        try withTestServer(extraRoutes: [route]) { server in
            let client = try HTTPTestClient(port: server.port)
            let small = try client.request("POST", "/completing", body: Array("abc".utf8))
            #expect(small.status == 201 && small.text == "worker 3")
            // Over the inline limit: started from a task, answered the same way.
            let large = try client.request("POST", "/completing", body: Array("abcdefgh".utf8))
            #expect(large.status == 201 && large.text == "worker 8")
            // An answer given inside `start`, a throw from it, and a failure from the worker.
            #expect(try client.request("POST", "/completing", body: Array("now".utf8)).text == "at once")
            let thrown = try client.request("POST", "/completing", body: Array("boom".utf8))
            #expect(thrown.status == 418 && thrown.text == "teapot: start")
            let failed = try client.request("POST", "/completing", body: Array("fail".utf8))
            #expect(failed.status == 409 && failed.text == "conflict: worker")
            // The second reply of every request was ignored: the connection still serves.
            #expect(try client.get("/hello").text == "hi")
            #expect(startedInTask.withLock { $0 } == [false, true, false, false, false])
            #expect(server.openConnectionCount == 1)
        }
    }

    @Test func pathParametersAndDecodedQuery() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            let reply = try client.get("/items/abc?x=1&name=a%20b&x=2")
            #expect(reply.text == "abc?x=1&name=a b&x=2")
        }
    }

    @Test func unknownRouteIs404AndWrongMethodIs405WithAllow() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.get("/missing").status == 404)
            let reply = try client.request("DELETE", "/hello")
            #expect(reply.status == 405)
            #expect(reply.header("Allow") == "GET, HEAD")
        }
    }

    @Test func thrownErrorsGoThroughTheErrorResponder() throws {
        try withTestServer { server in
            let reply = try HTTPTestClient(port: server.port).get("/fail")
            #expect(reply.status == 418)
            #expect(reply.text == "teapot: short and stout")
        }
    }

    @Test func clientRequestIDIsEchoedWhenSafe() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("GET", "/hello", headers: ["X-Request-Id": "abc-123"]).header("X-Request-Id") == "abc-123")
            #expect(try client.request("GET", "/hello", headers: ["X-Request-Id": "bad id!"]).header("X-Request-Id") != "bad id!")
        }
    }

    @Test func bodyWithinRouteLimitIsEchoed() throws {
        try withTestServer { server in
            let body = Array(repeating: UInt8(ascii: "a"), count: 64)
            let reply = try HTTPTestClient(port: server.port).request("POST", "/echo", body: body)
            #expect(reply.status == 200 && reply.body == body)
        }
    }

    @Test func declaredOversizeBodyGets413BeforeItIsSent() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            // Announce 65 bytes but send none: the reply must come without the body.
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\n")
            let reply = try client.readReply()
            #expect(reply.status == 413)
            #expect(reply.text.hasPrefix("payload_too_large"))
        }
    }

    @Test func defaultLimitAppliesToRoutesWithoutTheirOwn() throws {
        try withTestServer(configure: { $0.defaultMaxBodyBytes = 1000 }) { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("POST", "/big", body: Array(repeating: 1, count: 1000)).text == "1000")
            let again = try HTTPTestClient(port: server.port)
            #expect(try again.request("POST", "/big", body: Array(repeating: 1, count: 1001)).status == 413)
        }
    }

    @Test func chunkedBodyGrowingPastTheLimitGets413() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            let chunk = String(repeating: "b", count: 40)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n28\r\n\(chunk)\r\n28\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(try client.readReply().status == 413)
        }
    }

    @Test func idleConnectionTimesOut() throws {
        try withTestServer(configure: { $0.connectionTimeoutSeconds = 1 }) { server in
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
            #expect(try client.get("/hello").status == 200)
            #expect(client.waitForClose())
        }
    }

    @Test func perAddressConnectionLimitClosesTheExtraConnection() throws {
        try withTestServer(configure: { $0.perIPConnectionLimit = 2; $0.threadPoolSize = 1 }) { server in
            let a = try HTTPTestClient(port: server.port)
            let b = try HTTPTestClient(port: server.port)
            #expect(try a.get("/hello").status == 200)
            #expect(try b.get("/hello").status == 200)
            let c = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
            #expect(throws: HTTPTestClient.ClientError.self) { try c.get("/hello") }
            b.close()
            // Once a slot frees, a new connection is served again.
            var served = false
            for _ in 0..<50 where !served {
                let d = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
                served = (try? d.get("/hello").status) == 200
            }
            #expect(served)
        }
    }

    @Test func totalConnectionLimitClosesTheExtraConnection() throws {
        try withTestServer(configure: { $0.connectionLimit = 2; $0.perIPConnectionLimit = 0; $0.threadPoolSize = 1 }) { server in
            let a = try HTTPTestClient(port: server.port)
            let b = try HTTPTestClient(port: server.port)
            #expect(try a.get("/hello").status == 200)
            #expect(try b.get("/hello").status == 200)
            let c = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
            #expect(throws: HTTPTestClient.ClientError.self) { try c.get("/hello") }
        }
    }

    @Test func metricsCountRequestsByRoutePatternAndStatus() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            try client.get("/items/1")
            try client.get("/items/2")
            try client.get("/missing")
            // The completed callback runs after the reply is sent: wait for the in-flight count to drain.
            let text = waitUntil {
                server.metrics.count(route: "/items/{id}", status: 200) == 2 && server.metrics.count(route: "unmatched", status: 404) == 1
            }
            #expect(text)
            let rendered = server.metrics.render(gauges: [("fod_open_connections", "Open connections.", 1)])
            #expect(rendered.contains("fod_http_requests_total{method=\"GET\",route=\"/items/{id}\",status=\"200\"} 2"))
            #expect(rendered.contains("route=\"unmatched\",status=\"404\"} 1"))
            #expect(rendered.contains("fod_http_request_duration_seconds_count"))
        }
    }
}

/// Polls `condition` (no fixed sleeps: yields until true, up to 5 s).
func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        if condition() { return true }
        sched_yield()
    }
    return condition()
}
