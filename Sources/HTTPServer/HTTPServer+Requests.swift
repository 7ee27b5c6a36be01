import CMicroHTTPD
import Glibc
import Timestamps

extension HTTPServer {
    /// First call for a request: route it and decide its body limit.
    func beginRequest(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> RequestContext {
        let methodText = method.map { String(cString: $0) } ?? "GET"
        let path = url.map { String(cString: $0) } ?? "/"
        inFlight.withLock { $0 += 1 }
        let requestID = clientRequestID(connection) ?? nextRequestID()
        let context = RequestContext(method: methodText, path: path, requestID: requestID,
                                     maxBodyBytes: configuration.defaultMaxBodyBytes)
        switch router.match(method: methodText, path: path) {
        case .found(let route, let parameters):
            context.route = route
            context.pathParameters = parameters
            context.maxBodyBytes = route.maxBodyBytes ?? configuration.defaultMaxBodyBytes
        case .methodNotAllowed(let allowed):
            context.earlyError = .methodNotAllowed(methodText, allowed: allowed)
        case .notFound:
            context.earlyError = .notFound(path)
        }
        return context
    }

    /// After the first call: admit the body before reading any of it (`admitHead`): the route's
    /// head check, its body limit, the body budget.
    func afterFirstCall(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard context.earlyError == nil, let route = context.route else { return refuseUnrouted(context, connection: connection) }
        return admitHead(context, route: route, connection: connection)
    }

    /// The call after the whole body arrived (or after a resume).
    func finalCall(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        if context.queued { return .YES }
        endBodyTimeout(context, connection: connection)
        if let body = context.bodyStream {
            return finishStreaming(context, body, connection: connection)
        }
        if let refusal = context.refusal {
            return queue(refusal, context: context, connection: connection)
        }
        if context.dispatched {
            guard let response = context.reply.withLock({ $0 }) else { return .YES }
            return queue(response, context: context, connection: connection)
        }
        if let error = context.earlyError {
            return queueError(error, context: context, connection: connection)
        }
        if context.bodyTooLarge {
            return queueError(.payloadTooLarge(limit: context.maxBodyBytes), context: context, connection: connection)
        }
        if context.intake.overBudget {
            return queueError(.bodyBudgetFull(retryAfter: configuration.bodies.retryAfterSeconds), context: context, connection: connection)
        }
        guard let route = context.route else { return .NO }
        let request = makeRequest(context, connection: connection)
        if !accepting.load(ordering: .acquiring) && route.method != "GET" {
            return queue(errorResponder(HTTPError.shuttingDown, request), context: context, connection: connection)
        }
        switch route.handler {
        case .inline(let handle):
            let response: Response
            do { response = try handle(request) } catch { response = errorResponder(error, request) }
            return queue(response, context: context, connection: connection)
        case .streaming:
            // Started on the first call (`beginStreaming`); only a refused admission gets here.
            return .NO
        case .deferred(let handle):
            return dispatch(request, to: handle, context: context, connection: connection)
        case .adaptive(let inline, let deferred):
            let answer: Response?
            do { answer = try inline(request) } catch { answer = errorResponder(error, request) }
            if let answer { return queue(answer, context: context, connection: connection) }
            return dispatch(request, to: deferred, context: context, connection: connection)
        case .completing(let inlineBodyBytes, let start):
            let onThisThread = inlineBodyBytes.map { request.body.count <= $0 } ?? false
            return begin(request, start: start, onThisThread: onThisThread, context: context, connection: connection)
        }
    }

    /// Suspends the connection and starts a `.completing` request, here or from a task; its
    /// `Reply` resumes the connection from whichever thread answers.
    private func begin(_ request: Request, start: @escaping @Sendable (Request, Reply) throws -> Void, onThisThread: Bool,
                       context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        // Suspended before `start`: its work may answer from another thread at once.
        let reply = suspendAwaitingReply(request, context: context, connection: connection)
        if onThisThread {
            do { try start(request, reply) } catch { reply(.failure(error)) }
        } else {
            Task(executorPreference: executor) {
                do { try start(request, reply) } catch { reply(.failure(error)) }
            }
        }
        return .YES
    }

    /// Suspends the connection and answers `request` from a task on the handler executor.
    private func dispatch(_ request: Request, to handle: @escaping @Sendable (Request) async throws -> Response,
                          context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        let reply = suspendAwaitingReply(request, context: context, connection: connection)
        Task(executorPreference: executor) {
            do { reply(.success(try await handle(request))) } catch { reply(.failure(error)) }
        }
        return .YES
    }

    /// Suspends the connection until the returned `Reply` is given (an error through the error
    /// responder), which resumes it (`resumeDeferred`); registered for the shutdown deadline.
    private func suspendAwaitingReply(_ request: Request, context: RequestContext, connection: OpaquePointer) -> Reply {
        context.dispatched = true
        MHD_suspend_connection(connection)
        let pointer = ConnectionPointer(pointer: connection)
        pendingDeferred.withLock { $0[ObjectIdentifier(context)] = (context, pointer) }
        let responder = errorResponder
        return Reply { [weak self] result in
            let response: Response
            switch result {
            case .success(let answer): response = answer
            case .failure(let error): response = responder(error, request)
            }
            self?.resumeDeferred(context, pointer, with: response)
        }
    }

    /// Stores the reply of a suspended request and resumes its connection, once: the first of
    /// the handler and the shutdown deadline wins.
    func resumeDeferred(_ context: RequestContext, _ connection: ConnectionPointer, with response: Response) {
        let first = context.reply.withLock { reply -> Bool in
            guard reply == nil else { return false }
            reply = response
            return true
        }
        guard first else { return }
        pendingDeferred.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(context)) }
        MHD_resume_connection(connection.pointer)
    }

    func queueError(_ error: HTTPError, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        queue(errorResponse(error, context: context), context: context, connection: connection)
    }

    /// The error responder's answer to `error` for the request of `context`.
    func errorResponse(_ error: HTTPError, context: RequestContext) -> Response {
        errorResponder(error, Request(method: context.method, path: context.path, requestID: context.requestID,
                                      routePattern: context.routeLabel, credentialPaths: router.credentialPaths))
    }

    /// Hands `response` to libmicrohttpd, with the caching rule applied (`CachingRule`).
    func queue(_ answer: Response, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        var response = answer
        CachingRule.apply(to: &response, credentialed: isCredentialed(context, connection: connection))
        context.queued = true
        context.status = response.status
        let handle: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            context.byteCount = bytes.count
            handle = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let stream):
            context.stream = stream
            let pointer = ConnectionPointer(pointer: connection)
            let reader = StreamReaderContext(stream: stream, connection: pointer)
            stream.install(connection: pointer)
            openStreams.withLock { $0[ObjectIdentifier(stream)] = StreamRegistration(stream: stream, connection: pointer) }
            stream.onClose { [weak self] in
                _ = self?.openStreams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
            }
            handle = MHD_create_response_from_callback(fod_mhd_size_unknown(), 16 * 1024, mhdStreamReader,
                                                       Unmanaged.passRetained(reader).toOpaque(), mhdStreamFree)
        }
        guard let handle else { return .NO }
        defer { MHD_destroy_response(handle) }
        _ = MHD_add_response_header(handle, "X-Request-Id", context.requestID)
        for header in response.headers {
            _ = MHD_add_response_header(handle, header.name, header.value)
        }
        return MHD_queue_response(connection, UInt32(response.status), handle)
    }

    /// Whether the request carried a credential (`CachingRule.isCredentialed`).
    private func isCredentialed(_ context: RequestContext, connection: OpaquePointer) -> Bool {
        CachingRule.isCredentialed(path: context.path,
                                   hasAuthorization: { MHD_lookup_connection_value(connection, .HEADER_KIND, "Authorization") != nil },
                                   hasQueryArgument: { MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, $0) != nil },
                                   credentialPaths: router.credentialPaths)
    }

    func makeRequest(_ context: RequestContext, connection: OpaquePointer) -> Request {
        var collector = KeyValueCollector()
        withUnsafeMutablePointer(to: &collector) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, collectKeyValue, pointer)
            pointer.pointee.switchToQuery()
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectKeyValue, pointer)
        }
        return Request(method: context.method, path: context.path, queryItems: collector.query,
                       headerFields: collector.headers, body: context.body,
                       pathParameters: context.pathParameters, remoteAddress: clientAddress(connection, headers: collector.headers),
                       requestID: context.requestID, routePattern: context.routeLabel, credentialPaths: router.credentialPaths,
                       headCheckResult: context.intake.headCheckResult)
    }

    /// The request's client as text (`203.0.113.7`, `2001:db8::1`): the TCP peer, or the client
    /// a trusted proxy names in `X-Forwarded-For` (`Configuration.trustedProxies`); `"unknown"`
    /// for a peer that is not an IP address.
    func clientAddress(_ connection: OpaquePointer, headers: [(name: String, value: String)]) -> String {
        guard let peer = peerAddress(connection) else { return "unknown" }
        let proxies = configuration.trustedProxies
        guard !proxies.isEmpty else { return peer.description }
        let forwarded = headers.lazy.filter { $0.name == "x-forwarded-for" }.map(\.value)
        return proxies.client(peer: peer, forwardedFor: Array(forwarded)).description
    }

    /// The connection's TCP peer.
    private func peerAddress(_ connection: OpaquePointer) -> IPAddress? {
        guard let address = fod_mhd_client_address(connection) else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                IPAddress(ipv4: UInt32(bigEndian: v4.pointee.sin_addr.s_addr))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var bytes = v6.pointee.sin6_addr
                return withUnsafeBytes(of: &bytes) { IPAddress(ipv6Bytes: $0) }
            }
        default:
            return nil
        }
    }

    /// A client-supplied `X-Request-Id` when it is short and made of safe characters.
    private func clientRequestID(_ connection: OpaquePointer) -> String? {
        guard let raw = MHD_lookup_connection_value(connection, .HEADER_KIND, "X-Request-Id") else { return nil }
        let value = String(cString: raw)
        guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy(isRequestIDByte) else { return nil }
        return value
    }

    /// Completed callback: access log, metrics, stream cleanup.
    func completeRequest(_ context: RequestContext, termination: MHD_RequestTerminationCode) {
        let nanoseconds = Timestamp.monotonicNanoseconds() - context.startNanos
        let bytes = context.stream?.bytesSent ?? context.byteCount
        context.stream?.markClosed()
        if let body = context.bodyStream {
            body.abandon(.bodyIncomplete)
            _ = pendingBodies.withLock { $0.removeValue(forKey: ObjectIdentifier(body)) }
        }
        releaseBody(context)
        let status = context.queued ? context.status : context.intake.cut ? 408 : 499
        metrics.record(method: context.method, route: context.routeLabel, status: status, seconds: Double(nanoseconds) / 1e9)
        if logger.isEnabled(.info) {
            let micros = nanoseconds / 1000
            let fraction = String(micros % 1000)
            var line = LogText.escaped(context.method) + " " + LogText.escaped(router.credentialPaths.redacting(context.path)) + " \(status) \(bytes)B \(micros / 1000)."
            line += String(repeating: "0", count: 3 - fraction.count) + fraction + "ms id=" + LogText.escaped(context.requestID)
            if termination != .REQUEST_TERMINATED_COMPLETED_OK { line += " terminated=\(termination.rawValue)" }
            logger.info(line)
        }
        inFlight.withLock { $0 -= 1 }
    }
}

/// Collects MHD's key/value pairs (headers, then query arguments).
struct KeyValueCollector {
    var headers: [(name: String, value: String)] = []
    var query: [(name: String, value: String)] = []
    var collectingQuery = false
    mutating func switchToQuery() { collectingQuery = true }
}

func collectKeyValue(cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = cls.assumingMemoryBound(to: KeyValueCollector.self)
    let name = String(cString: key)
    let text = value.map { String(cString: $0) } ?? ""
    if collector.pointee.collectingQuery {
        collector.pointee.query.append((name, text))
    } else {
        collector.pointee.headers.append((name.lowercased(), text))
    }
    return .YES
}

/// Letters, digits, `-`, `.` and `_`.
private func isRequestIDByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
         UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
        return true
    default:
        return false
    }
}
