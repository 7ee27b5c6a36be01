import API
import Crypto
import Foundation
import HTTPServer
import PostgresStore
import Storage
import SQLiteStore
import Tracking

/// All settings of `fod serve`, with defaults that work out of the box.
///
/// Precedence: command-line flag, then environment variable, then default.
struct ServerConfiguration {
    /// Directory holding the database and any other state (`--data`, `$FOD_DATA`, `./fod-data`).
    var dataDirectory = "./fod-data"
    /// A PostgreSQL connection URI (`--database`, `$FOD_DATABASE_URL`): the node then stores
    /// everything there, shared with any other node on it, instead of SQLite in `dataDirectory`.
    var databaseURL: String?
    /// Group-committing connections of this node to that database (`--database-writers`).
    var databaseWriters = PostgresStore.defaultWriterCount
    var http = HTTPServer.Configuration()
    var logLevel = Logger.Level.info
    var synchronous = Database.Synchronous.full
    /// The services' rules and limits (accounts, ingest, queries, live feed).
    var services = Services.Configuration()
    /// Days of history to keep (nil: keep everything).
    var retainDays: Int?
    /// How long live-feed events stay resumable (hours).
    var eventWindowHours = 24
    /// Where the shipped files are (`Web/`, `Data/`, `docs/`; `--share-dir`, see `ShippedFiles`).
    var webDirectory = "./Web"
    var shippedDataDirectory = "./Data"
    var docsDirectory = "./docs"
    /// The web map's street basemap (`--tile-url`): a raster tile template
    /// (`https://…/{z}/{x}/{y}.png`) the user's browser loads, OpenStreetMap's standard tiles by
    /// default; nil (`--tile-url none`) for the offline country outlines and shorelines only.
    var tileURL: String? = TileDefaults.url
    /// Plain text shown with the tiles (OpenStreetMap's attribution with the default tiles).
    var tileAttribution = TileDefaults.attribution
    /// When to merge stored fixes into the cell index (`--index-buffer` sets its high water).
    var merging = MergePolicy.standard
    /// How large the write-ahead log may grow (`--wal-limit-mib`).
    var wal = WALLimits.standard
    /// The operations listener serving `/metrics` and `/healthz` (`--metrics-listen`); nil: none.
    var metricsListener: HTTPServer.Configuration?
    /// The bearer token `/metrics` requires (`--metrics-token`); with it, `/metrics` is served on
    /// the public port too. nil: no token (and no `/metrics` on the public port).
    var metricsToken: String?

    static let optionNames: Set<String> = Set(["port", "data", "database", "database-writers", "log-level", "bind", "threads", "sync", "password-cost",
                                           "sign-in-limit", "per-ip-limit", "trusted-proxies", "max-connections", "connection-timeout",
                                           "max-body-bytes", "retain-days", "max-future-hours", "event-window-hours", "heartbeat-seconds", "tile-url", "tile-attribution", "index-buffer",
                                           "wal-limit-mib", "import-max-bytes", "signup", "share-dir"])
        .union(limitOptionNames).union(metricsOptionNames).union(notifyOptionNames).union(bodyOptionNames)

