import Foundation
import Testing
import HTTPTestSupport
@testable import HTTPServer

/// What a client sends must not shape the server's own outputs: metric labels stay bounded by
/// the routing table and the known methods, and access-log fields cannot break or forge a line.
@Suite struct ClientControlledOutputTests {
    @Test func oddMethodsShareOneMetricsLabel() throws {
        try withTestServer { server in
            let client = try HTTPTestClient(port: server.port)
            for method in ["FOOBAR", "BREW", "get", "X" + String(repeating: "Y", count: 200)] {
                let reply = try client.request(method, "/hello")
                #expect(reply.status >= 400 && reply.status < 500, "\(method)")
                try client.request(method, "/nothing-here")
            }
            try client.get("/hello")
            #expect(waitUntil { server.metrics.count(route: "/hello", status: 200) == 1 })
            #expect(waitUntil { server.metrics.methodLabels == ["GET", "other"] })
            let rendered = server.metrics.render(gauges: [])
            #expect(!rendered.contains("FOOBAR") && !rendered.contains("BREW") && !rendered.contains("YYY"))
            #expect(rendered.contains("method=\"other\",route=\"unmatched\",status=\"405\""))
            #expect(rendered.contains("method=\"other\",route=\"unmatched\",status=\"404\""))
        }
    }

    @Test(arguments: [
        ("/hello%0Aforged%20200%200B%20id=x", "/hello\\x0aforged\\x20200\\x200B\\x20id=x"),
        ("/q%22uote%5Cback%1B%5B31m", "/q\\x22uote\\x5cback\\x1b[31m"),
        ("/caf%C3%A9%7F%0D", "/caf\\xc3\\xa9\\x7f\\x0d"),
    ])
    func accessLogEscapesThePath(_ sent: String, _ logged: String) throws {
        let pipe = Pipe()
        let logger = Logger(level: .info, fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        try withTestServer(logger: logger) { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("GET", sent).status == 404)
            let line = try readLine(pipe, containing: "GET /")
            #expect(line.contains("GET \(logged) 404 "), "\(line)")
            #expect(!line.dropLast().contains("\n") && !line.contains("\r") && !line.contains("\""))
        }
    }

    /// A share-link token in the path is a credential: the access log writes the route's
    /// other segments and `<redacted>` in its place.
    @Test func accessLogRedactsCredentialPathSegments() throws {
        let pipe = Pipe()
        let logger = Logger(level: .info, fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        let secret = "fods_s3cretTokenValue"
        let route = Route("GET", "/shared/{token}/items/{id}", .inline { _ in Response(status: 200, contentType: "text/plain", bytes: []) })
        try withTestServer(extraRoutes: [route], logger: logger) { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("GET", "/shared/\(secret)/items/7").status == 200)
            let line = try readLine(pipe, containing: "GET /shared")
            #expect(line.contains("GET /shared/<redacted>/items/7 200 "), "\(line)")
            #expect(!line.contains(secret))
        }
    }

    /// The token is redacted whatever the method and whether a route matches: a method the
    /// route does not have (405), a longer or shorter path, another case (404) — requests whose
    /// access-log line used to carry it in full.
    @Test(arguments: [
        ("OPTIONS", "/shared/SECRET", "/shared/<redacted>", 405),
        ("POST", "/shared/SECRET/items/7", "/shared/<redacted>/items/7", 404),
        ("DELETE", "/shared/SECRET", "/shared/<redacted>", 405),
        ("GET", "/shared/SECRET/more/and/more", "/shared/<redacted>/more/and/more", 404),
        ("GET", "/Shared/SECRET", "/Shared/<redacted>", 404),
        ("GET", "//shared//SECRET", "/shared/<redacted>", 200),
    ])
    func accessLogRedactsTheTokenOfUnmatchedRequests(_ method: String, _ sent: String, _ logged: String, _ status: Int) throws {
        let pipe = Pipe()
        let logger = Logger(level: .info, fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        let secret = "fods_s3cretTokenValue"
        let route = Route("GET", "/shared/{token}", .inline { _ in Response(status: 200, contentType: "text/plain", bytes: []) })
        try withTestServer(extraRoutes: [route], logger: logger) { server in
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request(method, sent.replacingOccurrences(of: "SECRET", with: secret)).status == status)
            let line = try readLine(pipe, containing: "\(method) /")
            #expect(line.contains("\(method) \(logged) \(status) "), "\(line)")
            #expect(!line.contains(secret))
        }
    }

    @Test func credentialPathsComeFromTheRoutesCredentialParameters() {
        let router = Router([
            Route("GET", "/s/{token}", .inline { _ in Response(status: 200) }),
            Route("GET", "/v1/shared/{token}/live", .inline { _ in Response(status: 200) }),
            Route("GET", "/v1/devices/{id}/token", .inline { _ in Response(status: 200) }),
        ])
        let paths = router.credentialPaths
        #expect(paths.redacting("/s/abc") == "/s/<redacted>")
        #expect(paths.redacting("/v1/shared/abc") == "/v1/shared/<redacted>")
        #expect(paths.redacting("/v1/devices/d_1/token") == "/v1/devices/d_1/token")
        #expect(paths.redacting("/s") == "/s" && paths.redacting("/") == "/" && paths.redacting("") == "")
        #expect(paths.holdsCredential("/S/abc") && !paths.holdsCredential("/v1/shared") && !paths.holdsCredential("/x/s/abc"))
        #expect(CredentialPaths().redacting("/s/abc") == "/s/abc")
        var operations = Router([Route("GET", "/metrics", .inline { _ in Response(status: 200) })])
        #expect(operations.credentialPaths.redacting("/s/abc") == "/s/abc")
        operations.redact(router.credentialPaths)
        #expect(operations.credentialPaths.redacting("/s/abc") == "/s/<redacted>")
    }

    @Test func escapingIsAnIdentityOnPlainTextAndEscapesEveryOtherByte() {
        #expect(LogText.escaped("/v1/groups/g_1?x=1") == "/v1/groups/g_1?x=1")
        #expect(LogText.escaped("a b\t\"\\") == "a\\x20b\\x09\\x22\\x5c")
        #expect(LogText.escaped("\u{0}\u{1F}\u{7F}é") == "\\x00\\x1f\\x7f\\xc3\\xa9")
        for byte in UInt8(0)...UInt8(127) {
            let escaped = LogText.escaped(String(decoding: [byte], as: UTF8.self))
            #expect(escaped.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") })
        }
    }

    /// Reads log lines from `pipe` until one contains `marker` (fails after 5 s without one).
    func readLine(_ pipe: Pipe, containing marker: String) throws -> String {
        let fd = pipe.fileHandleForReading.fileDescriptor
        var text = ""
        while true {
            if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) + "\n" }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 5_000) == 1 else { throw TimedOut() }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw TimedOut() }
            text += String(decoding: chunk[..<n], as: UTF8.self)
        }
    }

    struct TimedOut: Error {}
}
