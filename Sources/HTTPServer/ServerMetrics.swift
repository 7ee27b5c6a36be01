import Synchronization

/// Request counters and a latency histogram, rendered in Prometheus' text format.
///
/// Keys are the route *pattern* (never the raw path) and a method of `knownMethods` (any other
/// counts as `other`), so cardinality stays bounded by the routing table whatever clients send;
/// unknown paths count under `unmatched`.
public final class ServerMetrics: Sendable {
    /// Upper bounds (seconds) of the latency histogram buckets.
    public static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Key: Hashable { let method: String; let route: String; let status: Int }
    private struct State {
        var requests: [Key: UInt64] = [:]
        var buckets = [UInt64](repeating: 0, count: ServerMetrics.bucketBounds.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }
    private let state = Mutex(State())

    /// The methods of RFC 9110 and PATCH: the only method labels besides `other`.
    public static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]

    public init() {}

    /// The label of a request method: itself when known, else `other`.
    public static func methodLabel(_ method: String) -> String {
        knownMethods.contains(method) ? method : "other"
    }

    func record(method: String, route: String, status: Int, seconds: Double) {
        let key = Key(method: Self.methodLabel(method), route: route, status: status)
        state.withLock { s in
            s.requests[key, default: 0] += 1
            s.count += 1
            s.sum += seconds
            if let bucket = ServerMetrics.bucketBounds.firstIndex(where: { seconds <= $0 }) {
                s.buckets[bucket] += 1
            }
        }
    }

    /// The method labels recorded so far.
    public var methodLabels: Set<String> { state.withLock { Set($0.requests.keys.map(\.method)) } }

    /// Total requests recorded for `route` with `status` (all methods).
    public func count(route: String, status: Int) -> UInt64 {
        state.withLock { s in
            s.requests.filter { $0.key.route == route && $0.key.status == status }.values.reduce(0, +)
        }
    }

    /// The Prometheus text exposition of these metrics plus `gauges` (name, help, value).
    public func render(gauges: [(name: String, help: String, value: Double)]) -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP fod_http_requests_total HTTP requests by method, route and status.\n"
        out += "# TYPE fod_http_requests_total counter\n"
        for (key, value) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out += "fod_http_requests_total{method=\"\(key.method)\",route=\"\(escape(key.route))\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP fod_http_request_duration_seconds Time from request start to response completion.\n"
        out += "# TYPE fod_http_request_duration_seconds histogram\n"
        var cumulative: UInt64 = 0
        for (bound, count) in zip(ServerMetrics.bucketBounds, snapshot.buckets) {
            cumulative += count
            out += "fod_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "fod_http_request_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        out += "fod_http_request_duration_seconds_sum \(snapshot.sum)\n"
        out += "fod_http_request_duration_seconds_count \(snapshot.count)\n"
        for gauge in gauges {
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(gauge.value)\n"
        }
        return out
    }

    private func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
