import Crypto
import Exports
import HTTPServer
import JSONCore
import LocationFormats
import Timeline
import Tracking
import Outbound

/// Everything the routes need, built once at start-up by the executable (or a test).
public struct Services: Sendable {
    /// Every rule and limit of the services that is a setting, with working defaults.
    public struct Configuration: Sendable {
        public var accounts = AccountService.Policy()
        public var groups = GroupService.Policy()
        public var fixRules = FixRules.standard
        public var locationEvents = LocationEventRule.standard
        public var deviceRequests = LocationService.RequestLimit.standard
        public var queryLimits = GeoQueryService.Limits()
        public var queryTuning = GeoQueryService.Tuning()
        /// Index rows and seeks a geo query may use on the server's thread before it runs again
        /// from a task (`QueryRoutes.inlineBudget`); nil: always from a task — for a store whose
        /// seeks are network round trips (PostgreSQL), where an attempt holds the thread for
        /// milliseconds and is then repeated.
        public var queryInlineBudget: WorkBudget? = QueryRoutes.inlineBudget
        /// Largest ingest body (bytes) parsed and handed to the writer on the server's thread,
        /// which then answers from the writer (`Handler.completing`); larger bodies are parsed
        /// from a task. nil: always from a task — for a store where the credential, the device's
        /// request limit or the write may wait on the network (PostgreSQL).
        public var ingestInlineBodyBytes: Int? = RouteGroup.smallBody
        /// Geo queries running at once; more get 503 (they run off the HTTP threads).
        public var concurrentQueries = 4 * System.coreCount
        public var live = LiveHub.Configuration()
        /// Largest history file `POST /v1/devices/{id}/import` takes (bytes; default 4 GiB).
        public var importMaxBytes = 4 << 30
        /// History imports one device may run at once; more get 429 with Retry-After.
        public var importsPerDevice = 2
        /// History imports running at once on this node; more get 503 with Retry-After.
        public var concurrentImports = max(4, 2 * System.coreCount)
        /// Whether a route's credential is checked on the server's thread before a body is
        /// read (`HeadCheck.runsInline`): a lookup in the local SQLite file. False for a store
        /// where it is a network round trip (PostgreSQL): the check then runs from a task.
        public var credentialChecksInline = true
        public var shares = ShareService.Policy()
        public var shareStreams = ShareFeed.Configuration()
        public var places = PlaceLimits()
        public var notifications = NotificationSettings()
        public init() {}
    }

    public let store: any TrackingStore
    public let configuration: Configuration
    public let accounts: AccountService
    public let devices: DeviceService
    public let groups: GroupService
    public let locations: LocationService
    public let queries: GeoQueryService
    public let queryGate: AdmissionGate
    /// The history imports running now (`importsPerDevice`, `concurrentImports`).
    public let importSlots: ImportSlots
    public let live: LiveHub
    /// The one door committed group events leave by: the live hub and the alert matcher are
    /// its consumers (registered here, on one node or many).
    public let door: CommitDoor
    public let notifications: NotificationService
    /// Test sends through a channel, outside the queue.
    public let channelTests: ChannelTestSend
    /// Matches committed `place` events to alerts (a durable consumer of the group logs).
    public let alertConsumer: AlertConsumer
    /// Sends the queued deliveries.
    public let deliveryWorker: DeliveryWorker
    public let exports: ExportService
    public let feed: FeedService
    public let imports: HistoryImportService
    /// Tokens that import one file into one device (`POST /v1/devices/{id}/import-tokens`).
    public let importTokens: ImportTokenService
    public let timeline: TimelineService
    public let shares: ShareService
    /// The live streams of share links.
    public let shareFeed: ShareFeed
    public let friends: FriendsService
    public let places: PlaceService
    /// The owner's reads of what a device's apps sent besides fixes; the OwnTracks secret.
    public let deviceLog: DeviceLogService
    /// Phone-app messages recorded instead of stored, for `/metrics`.
    public let rejectionMetrics = RejectionMetrics()
    public let logger: Logger

