import HTTPServer
import JSONCore
import Timestamps
import Tracking

/// `GET /healthz` and `GET /metrics`.
struct OperationsRoutes {
    let services: Services
    let metrics: @Sendable () -> String

    var routes: [Route] {
        let health: [UInt8] = JSONValue.object(["status": "ok"]).serialized()
        let metrics = self.metrics
        let rejections = services.rejectionMetrics
        return [
            Route("GET", "/healthz", .inline { _ in
                Response(status: 200, contentType: "application/json; charset=utf-8", bytes: health)
            }),
            Route("GET", "/metrics", .inline { _ in
                Response(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", bytes: Array((metrics() + rejections.render()).utf8))
            }),
        ]
    }
}

/// Time formatting at the API boundary: RFC 3339 UTC with milliseconds.
enum Time {
    static func format(_ milliseconds: Int64) -> String { Timestamp.rfc3339(millisecondsSince1970: milliseconds) }
    static func format(_ time: Timestamp) -> String { time.rfc3339 }
    static func now() -> Int64 { Timestamp.nowMilliseconds() }
}
