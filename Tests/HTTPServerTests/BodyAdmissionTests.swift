import ErrorCodes
import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import HTTPServer

/// Request bodies before and while they arrive (`HeadCheck`, `HTTPServer.BodyLimits`): the
/// head check refuses before any byte is buffered, anonymous bodies are small, the budget
/// holds across connections, and a body that stalls or trickles loses its connection.
@Suite struct BodyAdmissionTests {
    /// `Authorization: Bearer good` is a caller; any other value is refused with 401; none is
    /// anonymous.
    static func bearerCheck(runsInline: Bool = true, started: Gate? = nil, release: Gate? = nil) -> HeadCheck {
        HeadCheck(runsInline: runsInline) { request in
            started?.open()
            release?.wait()
            guard let header = request.header("authorization") else { return .anonymous }
            guard header == "Bearer good" else { throw HTTPError(status: 401, code: ErrorCode("unauthenticated"), message: "bad token") }
            return .authenticated("caller-7")
        }
    }

    /// `POST /upload` (8 MiB) answering the body's length and what the head check resolved.
    static func uploadRoute(_ check: HeadCheck? = bearerCheck()) -> Route {
        Route("POST", "/upload", maxBodyBytes: 8 << 20, headCheck: check, .inline { request in
            let caller = request.headCheckResult as? String ?? "anonymous"
            return Response(status: 200, contentType: "text/plain", bytes: Array("\(request.body.count) \(caller)".utf8))
        })
    }

    static func head(_ length: Int, token: String?, path: String = "/upload") -> String {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        return head + "\r\n"
    }

    @Test func aBodyWithABadCredentialIsRefusedAtTheHeadersWithoutBeingBuffered() throws {
        try withTestServer(extraRoutes: [Self.uploadRoute()]) { server in
            let client = try HTTPTestClient(port: server.port)
            // 8 MiB announced, 256 KiB sent, then the client stalls: the refusal does not wait for the rest.
            try client.send(Self.head(8 << 20, token: "forged"))
            try? client.send([UInt8](repeating: 7, count: 256 * 1024))
            let reply = try client.readReply(method: "POST")
            #expect(reply.status == 401)
            #expect(server.heldBodyBytes == 0)
            // The caller with a good token sends the same body whole.
            let good = try HTTPTestClient(port: server.port, timeoutSeconds: 60)
            let answer = try good.request("POST", "/upload", headers: ["Authorization": "Bearer good"], body: [UInt8](repeating: 7, count: 8 << 20))
            #expect(answer.status == 200 && answer.text == "\(8 << 20) caller-7")
        }
    }

    @Test func aHeadCheckFromATaskRefusesOrAdmitsBeforeTheBody() throws {
        try withTestServer(extraRoutes: [Self.uploadRoute(Self.bearerCheck(runsInline: false))]) { server in
            let refused = try HTTPTestClient(port: server.port)
            try refused.send(Self.head(4 << 20, token: "forged"))
            try? refused.send([UInt8](repeating: 1, count: 100_000))
            #expect(try refused.readReply(method: "POST").status == 401)
            // A refused small body is read and dropped: the connection serves the next request.
            let small = try HTTPTestClient(port: server.port)
            #expect(try small.request("POST", "/upload", headers: ["Authorization": "Bearer forged"], body: [1, 2, 3]).status == 401)
            #expect(try small.get("/hello").text == "hi")
            let admitted = try small.request("POST", "/upload", headers: ["Authorization": "Bearer good"], body: [UInt8](repeating: 1, count: 100_000))
            #expect(admitted.status == 200 && admitted.text == "100000 caller-7")
        }
    }