    /// Everything wired to one store. The consumers of its commits — the live hub, the alert
    /// matcher, the share links' streams — are registered here, once, on the store's
    /// `CommitDoor`; the store announces its commits there, on one node or many (call
    /// `store.startPublishing` once this is made).
    /// - Parameters:
    ///   - towns: the nearest-town index that names timeline stays (`Data/places-cities1000.bin`); nil names none.
    ///   - stayPlaces: group places that name stays first (default: the store's group places).
    public init(store backend: any TrackingStore, configuration: Configuration = Configuration(), logger: Logger,
                towns: NearestPlace? = nil, stayPlaces: (any StayPlaceLookup)? = nil) throws {
        self.store = backend
        self.configuration = configuration
        let live = LiveHub(log: backend, configuration: configuration.live)
        self.live = live
        let notify = configuration.notifications
        let transport = OutboundTransport(client: OutboundClient(configuration: notify.client))
        let worker = DeliveryWorker(store: backend, transport: transport, configuration: notify.worker, webMapURL: notify.webMapURL,
                                    logger: logger)
        self.deliveryWorker = worker
        self.alertConsumer = AlertConsumer(store: backend, configuration: notify.matcher, logger: logger) { worker.wake() }
        self.notifications = NotificationService(store: backend, transport: transport, facts: backend, limits: notify.limits)
        self.channelTests = ChannelTestSend(transport: transport, webMapURL: notify.webMapURL)
        let shareFeed = ShareFeed(configuration: configuration.shareStreams)
        self.shareFeed = shareFeed
        let door = backend.commits
        door.register(events: live)
        door.register(eventsCommittedHere: alertConsumer)
        door.register(shares: shareFeed)
        self.door = door
        let limits = backend.limitCounters
        self.shares = ShareService(store: backend, directory: backend, policy: configuration.shares, limits: limits)
        self.friends = FriendsService(store: backend, directory: backend)
        self.accounts = try AccountService(store: backend, directory: backend, policy: configuration.accounts,
                                           hashing: PasswordWork(policy: configuration.accounts), limits: limits)
        self.devices = DeviceService(store: backend)
        var groupPolicy = configuration.groups
        // Whenever sign-up is not open to anyone (the default once the server has an account),
        // an invitation to an email without an account waits for it: it is how people get in.
        groupPolicy.invitesEmailsWithoutAccount = (configuration.accounts.signUp ?? .invite).keepsInvitationsByEmail
        self.groups = GroupService(store: backend, policy: groupPolicy, limits: limits)
        self.locations = LocationService(store: backend, directory: backend, rules: configuration.fixRules,
                                         events: configuration.locationEvents, requestLimit: configuration.deviceRequests, limits: limits)
        self.queries = GeoQueryService(index: backend, directory: backend, tuning: configuration.queryTuning, limits: configuration.queryLimits)
        self.queryGate = AdmissionGate(limit: configuration.concurrentQueries, what: "geo queries")
        self.importSlots = ImportSlots(perDevice: configuration.importsPerDevice, total: configuration.concurrentImports)
        self.exports = ExportService(store: backend, directory: backend, visibility: backend)
        self.feed = FeedService(log: backend)
        self.imports = HistoryImportService(locations: locations, store: backend)
        self.importTokens = ImportTokenService(store: backend)
        self.timeline = TimelineService(store: backend, directory: backend, towns: towns, places: stayPlaces ?? GroupPlaceNames(store: backend))
        self.places = PlaceService(store: backend, limits: configuration.places)
        self.deviceLog = DeviceLogService(store: backend, directory: backend)
        self.logger = logger
    }

    public var rules: PartitionRules { PartitionRules(facts: store) }

    /// What turns a request's credentials into a caller (user, device and share tokens).
    var authentication: Authentication { Authentication(accounts: accounts, devices: devices, shares: shares) }

    /// What every route group needs: the caller check and how its handlers run.
    var routeAccess: RouteAccess {
        RouteAccess(authentication: authentication, store: store, credentialChecksInline: configuration.credentialChecksInline,
                    ingestInlineBodyBytes: configuration.ingestInlineBodyBytes)
    }

    /// Starts matching alerts and sending notifications (after the store is open).
    public func startNotifications() {
        deliveryWorker.start()
        alertConsumer.start()
    }

    /// Stops them (before the store closes).
    public func stopNotifications() {
        alertConsumer.stop()
        deliveryWorker.stop()
    }
}

/// How notifications go out (`fod serve --notify-…`).
public struct NotificationSettings: Sendable {
    /// The HTTP client's limits and destination rules (`--notify-allow-private`).
    public var client = OutboundClient.Configuration()
    public var limits = NotificationService.Limits()
    public var worker = DeliveryWorker.Configuration()
    public var matcher = AlertConsumer.Configuration()
    /// The web map as people reach it (`--public-url`), for ntfy's `Click`.
    public var webMapURL: String?
    public init() {}
}

