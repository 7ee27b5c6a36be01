import API
import Tracking

/// The abuse limits and query tuning of `fod serve` (docs/security.md).
extension ServerConfiguration {
    static let limitOptionNames: Set<String> = [
        "sign-up-limit", "sign-in-limit", "sign-in-address-limit", "sign-in-failures-per-day", "sign-in-free-failures", "invitation-limit", "device-request-rate",
        "device-request-burst", "streams-per-user", "max-events-per-append", "query-max-keys", "query-timeout-ms",
        "concurrent-queries", "session-idle-days", "session-max-days", "sessions-per-user", "hashing-threads",
        "hashing-queue", "cover-max-cells", "cover-max-level", "near-scan-level", "fanout-interval-ms",
        "places-per-group", "place-vertices", "share-links-per-device", "share-link-max-hours",
        "share-lookup-limit", "share-streams-per-link",
    ]

    static let limitsHelp = """
        Limits (docs/security.md):
          --sign-up-limit <n>        sign-ups per client address per hour (default 20)
          --sign-in-limit <n>        sign-in attempts per minute per (address, email) pair (default 10)
          --sign-in-address-limit <n>  sign-in attempts per minute per address, any emails (default 60)
          --sign-in-failures-per-day <n>  consecutive failed sign-ins per account a day, all addresses
                                     together; a fifth of them only from addresses the account signed
                                     in from before (default 100, at most 100)
          --sign-in-free-failures <n> failed sign-ins per account before attempts from other addresses
                                     wait 1 s, doubling with each failure up to 15 min (default 5)
          --invitation-limit <n>     invitations one user may send per hour (default 50)
          --device-request-rate <r>  ingest requests per second per device, 0 = no limit (default 20)
          --device-request-burst <n> requests a device may make at once after a pause (default 100)
          --streams-per-user <n>     live streams one user may hold open (default 32)
          --max-events-per-append <n>  location events one post logs per group; beyond, a summary (default 100)
          --query-max-keys <n>       positions a geo query may examine (default 5000000)
          --query-timeout-ms <n>     time a geo query may take (default 10000)
          --concurrent-queries <n>   geo queries running at once; more get 503 (default 4 × cores)
          --session-idle-days <n>    a session unused this long stops working (default 30)
          --session-max-days <n>     a session stops working this long after sign-in (default 180)
          --sessions-per-user <n>    sessions one user holds; the oldest go first (default 50)
          --hashing-threads <n>      threads hashing passwords (default 2)
          --hashing-queue <n>        password checks that may wait before 503 (default 32)
          --places-per-group <n>     places (geofences) one group may have (default 100)
          --place-vertices <n>       positions a place polygon may have (default 1000)
          --share-links-per-device <n>  share links one device may have, expired ones included (default 50)
          --share-link-max-hours <n> longest lifetime a share link may ask for (default 168, a week)
          --share-lookup-limit <n>   unknown share-link tokens one address may try per 10 minutes (default 30)
          --share-streams-per-link <n>  live streams one share link may hold open (default 16)
        Query tuning (for experiments):
          --cover-max-cells <n>      cells in a query region's covering (default 8; at least 16/32/48 from ~15/25/50 km in radius)
          --cover-max-level <n>      finest covering level (default 16)
          --near-scan-level <n>      level at which $near starts scanning (default: by limit)
          --fanout-interval-ms <n>   least time between two live fan-out passes (default 10)
        """

    /// An integer option in `range`, or nil when absent.
    func bounded(_ arguments: Arguments, _ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let value = try arguments.int(name) else { return nil }
        guard range.contains(value) else { throw UsageError("--\(name) must be \(range.lowerBound)–\(range.upperBound)") }
        return value
    }

