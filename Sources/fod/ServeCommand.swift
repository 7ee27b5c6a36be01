import API
import Dispatch
import Foundation
import HTTPServer
import LocationFormats
import Timestamps
import PostgresStore
import SQLiteStore
import Tracking

/// `fod serve`: open the store (the data directory's SQLite database, or PostgreSQL with
/// `--database`), start the HTTP server, run until SIGINT/SIGTERM, then
/// stop everything in reverse order of starting (`ServiceGroup`): the demo replay, the HTTP
/// server (no longer accepting, in-flight requests finished), the background jobs, and last the
/// database.
enum ServeCommand {
    /// - Parameter afterStart: runs once the server listens (the demo starts its replay here);
    ///   the task it returns is cancelled at shutdown.
    static func run(_ configuration: ServerConfiguration,
                    afterStart: (@Sendable (Services, Logger) -> Task<Void, Never>)? = nil) throws {
        let logger = Logger(level: configuration.logLevel)
        unblockStopSignals()
        // Handlers first: a signal that arrives while starting must stop us cleanly too.
        let lifecycle = ServiceGroup(logger: logger)
        // Past a file-size limit (`ulimit -f`, systemd's LimitFSIZE=) a write raises SIGXFSZ,
        // which kills the process; ignored, the write fails with EFBIG and the request gets a
        // 503 `storage_full` like on a full disk.
        signal(SIGXFSZ, SIG_IGN)
        raiseOpenFileLimit()
        // On the embedded database this server is the data directory's one writer while it runs:
        // commands that write it (`fod import`, ...) refuse until it stops.
        let dataLock = configuration.databaseURL == nil
            ? try DataDirectoryLock.acquire(configuration.dataDirectory, for: "fod serve", advice: "stop it first (one server per data directory)")
            : nil
        defer { withExtendedLifetime(dataLock) {} }
        let storage = try NodeStorage.open(configuration, logger: logger)
        let backend = storage.store
        lifecycle.add(StopAction(name: "database") {
            backend.close()
            logger.info("database closed")
        })
        do {
            try startServices(configuration, storage: storage, lifecycle: lifecycle, logger: logger, afterStart: afterStart)
        } catch {
            lifecycle.shutdown()
            throw error
        }
        lifecycle.runUntilStopped()
        logger.info("bye")
    }

    /// Starts everything above the store, each added to `lifecycle` as it starts: the services,
    /// background jobs, the HTTP server, then `afterStart`'s task.
    private static func startServices(_ configuration: ServerConfiguration, storage: NodeStorage, lifecycle: ServiceGroup,
                                      logger: Logger, afterStart: (@Sendable (Services, Logger) -> Task<Void, Never>)?) throws {
        let backend = storage.store
        // On PostgreSQL relays feed the live hub and share streams from every node's commits, this node's too.
        var settings = configuration.services
        // On PostgreSQL an index seek is a round trip: geo queries go to a task at once instead of
        // trying on the server's thread first (an attempt there held it for milliseconds and was
        // then repeated: \$near k=10 over HTTP took 3× the engine's time at 1M fixes).
        if storage.postgres != nil {
            settings.queryInlineBudget = nil
            settings.ingestInlineBodyBytes = nil
            settings.credentialChecksInline = false
        }
        let services = try Services(store: backend, configuration: settings, logger: logger,
                                    towns: TownsFile.load(from: configuration.shippedDataDirectory, logger: logger))
        lifecycle.add(BackgroundJob(name: "event and session pruning",
                                    task: startEventPruning(backend, accounts: services.accounts, windowHours: configuration.eventWindowHours,
                                                            exclusive: storage.exclusive, logger: logger)))
        if let days = configuration.retainDays {
            lifecycle.add(BackgroundJob(name: "retention", task: startRetention(RetentionJob(store: backend, retainDays: days),
                                                                                exclusive: storage.exclusive, logger: logger)))
        }
        // The store announces its commits to the consumers `Services` registered (on PostgreSQL
        // through relays of every node's commits).
        try backend.startPublishing { logger.warning($0) }
        lifecycle.add(StopAction(name: "commit publishing") { backend.stopPublishing() })
        services.startNotifications()
        lifecycle.add(StopAction(name: "notifications") { services.stopNotifications() })
        let errors = ErrorMapper(logger: logger)
        let serverBox = ServerBox()
        var webConfiguration = WebAssets.Configuration(webDirectory: configuration.webDirectory,
                                                       dataDirectory: configuration.shippedDataDirectory)
        webConfiguration.tileURL = configuration.tileURL
        webConfiguration.tileAttribution = configuration.tileAttribution
        let web = WebAssets(webConfiguration)
        logger.info("web map: \(web.hasPage ? "served at /" : "not found at \(configuration.webDirectory) (see --share-dir)"); Leaflet \(web.hasLeaflet ? "from libjs-leaflet" : "not installed: built-in SVG map")")
        if web.security.tilesRefused {
            logger.warning("--tile-url ignored: the Content-Security-Policy cannot allow it (use http(s)://host/…, placeholders only in the leading host labels)")
        }
        let basemap = BasemapFile.load(from: webConfiguration.dataDirectory, logger: logger)
        let openAPI = OpenAPIDocument(path: configuration.docsDirectory + "/openapi.yaml")
        if !openAPI.isLoaded { logger.warning("docs/openapi.yaml not found: GET /openapi.yaml answers 404") }
        let metricsText: @Sendable () -> String = {
            guard let server = serverBox.server else { return "" }
            return server.metrics.render(gauges: [("fod_open_connections", "Open HTTP connections.", Double(server.openConnectionCount)),
                                                  ("fod_http_body_bytes_held", "Request body bytes held in memory across connections (--body-budget-mib).",
                                                   Double(server.heldBodyBytes))]
                + backend.gauges.map { ($0.name, $0.help, $0.value) }) + services.rejectionMetrics.render() + services.deliveryWorker.counters.render()
        }
        // On the public port only with a token (`--metrics-token`); else 404 there.
        let publicMetrics = configuration.metricsToken.map { MetricsEndpoint(bearerToken: $0, render: metricsText) }
        let router = API.router(services, web: web, basemap: basemap, openAPI: openAPI, metrics: publicMetrics)
        let server = HTTPServer(configuration: configuration.http, router: router, logger: logger) { error, request in
            errors.response(for: error, request: request)
        }
        serverBox.server = server
        try server.start()
        lifecycle.add(StopAction(name: "http") { server.shutdown() })
        let operationsRouter = API.operationsRouter(metrics: MetricsEndpoint(bearerToken: configuration.metricsToken, render: metricsText),
                                                    publicRouter: router)
        let operations = try startMetricsListener(configuration, router: operationsRouter, lifecycle: lifecycle, errors: errors, logger: logger)
        // Machine-readable lines for scripts and tests that start servers on port 0.
        FileHandle.standardOutput.write(Data("fod listening on port \(server.port)\n".utf8))
        if let operations { FileHandle.standardOutput.write(Data("fod metrics listening on port \(operations.port)\n".utf8)) }
        if let extra = afterStart?(services, logger) {
            lifecycle.add(BackgroundJob(name: "demo replay", task: extra))
        }
    }

