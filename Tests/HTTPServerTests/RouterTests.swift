import Testing
@testable import HTTPServer

@Suite struct RouterTests {
    static let ok = Handler.inline { _ in Response(status: 200) }
    static let router = Router([
        Route("GET", "/v1/me", ok),
        Route("PATCH", "/v1/me", ok),
        Route("GET", "/v1/groups/{id}", ok),
        Route("DELETE", "/v1/groups/{id}", ok),
        Route("DELETE", "/v1/groups/{id}/members/{userId}", ok),
        Route("GET", "/v1/{thing}", ok),
        Route("POST", "/v1/users", ok),
    ])

    struct Case: Sendable, CustomTestStringConvertible {
        let method: String, path: String
        let expected: String  // "pattern|k=v,…", "405:ALLOW,…", or "404"
        var testDescription: String { "\(method) \(path)" }
    }

    @Test(arguments: [
        Case(method: "GET", path: "/v1/me", expected: "/v1/me|"),
        Case(method: "GET", path: "/v1/groups/g_1", expected: "/v1/groups/{id}|id=g_1"),
        Case(method: "DELETE", path: "/v1/groups/g_1/members/u_2", expected: "/v1/groups/{id}/members/{userId}|id=g_1,userId=u_2"),
        Case(method: "GET", path: "/v1/other", expected: "/v1/{thing}|thing=other"),
        Case(method: "HEAD", path: "/v1/me", expected: "/v1/me|"),
        Case(method: "GET", path: "/v1/me/", expected: "/v1/me|"),
        Case(method: "POST", path: "/v1/me", expected: "405:GET,HEAD,PATCH"),
        Case(method: "PUT", path: "/v1/groups/g_1", expected: "405:DELETE,GET,HEAD"),
        Case(method: "GET", path: "/v1/users", expected: "/v1/{thing}|thing=users"),
        Case(method: "GET", path: "/nope/x/y", expected: "404"),
        Case(method: "GET", path: "/", expected: "404"),
        Case(method: "GET", path: "//v1//groups/g_1", expected: "/v1/groups/{id}|id=g_1"),
        Case(method: "GET", path: "/v1/groups/Zoë 🌍", expected: "/v1/groups/{id}|id=Zoë 🌍"),
        Case(method: "GET", path: "/v1/me\u{301}", expected: "/v1/{thing}|thing=me\u{301}"),
    ])
    func matches(_ c: Case) {
        let got: String
        switch Self.router.match(method: c.method, path: c.path) {
        case .found(let route, let params):
            got = route.pattern + "|" + params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        case .methodNotAllowed(let allowed):
            got = "405:" + allowed.joined(separator: ",")
        case .notFound:
            got = "404"
        }
        #expect(got == c.expected)
    }
}
