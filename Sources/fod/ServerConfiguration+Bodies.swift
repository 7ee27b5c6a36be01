import HTTPServer

/// The request-body limits of `fod serve` (docs/security.md): the memory all
/// bodies may hold at once, the anonymous share and cap, the pace a body must keep, and how
/// many history imports run at once.
extension ServerConfiguration {
    static let bodyOptionNames: Set<String> = [
        "body-budget-mib", "anonymous-body-budget-kib", "anonymous-body-bytes", "body-timeout", "body-min-rate",
        "body-rate-grace", "imports-per-device", "concurrent-imports",
    ]

    static let bodiesHelp = """
        Request bodies (docs/security.md):
          --body-budget-mib <n>      MiB of request bodies held in memory at once, all connections; past it
                                     503 with Retry-After (default \(HTTPServer.BodyLimits().budgetBytes >> 20))
          --anonymous-body-budget-kib <n>  KiB of it that bodies without a checked credential may hold
                                     (at most the budget; default \(HTTPServer.BodyLimits().anonymousBudgetBytes >> 10))
          --anonymous-body-bytes <n> largest body without a checked credential: sign-up, sign-in, an OsmAnd
                                     form with the device id in the body (default \(HTTPServer.BodyLimits().anonymousBodyBytes))
          --body-timeout <s>         seconds a body may go without a byte arriving before its connection
                                     is closed (default \(HTTPServer.BodyLimits().readTimeoutSeconds))
          --body-min-rate <n>        least average bytes per second of a body after the grace period, or
                                     its connection is cut; 0 = none (default \(HTTPServer.BodyLimits().minimumBytesPerSecond))
          --body-rate-grace <s>      seconds a body may arrive at any rate (default \(Int(HTTPServer.BodyLimits().rateGraceSeconds)))
          --imports-per-device <n>   history imports one device may run at once; more get 429 (default 2)
          --concurrent-imports <n>   history imports running at once; more get 503 (default 4, or 2 × cores)
        """

    mutating func parseBodyLimits(_ arguments: Arguments) throws(UsageError) {
        if let n = try bounded(arguments, "body-budget-mib", 1...1_048_576) { http.bodies.budgetBytes = n << 20 }
        if let n = try bounded(arguments, "anonymous-body-budget-kib", 16...1_073_741_824) { http.bodies.anonymousBudgetBytes = n << 10 }
        if let n = try bounded(arguments, "anonymous-body-bytes", 1_024...(64 << 20)) { http.bodies.anonymousBodyBytes = n }
        if let n = try bounded(arguments, "body-timeout", 1...3_600) { http.bodies.readTimeoutSeconds = n }
        if let n = try bounded(arguments, "body-min-rate", 0...1_073_741_824) { http.bodies.minimumBytesPerSecond = n }
        if let n = try bounded(arguments, "body-rate-grace", 0...3_600) { http.bodies.rateGraceSeconds = Double(n) }
        if let n = try bounded(arguments, "imports-per-device", 1...1_000) { services.importsPerDevice = n }
        if let n = try bounded(arguments, "concurrent-imports", 1...10_000) { services.concurrentImports = n }
    }
}