    @Test func aBodyToAPathWithoutARouteIsAnsweredBeforeItIsRead() throws {
        try withTestServer(extraRoutes: [Self.uploadRoute()]) { server in
            for (path, status) in [("/nowhere", 404), ("/hello", 405)] {
                let client = try HTTPTestClient(port: server.port)
                try client.send(Self.head(1 << 20, token: nil, path: path))
                try? client.send([UInt8](repeating: 7, count: 200_000))
                #expect(try client.readReply(method: "POST").status == status)
            }
            // A small one is read and dropped: the connection serves the next request.
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("POST", "/nowhere", body: [1, 2, 3]).status == 404)
            #expect(try client.get("/hello").text == "hi")
            #expect(server.heldBodyBytes == 0)
        }
    }

    @Test func bodiesWithoutACheckedCredentialAreCappedAtTheAnonymousLimit() throws {
        let unchecked = Route("POST", "/open", maxBodyBytes: 1 << 20, .inline { request in
            Response(status: 200, contentType: "text/plain", bytes: Array("\(request.body.count)".utf8))
        })
        try withTestServer(configure: { $0.bodies.anonymousBodyBytes = 1_000 },
                           extraRoutes: [Self.uploadRoute(), unchecked]) { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("POST", "/open", body: [UInt8](repeating: 1, count: 1_000)).text == "1000")
            #expect(try client.request("POST", "/upload", body: [UInt8](repeating: 1, count: 1_000)).text == "1000 anonymous")
            for path in ["/open", "/upload"] {
                let over = try HTTPTestClient(port: server.port).request("POST", path, body: [UInt8](repeating: 1, count: 1_001))
                #expect(over.status == 413, "\(path)")
            }
            // A chunked anonymous body is held to it too.
            let chunked = try HTTPTestClient(port: server.port)
            let piece = String(repeating: "a", count: 600)
            try chunked.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n\(piece)\r\n258\r\n\(piece)\r\n0\r\n\r\n")
            #expect(try chunked.readReply(method: "POST").status == 413)
            // With a credential the route's own limit applies.
            let large = try HTTPTestClient(port: server.port).request("POST", "/upload", headers: ["Authorization": "Bearer good"],
                                                                       body: [UInt8](repeating: 1, count: 100_000))
            #expect(large.text == "100000 caller-7")
        }
    }

    @Test func theBudgetRefusesWhatItCannotHoldWith503AndRetryAfter() throws {
        try withTestServer(configure: { $0.bodies.budgetBytes = 128 * 1024; $0.bodies.retryAfterSeconds = 7 },
                           extraRoutes: [Self.uploadRoute()]) { server in
            // One upload holds most of the budget while it waits for the rest of its body.
            let holder = try HTTPTestClient(port: server.port)
            try holder.send(Self.head(100_000, token: "good"))
            try holder.send([UInt8](repeating: 2, count: 90_000))
            #expect(waitUntil { server.heldBodyBytes >= 90_000 })
            // Another one announcing more than is left is answered at once.
            let refused = try HTTPTestClient(port: server.port)
            try refused.send(Self.head(50_000, token: "good"))
            let busy = try refused.readReply(method: "POST")
            #expect(busy.status == 503 && busy.header("Retry-After") == "7")
            // A chunked one that grows past it is dropped and answered 503 once it ended.
            let chunked = try HTTPTestClient(port: server.port)
            let piece = [UInt8](repeating: 3, count: 20_000)
            try chunked.send("POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<3 { try chunked.send(Array("4e20\r\n".utf8) + piece + [13, 10]) }
            try chunked.send("0\r\n\r\n")
            #expect(try chunked.readReply(method: "POST").status == 503)
            // The holder finishes; what it held is given back.
            try holder.send([UInt8](repeating: 2, count: 10_000))
            #expect(try holder.readReply(method: "POST").text == "100000 caller-7")
            #expect(waitUntil { server.heldBodyBytes == 0 })
            let again = try HTTPTestClient(port: server.port).request("POST", "/upload", headers: ["Authorization": "Bearer good"],
                                                                       body: [UInt8](repeating: 1, count: 50_000))
            #expect(again.text == "50000 caller-7")
        }
    }

    @Test func aBodyThatTricklesIsCut() throws {
        // Every body is too slow once it started: any byte after the head arrives below the rate.
        try withTestServer(configure: { $0.bodies.rateGraceSeconds = 0; $0.bodies.minimumBytesPerSecond = 1_000_000_000 },
                           extraRoutes: [Self.uploadRoute()]) { server in
            let client = try HTTPTestClient(port: server.port)
            try client.send(Self.head(1_000, token: "good"))
            try client.send([1])
            #expect(client.waitForClose())
            #expect(waitUntil { server.inFlightCount == 0 && server.heldBodyBytes == 0 })
        }
    }

    @Test func aBodyThatStallsTimesOut() throws {
        try withTestServer(configure: { $0.bodies.readTimeoutSeconds = 1; $0.connectionTimeoutSeconds = 120 },
                           extraRoutes: [Self.uploadRoute()]) { server in
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 30)
            try client.send(Self.head(1_000, token: "good"))
            try client.send([UInt8](repeating: 1, count: 10))
            #expect(client.waitForClose())
            // A body that keeps coming is not cut.
            let kept = try HTTPTestClient(port: server.port)
            #expect(try kept.request("POST", "/upload", headers: ["Authorization": "Bearer good"], body: [1, 2]).text == "2 caller-7")
        }
    }

    @Test func shutdownAnswersARequestWhoseHeadCheckStillRuns() throws {
        let started = Gate(), release = Gate()
        var configuration = HTTPServer.Configuration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        configuration.shutdownGraceSeconds = 0.05
        let route = Self.uploadRoute(Self.bearerCheck(runsInline: false, started: started, release: release))
        let server = HTTPServer(configuration: configuration, router: Router([route]), logger: Logger(level: .error)) { e, _ in
            let status = (e as? HTTPError)?.status ?? 500
            return Response(status: status, contentType: "text/plain", bytes: Array("\(status)".utf8))
        }
        try server.start()
        let client = try HTTPTestClient(port: server.port)
        try client.send(Self.head(3, token: "good") + "abc")
        #expect(started.wait(seconds: 5))
        server.shutdown()
        #expect(try client.readReply(method: "POST").status == 503)
        // The check finishing afterwards touches no stopped connection.
        release.open()
    }
}
