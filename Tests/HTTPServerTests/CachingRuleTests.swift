import Testing
import HTTPTestSupport
@testable import HTTPServer

/// `Cache-Control` on every response (`CachingRule`): `no-store` unless the route says
/// otherwise, and `no-store` whatever the route says when the request carried a credential —
/// through the real server and in-process alike.
@Suite struct CachingRuleTests {
    /// A public route that lets caches keep its answer, and the share-link shape.
    static let routes = [
        Route("GET", "/public", .inline { _ in
            var response = Response(status: 200, contentType: "text/plain", bytes: Array("public".utf8))
            response.setHeader("Cache-Control", "max-age=60")
            return response
        }),
        Route("GET", "/shared/{token}", .inline { _ in
            var response = Response(status: 200, contentType: "text/plain", bytes: [])
            response.setHeader("Cache-Control", "max-age=60")
            return response
        }),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        let method: String, path: String, headers: [String: String], cacheControl: String
        var testDescription: String { "\(method) \(path) \(headers.keys.sorted()) → \(cacheControl)" }
    }

    static let cases = [
        Case(method: "GET", path: "/hello", headers: [:], cacheControl: "no-store"),
        Case(method: "GET", path: "/nothing-here", headers: [:], cacheControl: "no-store"),
        Case(method: "GET", path: "/public", headers: [:], cacheControl: "max-age=60"),
        Case(method: "GET", path: "/public", headers: ["Authorization": "Bearer anything"], cacheControl: "no-store"),
        Case(method: "GET", path: "/public", headers: ["Authorization": "Basic YTpi"], cacheControl: "no-store"),
        Case(method: "GET", path: "/public?token=anything", headers: [:], cacheControl: "no-store"),
        Case(method: "GET", path: "/public?id=anything", headers: [:], cacheControl: "no-store"),
        Case(method: "GET", path: "/public?other=1", headers: [:], cacheControl: "max-age=60"),
        Case(method: "GET", path: "/shared/anything", headers: [:], cacheControl: "no-store"),
        Case(method: "DELETE", path: "/shared/anything", headers: [:], cacheControl: "no-store"),
    ]

    @Test(arguments: cases)
    func throughTheServer(_ c: Case) throws {
        try withTestServer(extraRoutes: Self.routes) { server in
            let reply = try HTTPTestClient(port: server.port).request(c.method, c.path, headers: c.headers)
            #expect(reply.header("Cache-Control") == c.cacheControl, "\(reply.status) \(reply.headers)")
        }
    }

    @Test(arguments: cases)
    func inProcess(_ c: Case) async throws {
        let responder = InProcessResponder(router: Router(Self.routes)) { _, _ in Response(status: 404) }
        let response = await responder.respond(method: c.method, target: c.path, headers: c.headers.map { ($0.key, $0.value) })
        // The in-process router has no `/hello`: a 404 that gets `no-store` like any response without its own rule.
        #expect(response.header("Cache-Control") == c.cacheControl, "\(response.status) \(response.headers)")
    }
}