/// Builds the router of the public API (API.md) over `services`.
public enum API {
    /// - Parameter metrics: `GET /metrics`, served only when it has a bearer token (the metrics
    ///   are not for everyone); without, use `operationsRouter` on a listener of its own.
    public static func router(_ services: Services, web: WebAssets? = nil, basemap: Basemap? = nil,
                              openAPI: OpenAPIDocument? = nil, metrics: MetricsEndpoint? = nil) -> Router {
        var router = Router()
        for route in openAPI?.routes ?? [] { router.add(route) }
        let access = services.routeAccess
        for route in ExportRoutes(services: services, basemap: basemap).routes { router.add(route) }
        for route in web?.routes ?? [] { router.add(route) }
        for route in AccountRoutes(accounts: services.accounts, devices: services.devices, groups: services.groups,
                                   shareFeed: services.shareFeed, access: access).routes { router.add(route) }
        for route in AdministrationRoutes(accounts: services.accounts, importTokens: services.importTokens, access: access).routes {
            router.add(route)
        }
        for route in DeviceRoutes(devices: services.devices, deviceLog: services.deviceLog, shareFeed: services.shareFeed,
                                  access: access).routes { router.add(route) }
        for route in GroupRoutes(groups: services.groups, rules: services.rules, access: access).routes { router.add(route) }
        for route in LocationRoutes(locations: services.locations, rules: services.rules, access: access).routes { router.add(route) }
        for route in ImportRoutes(imports: services.imports, slots: services.importSlots, importTokens: services.importTokens,
                                  maxBytes: services.configuration.importMaxBytes, access: access).routes { router.add(route) }
        for route in TimelineRoutes(timeline: services.timeline, exports: services.exports, access: access).routes { router.add(route) }
        for route in AppIngestRoutes(locations: services.locations, devices: services.devices, friends: services.friends,
                                     deviceLog: services.deviceLog, rejectionMetrics: services.rejectionMetrics, access: access).routes {
            router.add(route)
        }
        for route in QueryRoutes(queries: services.queries, gate: services.queryGate, inlineBudget: services.configuration.queryInlineBudget,
                                 access: access).routes { router.add(route) }
        for route in LiveRoutes(live: services.live, feed: services.feed, groups: services.groups, places: services.places,
                                rules: services.rules, access: access).routes { router.add(route) }
        for route in ShareRoutes(shares: services.shares, feed: services.shareFeed, logger: services.logger, access: access, web: web).routes {
            router.add(route)
        }
        for route in PlaceRoutes(places: services.places, access: access).routes { router.add(route) }
        for route in NotificationRoutes(notifications: services.notifications, tests: services.channelTests, access: access).routes { router.add(route) }
        for route in OperationsRoutes(metrics: metrics?.bearerToken == nil ? nil : metrics).routes { router.add(route) }
        return router
    }

    /// The router of the operations listener (`--metrics-listen`): `GET /metrics` and
    /// `GET /healthz`, nothing else; a share token sent to it is redacted from its log like on
    /// the public port (`publicRouter`'s credential paths).
    public static func operationsRouter(metrics: MetricsEndpoint, publicRouter: Router) -> Router {
        var router = Router(OperationsRoutes(metrics: metrics).routes)
        router.redact(publicRouter.credentialPaths)
        return router
    }
}

/// Turns the `Authorization` header into a credential.
struct Authentication: Sendable {
    let accounts: AccountService
    let devices: DeviceService
    let shares: ShareService

    /// The bearer token of `request`, if any (`Authorization: Bearer <token>`).
    static func bearerToken(_ request: Request) -> String? {
        request.header("authorization").flatMap(AuthorizationHeader.bearerToken)
    }

    /// The caller's credential. A token that is present but unknown or revoked is a 401, not
    /// an anonymous call.
    func credential(_ request: Request) throws -> Credential {
        guard let token = Self.bearerToken(request) else {
            if request.header("authorization") != nil { throw TrackingError.unauthenticated }
            return .anonymous
        }
        return try credential(forToken: token, clientAddress: request.clientLimitKey)
    }

    /// The credential of a bearer token; 401 when it is unknown, revoked or expired (a share
    /// link's lookups count against `clientAddress`'s failed-lookup limit, 429 past it).
    /// `clientAddress` (a `Request.clientLimitKey`) is worked out only for a share token: every
    /// authenticated request comes through here.
    func credential(forToken token: String, clientAddress: @autoclosure () -> String) throws -> Credential {
        if let userID = try accounts.userID(forUserToken: token) { return .user(userID: userID) }
        if let device = try devices.credential(forDeviceToken: token) { return device }
        if token.hasPrefix(ShareService.tokenPrefix) {
            do {
                return try shares.link(forToken: token, clientAddress: clientAddress()).credential
            } catch let error as TrackingError where error.kind == .notFound {
                throw TrackingError.unauthenticated
            }
        }
        throw TrackingError.unauthenticated
    }

    /// The credential of a caller who wants to read `partition`: 401 without one, 403 naming the
    /// partition for a device token (device tokens only ever write their own locations).
    func reader(_ request: Request, of partition: Partition) throws -> Credential {
        try reader(try credential(request), of: partition)
    }

    func reader(_ credential: Credential, of partition: Partition) throws -> Credential {
        switch credential {
        case .anonymous: throw TrackingError.unauthenticated
        case .device, .share: throw TrackingError.cannotRead(partition)
        case .user: return credential
        }
    }

    /// The signed-in user's id; 401 without a valid user token.
    func requireUser(_ request: Request) throws -> UserID {
        try requireUser(try credential(request))
    }

    /// The user of `credential`; 401 for none, 403 `wrong_credential` for a device token.
    func requireUser(_ credential: Credential) throws -> UserID {
        switch credential {
        case .user(let id): return id
        case .anonymous: throw TrackingError.unauthenticated
        case .device(_, let ownerID):
            throw TrackingError.wrongCredentialKind("a device token cannot act for its owner: cannot write partition user=\(ownerID); use a user token")
        case .share:
            throw TrackingError.wrongCredentialKind("a share link reads only at /v1/shared/{token}: cannot act on partition user=<id>; use a user token")
        }
    }
}
