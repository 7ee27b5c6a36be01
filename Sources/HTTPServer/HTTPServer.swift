import CMicroHTTPD
import Glibc
import Synchronization
import Timestamps

/// An HTTP/1.1 server on libmicrohttpd: internal epoll polling threads, keep-alive, a router,
/// body limits, deferred replies and streamed bodies through suspend/resume (no thread is held
/// per waiting request or per stream), an access log line and metrics per request, and a
/// graceful `shutdown`.
///
/// Lifetime: `start()` once, then `shutdown()` exactly once before the last reference goes.
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    public let router: Router
    public let logger: Logger
    public let metrics = ServerMetrics()
    let errorResponder: @Sendable (Error, Request) -> Response

    let daemon = Mutex<DaemonPointer?>(nil)
    let boundPort = Atomic<UInt16>(0)
    let inFlight = Mutex<Int>(0)
    let requestCounter = Atomic<UInt64>(0)
    let requestIDPrefix: String
    let accepting = Atomic<Bool>(true)
    /// Streams being served, by identity, so shutdown can end them.
    let openStreams = Mutex<[ObjectIdentifier: StreamRegistration]>([:])
    /// Suspended requests waiting for a deferred handler, so shutdown can answer stragglers.
    let pendingDeferred = Mutex<[ObjectIdentifier: (RequestContext, ConnectionPointer)]>([:])
    /// Streamed request bodies being read, so shutdown can answer their requests.
    let pendingBodies = Mutex<[ObjectIdentifier: RequestBodyStream]>([:])
    /// Requests suspended while their head check runs from a task, so shutdown can answer them.
    let pendingHeadChecks = Mutex<[ObjectIdentifier: (RequestContext, ConnectionPointer)]>([:])
    /// The request bodies held in memory across connections (`Configuration.bodies`).
    let bodyBudget: BodyBudget
    /// Where deferred handlers run (not the cooperative pool; see `HandlerExecutor`).
    public let executor = HandlerExecutor()

    /// - Parameters:
    ///   - errorResponder: turns any error thrown by a handler, or an `HTTPError` raised by
    ///     the transport (404, 405, 413 …), into a response. It must not throw.
    public init(configuration: Configuration = Configuration(), router: Router, logger: Logger,
                errorResponder: @escaping @Sendable (Error, Request) -> Response) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.errorResponder = errorResponder
        self.bodyBudget = BodyBudget(limit: configuration.bodies.budgetBytes, anonymousLimit: configuration.bodies.anonymousBudgetBytes)
        self.requestIDPrefix = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    }

    /// A server released while still serving was never shut down: its owner's bug. libmicrohttpd
    /// holds an unretained pointer to it, so it is stopped here (abruptly: no grace period)
    /// rather than left calling into freed memory, and the log says so.
    deinit {
        guard let current = daemon.withLock({ $0 }) else { return }
        logger.error("HTTPServer released without shutdown(): stopping it now; call shutdown() before the last reference goes")
        accepting.store(false, ordering: .releasing)
        daemon.withLock { $0 = nil }
        MHD_stop_daemon(current.pointer)
    }

    /// The port the server listens on (valid after `start`).
    public var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Requests started but not yet completed (streams included).
    public var inFlightCount: Int { inFlight.withLock { $0 } }

    /// Bytes of request bodies held in memory now, across connections (`BodyLimits.budgetBytes`).
    public var heldBodyBytes: Int { bodyBudget.heldBytes }

    /// Binds and starts serving. Throws when the address cannot be bound.
    public func start() throws(HTTPError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = configuration.port.bigEndian
        guard inet_pton(AF_INET, configuration.bindAddress, &address.sin_addr) == 1 else {
            throw HTTPError(status: 0, code: .badAddress, message: "cannot parse bind address \(configuration.bindAddress)")
        }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        let started: OpaquePointer? = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                var settings = fod_mhd_settings(
                    flags: UInt32(flags), port: configuration.port,
                    connection_limit: UInt32(configuration.connectionLimit),
                    per_ip_connection_limit: UInt32(configuration.perIPConnectionLimit),
                    connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
                    connection_memory_limit: configuration.connectionMemoryLimit,
                    thread_pool_size: UInt32(max(1, configuration.threadPoolSize)),
                    listen_backlog: 1024, bind_address: socketAddress)
                let me = Unmanaged.passUnretained(self).toOpaque()
                return fod_mhd_start(&settings, mhdAcceptPolicy, me, mhdAccessHandler, me, mhdRequestCompleted, me)
            }
        }
        guard let started else {
            throw HTTPError(status: 0, code: .listenFailed,
                            message: "cannot listen on \(configuration.bindAddress):\(configuration.port): \(String(cString: strerror(errno)))")
        }
        boundPort.store(fod_mhd_bound_port(started), ordering: .releasing)
        daemon.withLock { $0 = DaemonPointer(pointer: started) }
        logger.info("listening on http://\(configuration.bindAddress):\(port) (\(configuration.threadPoolSize) threads)")
    }

    /// Open connections right now (0 before start / after shutdown).
    public var openConnectionCount: Int {
        daemon.withLock { d in d.map { Int(fod_mhd_current_connections($0.pointer)) } ?? 0 }
    }

    /// Graceful stop: stop accepting, end open streams, wait (up to the grace period) for
    /// in-flight requests to complete, then close every connection. Idempotent.
    public func shutdown() {
        guard accepting.exchange(false, ordering: .acquiringAndReleasing) else { return }
        guard let current = daemon.withLock({ $0 }) else { return }
        // New connections are now refused by `mhdAcceptPolicy` (accepting == false), not by
        // MHD_quiesce_daemon: on an epoll daemon with worker threads that races the workers'
        // own removal of the listen socket and aborts the process (an open libmicrohttpd
        // defect: "Failed to remove listen FD from epoll set"). MHD_stop_daemon closes it.
        logger.info("shutting down: no longer accepting; \(inFlightCount) request(s) in flight")
        endOpenStreams()
        let deadline = Timestamp.monotonicNanoseconds() + UInt64(configuration.shutdownGraceSeconds * 1e9)
        while inFlightCount > 0 && Timestamp.monotonicNanoseconds() < deadline {
            usleep(2_000)
            endOpenStreams()
        }
        if inFlightCount > 0 {
            logger.warning("shutdown grace period over with \(inFlightCount) request(s) still in flight")
            answerStragglers()
        }
        daemon.withLock { $0 = nil }
        MHD_stop_daemon(current.pointer)
        logger.info("HTTP server stopped")
    }

    /// Answers requests whose handlers did not finish in time with 503, so no connection is
    /// left suspended (libmicrohttpd aborts when stopped with suspended connections).
    private func answerStragglers() {
        let stragglers = pendingDeferred.withLock { Array($0.values) }
        for (context, connection) in stragglers {
            let request = Request(method: context.method, path: context.path, requestID: context.requestID,
                                  routePattern: context.routeLabel, credentialPaths: router.credentialPaths)
            resumeDeferred(context, connection, with: errorResponder(HTTPError.shuttingDown, request))
        }
        for (context, connection) in pendingHeadChecks.withLock({ Array($0.values) }) {
            settleHeadCheck(context, connection, .refused(errorResponse(.shuttingDown, context: context)))
        }
        for body in pendingBodies.withLock({ Array($0.values) }) {
            body.abandon(.shuttingDown)
            body.complete(errorResponder(HTTPError.shuttingDown, Request(method: "POST", path: "-")))
        }
        let deadline = Timestamp.monotonicNanoseconds() + 1_000_000_000
        while inFlightCount > 0 && Timestamp.monotonicNanoseconds() < deadline {
            usleep(2_000)
            endOpenStreams()
        }
    }

    private func endOpenStreams() {
        let registrations = openStreams.withLock { Array($0.values) }
        for registration in registrations {
            if registration.stream.unparkForShutdown() {
                MHD_resume_connection(registration.connection.pointer)
            }
        }
    }

    func nextRequestID() -> String {
        let n = requestCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return requestIDPrefix + "-" + String(n, radix: 36)
    }
}

/// A libmicrohttpd daemon pointer. `@unchecked Sendable`: MHD's daemon API is thread-safe for
/// the calls made here (info, resume, stop), and the server owns it until `shutdown`.
struct DaemonPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A libmicrohttpd connection pointer. `@unchecked Sendable`: it is used off the MHD thread
/// only for `MHD_resume_connection` on a connection known to be suspended, which MHD allows
/// from any thread (the daemon uses an inter-thread channel).
struct ConnectionPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A stream being served and the connection to resume for it.
struct StreamRegistration: Sendable {
    let stream: ResponseStream
    let connection: ConnectionPointer
}
