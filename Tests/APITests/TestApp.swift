import Foundation
import HTTPTestSupport
import API
import HTTPServer
import Timeline
import Tracking

/// An in-process server with the real API on a free port and a fresh, empty store: SQLite in a
/// new data directory, or a new PostgreSQL database wired as a node is (`FOD_TEST_STORE`, see
/// `TestStoreKind`).
final class TestApp: @unchecked Sendable {
    /// The store under test, with its kind-specific handles (`storage.sqlite`, `storage.postgres`).
    let storage: TestStore
    /// The store, through the ports every store offers.
    var store: any TrackingStore { storage.store }
    let server: HTTPServer
    var port: UInt16 { server.port }

    let services: Services
    /// The same routes answered without the socket (see `APIPath`).
    let inProcess: InProcessResponder

    /// - Parameter configure: changes the test settings (to test a limit).
    /// - Parameter web: the web pages to serve (none by default).
    /// - Parameter http: changes the server's settings (trusted proxies).
    init(signInLimit: Int = 10_000, live: LiveHub.Configuration = LiveHub.Configuration(), towns: NearestPlace? = nil, web: WebAssets? = nil,
         configure: (inout Services.Configuration) -> Void = { _ in },
         http: (inout HTTPServer.Configuration) -> Void = { _ in }) throws {
        let storage = try TestStore.open()
        self.storage = storage
        let logger = Logger(level: .error)
        var settings = Self.configuration(signInLimit: signInLimit, live: live)
        configure(&settings)
        do {
            services = try Services(store: storage.store, configuration: settings, logger: logger, towns: towns)
            try storage.start(services: services)
            services.startNotifications()
        } catch {
            storage.close()
            throw error
        }
        let errors = ErrorMapper(logger: logger)
        var configuration = HTTPServer.Configuration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        http(&configuration)
        let router = API.router(services, web: web)
        server = HTTPServer(configuration: configuration, router: router, logger: logger) {
            errors.response(for: $0, request: $1)
        }
        inProcess = InProcessResponder(router: router) { errors.response(for: $0, request: $1) }
        do {
            try server.start()
        } catch {
            storage.close()
            throw error
        }
    }

    /// Test settings: cheap hashes, sign-up open to anyone, and limits high enough for suites that sign up and post a
    /// lot from one address (tests of a limit set it low themselves).
    static func configuration(signInLimit: Int = 10_000, live: LiveHub.Configuration = LiveHub.Configuration()) -> Services.Configuration {
        var configuration = Services.Configuration()
        configuration.accounts.passwordCost = .minimal
        // Suites sign up many users on one server: open sign-up (the policy has tests of its own).
        configuration.accounts.signUp = .open
        configuration.accounts.signInsPerAccountAndAddressPerMinute = signInLimit
        configuration.accounts.signInsPerAddressPerMinute = 100_000
        configuration.accounts.signUpsPerAddressPerHour = 100_000
        configuration.accounts.hashingQueue = 10_000
        configuration.groups.invitationsPerUserPerHour = 100_000
        configuration.deviceRequests = .none
        configuration.shares.failedLookupsPerAddress = 100_000
        configuration.live = live
        // Test receivers listen on loopback (the destination rules are tested on their own).
        configuration.notifications.client.policy.allowPrivate = true
        return configuration
    }

    func client() throws -> HTTPTestClient { try HTTPTestClient(port: port) }

    /// Signs up a user and returns (id, token).
    func signUp(_ name: String) throws -> (id: String, token: String) {
        let reply = try client().request("POST", "/v1/users",
                                         json: #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"}"#)
        guard reply.status == 201, let id = reply.json["user"]["id"].string, let token = reply.json["token"].string else {
            throw TestFailure("sign-up of \(name) failed: \(reply.status) \(reply.text)")
        }
        return (id, token)
    }

    /// Stops the server, then the store (the relay, the connections) and deletes what it stored.
    func close() {
        server.shutdown()
        services.stopNotifications()
        storage.close()
    }

    static func with(signInLimit: Int = 10_000, live: LiveHub.Configuration = LiveHub.Configuration(),
                     _ body: (TestApp) throws -> Void) throws {
        let app = try TestApp(signInLimit: signInLimit, live: live)
        defer { app.close() }
        try body(app)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
