import HTTPServer

/// Where `GET /metrics` is served (docs/security.md): on a listener of its own
/// (`--metrics-listen`), or on the public port to a bearer token (`--metrics-token`); neither:
/// nowhere (404 on the public port).
extension ServerConfiguration {
    static let metricsOptionNames: Set<String> = ["metrics-listen", "metrics-token"]

    static let metricsHelp = """
        Operations:
          --metrics-listen <ip:port> serve /metrics and /healthz on this IPv4 address and port only,
                                     e.g. 127.0.0.1:9100 (default: no such listener) [FOD_METRICS_LISTEN]
          --metrics-token <token>    the bearer token /metrics requires, 16–200 printable characters; with it
                                     /metrics is also served on the public port (default: none, and /metrics
                                     is not served there) [FOD_METRICS_TOKEN]

        """

    /// Shortest bearer token accepted: a guessable one would open the metrics to anyone.
    static let shortestMetricsToken = 16

    mutating func parseMetrics(_ arguments: Arguments, environment: [String: String]) throws(UsageError) {
        if let text = arguments.options["metrics-listen"] ?? environment["FOD_METRICS_LISTEN"], !text.isEmpty {
            metricsListener = try Self.metricsListener(text)
        }
        if let token = arguments.options["metrics-token"] ?? environment["FOD_METRICS_TOKEN"], !token.isEmpty {
            guard (Self.shortestMetricsToken...200).contains(token.utf8.count),
                  token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
                throw UsageError("--metrics-token must be \(Self.shortestMetricsToken)–200 printable ASCII characters without spaces")
            }
            metricsToken = token
        }
    }

    /// The settings of the operations listener at `text` (`<IPv4 address>:<port>`): one thread
    /// and a few connections are plenty for scrapers.
    static func metricsListener(_ text: String) throws(UsageError) -> HTTPServer.Configuration {
        let failure = UsageError("--metrics-listen must be <IPv4 address>:<port>, such as 127.0.0.1:9100, not \(text)")
        guard let colon = text.lastIndex(of: ":") else { throw failure }
        let host = String(text[..<colon])
        guard !host.contains(":"), IPAddress(host)?.isIPv4 == true,
              let port = UInt16(text[text.index(after: colon)...]) else { throw failure }
        var listener = HTTPServer.Configuration()
        listener.bindAddress = host
        listener.port = port
        listener.threadPoolSize = 1
        listener.connectionLimit = 64
        listener.perIPConnectionLimit = 0
        listener.defaultMaxBodyBytes = 1024
        return listener
    }
}