    /// Starts the operations listener of `--metrics-listen` (`/metrics`, `/healthz`), if set.
    private static func startMetricsListener(_ configuration: ServerConfiguration, router: Router, lifecycle: ServiceGroup,
                                             errors: ErrorMapper, logger: Logger) throws -> HTTPServer? {
        guard let listener = configuration.metricsListener else { return nil }
        let server = HTTPServer(configuration: listener, router: router, logger: logger) { error, request in
            errors.response(for: error, request: request)
        }
        try server.start()
        lifecycle.add(StopAction(name: "metrics listener") { server.shutdown() })
        return server
    }

    /// Purges expired history now and every 10 minutes, in small batches, until cancelled.
    /// On PostgreSQL each pass runs on one node at a time (`exclusive`).
    static func startRetention(_ job: RetentionJob, exclusive: @escaping NodeStorage.Exclusive, logger: Logger) -> Task<Void, Never> {
        Task.detached(priority: .background) {
            while !Task.isCancelled {
                do {
                    let purged = try await exclusive("retention") { try await job.runOnce() } ?? 0
                    if purged > 0 { logger.info("retention: deleted \(purged) expired fix(es)") }
                } catch {
                    logger.warning("retention pass failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(600))
            }
        }
    }

    /// Drops live-feed events older than the window, now and every 10 minutes.
    /// Every ten minutes: prunes live-feed events past the window and deletes expired sessions,
    /// invite codes, invitations by email and import tokens.
    static func startEventPruning(_ log: any EventLog, accounts: AccountService, windowHours: Int,
                                  exclusive: @escaping NodeStorage.Exclusive, logger: Logger) -> Task<Void, Never> {
        Task.detached(priority: .background) {
            while !Task.isCancelled {
                do {
                    let pruned = try await exclusive("event-pruning") {
                        try await log.pruneEvents(before: Timestamp.nowMilliseconds() - Int64(windowHours) * 3_600_000)
                    } ?? 0
                    if pruned > 0 { logger.info("live feed: pruned \(pruned) event(s) older than \(windowHours) h") }
                    let expired = try await exclusive("session-expiry") { try await accounts.purgeExpiredSessions() } ?? 0
                    if expired > 0 { logger.info("sessions: deleted \(expired) expired session(s)") }
                    let grants = try await exclusive("grant-expiry") { try await accounts.purgeExpiredGrants() } ?? 0
                    if grants > 0 { logger.info("accounts: deleted \(grants) expired invite code(s), invitation(s) by email and import token(s)") }
                } catch {
                    logger.warning("event and session pruning failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(600))
            }
        }
    }

    /// A parent may start us with SIGINT/SIGTERM blocked (the mask is inherited across exec):
    /// unblock them before any thread exists, so every thread inherits the open mask.
    static func unblockStopSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Many open streams need many descriptors: raise the soft limit to the hard one.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }
}

/// Lets the metrics closure reach the server created after the router.
final class ServerBox: @unchecked Sendable {
    // @unchecked: written once before the server starts, read only afterwards.
    var server: HTTPServer?
}
