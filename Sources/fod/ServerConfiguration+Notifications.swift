import API

/// `fod serve`'s notification options (API.md "Notifications").
extension ServerConfiguration {
    static let notifyOptionNames: Set<String> = ["notify-allow-private", "public-url", "notify-senders", "notify-backoff-ms",
                                                 "notify-retry-hours", "notify-disable-after-seconds", "notify-lease-seconds",
                                                 "notify-catch-up-seconds"]

    static let notifyHelp = """
        Notifications:
          --public-url <url>         the server as people reach it (https://fod.example.org): links in
                                     ntfy notifications open its web map [FOD_PUBLIC_URL]
          --notify-allow-private     allow channels to loopback, private and link-local addresses
                                     (receivers on your own network; default: refused) [FOD_NOTIFY_ALLOW_PRIVATE=1]
          --notify-senders <n>       sender threads, each sending 8 channels at once, 1–64 (default 8)
          --notify-backoff-ms <list> waits before each retry, comma-separated ms; the last repeats, each
                                     spread ±20% (default 5000,30000,120000,300000,900000,1800000,3600000,7200000)
          --notify-retry-hours <n>   how long a delivery is retried, 1–168 (default 24)
          --notify-disable-after-seconds <n>
                                     a channel whose attempts all failed this long is disabled (default 86400)
          --notify-lease-seconds <n> how long a node holds a delivery it is sending, 2–3600 (default 60)
          --notify-catch-up-seconds <s>  how often the matcher looks for alerts it missed (default 5)

        """

    mutating func parseNotifications(_ arguments: Arguments, environment: [String: String]) throws(UsageError) {
        var notify = services.notifications
        if arguments.flags.contains("notify-allow-private") || arguments.options["notify-allow-private"] == "true"
            || environment["FOD_NOTIFY_ALLOW_PRIVATE"] == "1" {
            notify.client.policy.allowPrivate = true
        }
        if let url = arguments.options["public-url"] ?? environment["FOD_PUBLIC_URL"], !url.isEmpty {
            guard (url.hasPrefix("https://") || url.hasPrefix("http://")), url.utf8.count <= 512,
                  url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
                throw UsageError("--public-url must be an http:// or https:// URL")
            }
            notify.webMapURL = url.hasSuffix("/") ? url : url + "/"
        }
        if let n = try bounded(arguments, "notify-senders", 1...64) { notify.worker.senders = n }
        if let list = arguments.options["notify-backoff-ms"] {
            let waits = list.split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard !waits.isEmpty, waits.count <= 32, waits.allSatisfy({ (1...86_400_000).contains($0) }) else {
                throw UsageError("--notify-backoff-ms must list 1 to 32 waits of 1 to 86400000 ms, comma-separated")
            }
            notify.worker.policy.backoff = waits
        }
        if let n = try bounded(arguments, "notify-retry-hours", 1...168) { notify.worker.policy.retryFor = Int64(n) * 3_600_000 }
        if let n = try bounded(arguments, "notify-disable-after-seconds", 1...31_536_000) { notify.worker.policy.disableAfter = Int64(n) * 1_000 }
        if let n = try bounded(arguments, "notify-lease-seconds", 2...3_600) { notify.worker.leaseMilliseconds = Int64(n) * 1_000 }
        if let text = arguments.options["notify-catch-up-seconds"] {
            guard let s = Double(text), s >= 0.05, s <= 3_600 else { throw UsageError("--notify-catch-up-seconds must be 0.05–3600") }
            notify.matcher.catchUpSeconds = s
        }
        services.notifications = notify
    }
}