    static let help = """
        Options of `fod serve` (environment variable in brackets):
          --port <n>                 TCP port (default 8080) [FOD_PORT]
          --data <dir>               data directory: database and state (default ./fod-data) [FOD_DATA]
          --database <uri>           store everything in PostgreSQL instead, shared by every node on it:
                                     postgresql://user:password@host:port/dbname, libpq's multi-host form
                                     with target_session_attrs=read-write follows a failover [FOD_DATABASE_URL]
          --database-writers <n>     group-committing connections of this node to it, 1–16 (default \(PostgresStore.defaultWriterCount))
          --log-level <level>        debug | info | warning | error (default info) [FOD_LOG_LEVEL]
          --bind <address>           IPv4 address to listen on (default 0.0.0.0) [FOD_BIND]
          --threads <n>              HTTP polling threads (default: number of cores)
          --max-connections <n>      open connections in all (default 16384)
          --per-ip-limit <n>         open connections per client address, 0 = none (default 1024)
          --trusted-proxies <list>   proxies whose X-Forwarded-For names the client, for the per-address
                                     limits: addresses and blocks, comma-separated (127.0.0.1,10.0.0.0/8);
                                     default none, the TCP peer is the client [FOD_TRUSTED_PROXIES]
          --connection-timeout <s>   idle connection timeout in seconds (default 60)
          --max-body-bytes <n>       default request body limit (default 1048576)
          --import-max-bytes <n>     largest history file POST /v1/devices/{id}/import takes, streamed
                                     (default 4294967296 = 4 GiB)
          --sync full|normal         SQLite synchronous mode (default full: every commit survives power loss)
          --password-cost interactive|minimal   Argon2id cost (minimal is for tests only)
          --signup open|invite|closed  who may sign up: anyone; an email a group invited or whoever has an
                                     invite code (`fod user invite`); nobody (`fod user add`). Default: open
                                     while the server has no account (the first becomes the administrator),
                                     then invite [FOD_SIGNUP]; docs/administration.md
          --retain-days <n>          delete history older than n days, in small background batches (default: keep all)
          --max-future-hours <n>     reject fixes timestamped more than n hours ahead (default 24)
          --index-buffer <n>         stored fixes held in memory before the cell-index merge runs during
                                     ingest, ~150 bytes each; it always runs once ingest pauses
                                     (default: 5% of RAM, at most 2,000,000; here \(MergePolicy.defaultHighWater))
          --wal-limit-mib <n>        bound of the write-ahead log file in MiB, 1–16384; checkpoints that
                                     briefly hold writes keep it there, it is emptied once ingest pauses
                                     (default \(WALLimits.defaultMaxBytes >> 20))
          --event-window-hours <n>   how long live-feed events stay resumable with Last-Event-ID (default 24)
          --heartbeat-seconds <s>    heartbeat comment interval on live streams (default 15)
          --tile-url <template>      the web map's street tiles, loaded by the user's browser: a template such as
                                     https://tiles.example/{z}/{x}/{y}.png, or none for the offline outlines only
                                     (default \(TileDefaults.url)) [FOD_TILE_URL]
          --tile-attribution <text>  attribution shown with those tiles (default with OpenStreetMap's:
                                     "\(TileDefaults.attribution)") [FOD_TILE_ATTRIBUTION]
          --share-dir <dir>          where the web app, Data/ and docs/ are (default: found from the binary's
                                     location, e.g. /usr/local/share/fod beside /usr/local/bin/fod) [FOD_SHARE_DIR]

        """ + notifyHelp + metricsHelp + limitsHelp + "\n" + bodiesHelp

