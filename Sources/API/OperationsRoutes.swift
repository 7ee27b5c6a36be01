import Crypto
import HTTPServer
import JSONCore
import Timestamps
import Tracking

/// How `GET /metrics` is offered (docs/security.md). The metrics say how the
/// server is used (share-link views, sign-ups on taken emails, commits), so nobody reads them
/// on the public port unless a bearer token is set: `API.router` serves them only then, and
/// `API.operationsRouter` serves them on a listener of their own (`--metrics-listen`).
public struct MetricsEndpoint: Sendable {
    /// The token a scraper sends as `Authorization: Bearer <token>`; nil: none needed.
    public let bearerToken: String?
    /// The Prometheus text.
    public let render: @Sendable () -> String

    public init(bearerToken: String?, render: @escaping @Sendable () -> String) {
        self.bearerToken = bearerToken
        self.render = render
    }

    /// Whether `request` may read the metrics: any request when no token is set, else one with
    /// the token (compared in constant time, by digest so that its length shows nothing either).
    func admits(_ request: Request) -> Bool {
        guard let bearerToken else { return true }
        guard let sent = request.header("authorization").flatMap(AuthorizationHeader.bearerToken) else { return false }
        return Secrets.constantTimeEquals(Secrets.digest(Array(sent.utf8)), Secrets.digest(Array(bearerToken.utf8)))
    }
}

/// `GET /healthz` and `GET /metrics`.
struct OperationsRoutes {
    /// nil: no `/metrics` route.
    let metrics: MetricsEndpoint?

    var routes: [Route] {
        let health: [UInt8] = JSONValue.object(["status": "ok"]).serialized()
        var routes = [
            Route("GET", "/healthz", .inline { _ in
                Response(status: 200, contentType: "application/json; charset=utf-8", bytes: health)
            }),
        ]
        if let metrics {
            // Without the token the answer is the one for a path that does not exist.
            routes.append(Route("GET", "/metrics", .inline { request in
                guard metrics.admits(request) else { throw HTTPError.notFound(request.path) }
                return Response(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", bytes: Array(metrics.render().utf8))
            }))
        }
        return routes
    }
}

/// Time formatting at the API boundary: RFC 3339 UTC with milliseconds.
enum Time {
    static func format(_ milliseconds: Int64) -> String { Timestamp.rfc3339(millisecondsSince1970: milliseconds) }
    static func format(_ time: Timestamp) -> String { time.rfc3339 }
    static func now() -> Int64 { Timestamp.nowMilliseconds() }
}