    mutating func parseLimits(_ arguments: Arguments) throws(UsageError) {
        if let n = try bounded(arguments, "sign-up-limit", 1...1_000_000) { services.accounts.signUpsPerAddressPerHour = n }
        if let n = try bounded(arguments, "sign-in-limit", 1...1_000_000) { services.accounts.signInsPerAccountAndAddressPerMinute = n }
        if let n = try bounded(arguments, "sign-in-address-limit", 1...1_000_000) { services.accounts.signInsPerAddressPerMinute = n }
        if let n = try bounded(arguments, "sign-in-failures-per-day", 1...100) {
            let throttle = services.accounts.signInThrottle
            services.accounts.signInThrottle = SignInThrottle(failuresPerDay: n, freeFailures: throttle.freeFailures)
        }
        if let n = try bounded(arguments, "sign-in-free-failures", 1...100) {
            let throttle = services.accounts.signInThrottle
            services.accounts.signInThrottle = SignInThrottle(failuresPerDay: throttle.failuresPerDay, freeFailures: n)
        }
        if let n = try bounded(arguments, "invitation-limit", 1...1_000_000) { services.groups.invitationsPerUserPerHour = n }
        if let text = arguments.options["device-request-rate"] {
            guard let rate = Double(text), rate >= 0, rate <= 1_000_000 else {
                throw UsageError("--device-request-rate must be 0 (no limit) to 1000000 requests per second")
            }
            services.deviceRequests.perSecond = rate
        }
        if let n = try bounded(arguments, "device-request-burst", 1...1_000_000) { services.deviceRequests.burst = n }
        if let n = try bounded(arguments, "streams-per-user", 1...100_000) { services.live.streamsPerUser = n }
        if let n = try bounded(arguments, "max-events-per-append", 1...10_000) { services.locationEvents = LocationEventRule(maxEventsPerAppend: n) }
        if let n = try bounded(arguments, "query-max-keys", 1_000...1_000_000_000) { services.queryLimits.maxKeysExamined = n }
        if let n = try bounded(arguments, "query-timeout-ms", 10...3_600_000) { services.queryLimits.maxMilliseconds = Int64(n) }
        if let n = try bounded(arguments, "concurrent-queries", 1...10_000) { services.concurrentQueries = n }
        if let n = try bounded(arguments, "session-idle-days", 1...3_650) { services.accounts.sessionIdleMilliseconds = Int64(n) * 86_400_000 }
        if let n = try bounded(arguments, "session-max-days", 1...3_650) { services.accounts.sessionLifetimeMilliseconds = Int64(n) * 86_400_000 }
        if let n = try bounded(arguments, "sessions-per-user", 1...10_000) { services.accounts.sessionsPerUser = n }
        if let n = try bounded(arguments, "hashing-threads", 1...64) { services.accounts.hashingThreads = n }
        if let n = try bounded(arguments, "hashing-queue", 0...100_000) { services.accounts.hashingQueue = n }
        if let n = try bounded(arguments, "cover-max-cells", 1...1_000) { services.queryTuning.coverer.maxCells = n }
        if let n = try bounded(arguments, "cover-max-level", 2...30) { services.queryTuning.coverer.maxLevel = n }
        if let n = try bounded(arguments, "near-scan-level", 4...24) { services.queryTuning.nearScanLevel = n }
        if let n = try bounded(arguments, "fanout-interval-ms", 0...1_000) { services.live.fanOutIntervalMilliseconds = n }
        if let n = try bounded(arguments, "places-per-group", 1...100_000) { services.places.placesPerGroup = n }
        if let n = try bounded(arguments, "place-vertices", 4...100_000) { services.places.verticesPerPolygon = n }
        if let n = try bounded(arguments, "share-links-per-device", 1...10_000) { services.shares.linksPerDevice = n }
        if let n = try bounded(arguments, "share-link-max-hours", 1...8_760) {
            let longest = Int64(n) * 3_600
            services.shares.lifetimeSeconds = services.shares.lifetimeSeconds.lowerBound...max(longest, services.shares.lifetimeSeconds.lowerBound)
            services.shares.defaultLifetimeSeconds = min(services.shares.defaultLifetimeSeconds, longest)
        }
        if let n = try bounded(arguments, "share-lookup-limit", 1...1_000_000) { services.shares.failedLookupsPerAddress = n }
        if let n = try bounded(arguments, "share-streams-per-link", 1...10_000) { services.shares.streamsPerLink = n }
    }
}