    init(arguments: Arguments, environment: [String: String]) throws(UsageError) {
        try arguments.rejectUnknown(Self.optionNames)
        dataDirectory = arguments.options["data"] ?? environment["FOD_DATA"] ?? dataDirectory
        if let url = arguments.options["database"] ?? environment["FOD_DATABASE_URL"], !url.isEmpty {
            guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
                throw UsageError("--database must be a postgresql:// connection URI")
            }
            databaseURL = url
        }
        if let writers = try arguments.int("database-writers") {
            guard (1...16).contains(writers) else { throw UsageError("--database-writers must be 1–16") }
            databaseWriters = writers
        }
        if let port = try arguments.int("port") ?? environment["FOD_PORT"].flatMap({ Int($0) }) {
            guard (0...65_535).contains(port) else { throw UsageError("--port must be 0–65535") }
            http.port = UInt16(port)
        }
        if let bind = arguments.options["bind"] ?? environment["FOD_BIND"] { http.bindAddress = bind }
        if let name = arguments.options["log-level"] ?? environment["FOD_LOG_LEVEL"] {
            guard let level = Logger.Level(name: name) else { throw UsageError("--log-level must be debug, info, warning or error") }
            logLevel = level
        }
        if let threads = try arguments.int("threads") {
            guard (1...64).contains(threads) else { throw UsageError("--threads must be 1–64") }
            http.threadPoolSize = threads
        }
        if let n = try arguments.int("max-connections") { http.connectionLimit = max(1, n) }
        if let n = try arguments.int("per-ip-limit") { http.perIPConnectionLimit = max(0, n) }
        if let list = arguments.options["trusted-proxies"] ?? environment["FOD_TRUSTED_PROXIES"] {
            guard let proxies = TrustedProxies(list: list) else {
                throw UsageError("--trusted-proxies must list IP addresses or blocks (10.0.0.0/8), comma-separated, not \(list)")
            }
            http.trustedProxies = proxies
        }
        if let n = try arguments.int("connection-timeout") { http.connectionTimeoutSeconds = max(1, n) }
        if let n = try arguments.int("max-body-bytes") { http.defaultMaxBodyBytes = max(1024, n) }
        if let n = try arguments.int("import-max-bytes") {
            guard n >= 1024 else { throw UsageError("--import-max-bytes must be at least 1024") }
            services.importMaxBytes = n
        }
        if let sync = arguments.options["sync"] {
            guard let mode = Database.Synchronous(rawValue: sync.uppercased()) else { throw UsageError("--sync must be full or normal") }
            synchronous = mode
        }
        if let cost = arguments.options["password-cost"] {
            guard let value = PasswordHasher.Cost(rawValue: cost) else { throw UsageError("--password-cost must be interactive or minimal") }
            services.accounts.passwordCost = value
        }
        if let policy = arguments.options["signup"] ?? environment["FOD_SIGNUP"], !policy.isEmpty {
            guard let value = SignUpPolicy(rawValue: policy) else { throw UsageError("--signup must be open, invite or closed, not \(policy)") }
            services.accounts.signUp = value
        }
        if let n = try arguments.int("retain-days") {
            guard n >= 1 else { throw UsageError("--retain-days must be at least 1") }
            retainDays = n
        }
        let shipped = ShippedFiles(shareDirectory: arguments.options["share-dir"], environment: environment)
        webDirectory = shipped.web
        shippedDataDirectory = shipped.data
        docsDirectory = shipped.docs
        (tileURL, tileAttribution) = TileDefaults.resolve(url: arguments.options["tile-url"] ?? environment["FOD_TILE_URL"],
                                                          attribution: arguments.options["tile-attribution"] ?? environment["FOD_TILE_ATTRIBUTION"])
        if let n = try arguments.int("event-window-hours") {
            guard n >= 1 else { throw UsageError("--event-window-hours must be at least 1") }
            eventWindowHours = n
        }
        if let text = arguments.options["heartbeat-seconds"] {
            guard let s = Double(text), s >= 0.05, s <= 3600 else { throw UsageError("--heartbeat-seconds must be 0.05–3600") }
            services.live.heartbeatSeconds = s
        }
        if let n = try arguments.int("index-buffer") {
            guard (10_000...50_000_000).contains(n) else { throw UsageError("--index-buffer must be 10000–50000000") }
            merging.highWater = n
        }
        if let n = try arguments.int("wal-limit-mib") {
            guard (1...16_384).contains(n) else { throw UsageError("--wal-limit-mib must be 1–16384") }
            wal.maxBytes = Int64(n) << 20
        }
        if let n = try arguments.int("max-future-hours") {
            guard (0...8760).contains(n) else { throw UsageError("--max-future-hours must be 0–8760") }
            services.fixRules.maxFutureMilliseconds = Int64(n) * 3_600_000
        }
        try parseLimits(arguments)
        try parseMetrics(arguments, environment: environment)
        try parseNotifications(arguments, environment: environment)
        try parseBodyLimits(arguments)
    }
}
