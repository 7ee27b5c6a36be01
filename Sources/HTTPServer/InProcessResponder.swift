/// Answers requests with a router's routes without a socket or libmicrohttpd: the same route
/// matching, body limits, inline/deferred dispatch and error mapping as `HTTPServer`, for tests
/// that run a whole table of requests in milliseconds and for tools that embed the API.
///
/// What it does not do, because only a connection has it: request ids from `X-Request-Id`,
/// the shutdown refusal of writes, access logs and metrics. Streamed bodies come back as the
/// `Response` the handler produced (a caller may `drain` a pull stream).
public struct InProcessResponder: Sendable {
    public let router: Router
    /// Body limit of routes that set none (bytes), as `HTTPServer.Configuration`.
    public var defaultMaxBodyBytes: Int
    /// Body limit of anonymous bodies (bytes), as `HTTPServer.BodyLimits`.
    public var anonymousBodyBytes = HTTPServer.BodyLimits().anonymousBodyBytes
    private let errorResponder: @Sendable (Error, Request) -> Response

    public init(router: Router, defaultMaxBodyBytes: Int = HTTPServer.Configuration().defaultMaxBodyBytes,
                errorResponder: @escaping @Sendable (Error, Request) -> Response) {
        self.router = router
        self.defaultMaxBodyBytes = defaultMaxBodyBytes
        self.errorResponder = errorResponder
    }

    /// The response to `method path?query` with `headers` (any case) and `body`.
    /// - Parameter target: the request target as sent on the wire: a path and an optional query
    ///   string, percent-encoded (`/v1/groups/g_1/changes?since=0`).
    public func respond(method: String, target: String, headers: [(name: String, value: String)] = [],
                        body: [UInt8] = [], remoteAddress: String = "127.0.0.1") async -> Response {
        let (path, query) = Self.split(target)
        var response = await answer(method: method, path: path, query: query, headers: headers, body: body, remoteAddress: remoteAddress)
        let credentialed = CachingRule.isCredentialed(path: path, hasAuthorization: { headers.contains { $0.name.lowercased() == "authorization" } },
                                                      hasQueryArgument: { name in query.contains { $0.name == name } },
                                                      credentialPaths: router.credentialPaths)
        CachingRule.apply(to: &response, credentialed: credentialed)
        return response
    }

    /// The handler's (or the error responder's) response, before the caching rule.
    private func answer(method: String, path: String, query: [(name: String, value: String)], headers: [(name: String, value: String)],
                        body: [UInt8], remoteAddress: String) async -> Response {
        let fields = headers.map { (name: $0.name.lowercased(), value: $0.value) }
        var request = Request(method: method, path: path, queryItems: query, headerFields: fields, body: body,
                              remoteAddress: remoteAddress, requestID: "in-process", routePattern: "unmatched",
                              credentialPaths: router.credentialPaths)
        let route: Route
        switch router.match(method: method, path: path) {
        case .notFound:
            return errorResponder(HTTPError.notFound(path), request)
        case .methodNotAllowed(let allowed):
            return errorResponder(HTTPError.methodNotAllowed(method, allowed: allowed), request)
        case .found(let matched, let parameters):
            route = matched
            request = Request(method: method, path: path, queryItems: query, headerFields: fields, body: body,
                              pathParameters: parameters, remoteAddress: remoteAddress, requestID: "in-process",
                              routePattern: matched.pattern, credentialPaths: router.credentialPaths)
        }
        var limit = route.maxBodyBytes ?? defaultMaxBodyBytes
        if !body.isEmpty {
            // The head check, as the server runs it before reading a body.
            do {
                switch try Self.headVerdict(route, request) {
                case .authenticated(let result):
                    request = Request(method: method, path: path, queryItems: query, headerFields: fields, body: body,
                                      pathParameters: request.pathParameters, remoteAddress: remoteAddress,
                                      requestID: "in-process", routePattern: route.pattern,
                                      credentialPaths: router.credentialPaths, headCheckResult: result)
                case .anonymous:
                    limit = min(limit, anonymousBodyBytes)
                case .anonymousUpTo(let allowed):
                    limit = min(limit, max(0, allowed))
                }
            } catch {
                return errorResponder(error, request)
            }
        }
        if body.count > limit {
            return errorResponder(HTTPError.payloadTooLarge(limit: limit), request)
        }
        do {
            switch route.handler {
            case .inline(let handle): return try handle(request)
            case .deferred(let handle): return try await handle(request)
            case .adaptive(let inline, let deferred):
                if let answer = try inline(request) { return answer }
                return try await deferred(request)
            case .completing(_, let start):
                let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, Error>, Never>) in
                    let once = Reply { continuation.resume(returning: $0) }
                    do { try start(request, once) } catch { once(.failure(error)) }
                }
                return try result.get()
            case .streaming(let admit):
                // The whole body is at hand: hand it over as one piece, then its end.
                let handle = try admit(Request(method: method, path: path, queryItems: query, headerFields: fields,
                                               pathParameters: request.pathParameters, remoteAddress: remoteAddress,
                                               requestID: "in-process", routePattern: route.pattern,
                                               credentialPaths: router.credentialPaths))
                let stream = RequestBodyStream(capacity: body.count + 1, limit: route.maxBodyBytes ?? defaultMaxBodyBytes, connection: nil)
                body.withUnsafeBytes { stream.deliver($0, suspend: {}) }
                stream.endOfBody()
                return try await handle(request, stream)
            }
        } catch {
            return errorResponder(error, request)
        }
    }

    /// What the server concludes from a request's head before its body: a streaming route's
    /// `admit` is its own check; a route without a check takes anonymous bodies only.
    private static func headVerdict(_ route: Route, _ request: Request) throws -> HeadCheck.Verdict {
        if case .streaming = route.handler { return .authenticated(()) }
        return try route.headCheck?.check(request) ?? .anonymous
    }

    /// Splits a request target into its decoded path and decoded query items (`+` is a space in
    /// the query, as libmicrohttpd decodes it).
    static func split(_ target: String) -> (path: String, query: [(name: String, value: String)]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = percentDecoded(parts.first.map(String.init) ?? "/", plusIsSpace: false)
        guard parts.count > 1 else { return (path, []) }
        let items = parts[1].split(separator: "&").map { item -> (name: String, value: String) in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(String(pair[0]), plusIsSpace: true)
            let value = pair.count > 1 ? percentDecoded(String(pair[1]), plusIsSpace: true) : ""
            return (name, value)
        }
        return (path, items)
    }

    /// `%XX` sequences decoded as UTF-8 bytes; a malformed escape is kept as written.
    static func percentDecoded(_ text: String, plusIsSpace: Bool) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
