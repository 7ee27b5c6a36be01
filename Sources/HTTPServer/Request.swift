/// An HTTP request as handed to a route handler: everything already copied out of
/// libmicrohttpd, so it may outlive the connection and cross threads.
public struct Request: Sendable {
    /// Upper-case method (`GET`, `POST`, …).
    public let method: String
    /// The decoded path, without the query string (e.g. `/v1/groups/g_1`).
    public let path: String
    /// Query arguments, decoded, in arrival order (keys may repeat).
    public let queryItems: [(name: String, value: String)]
    /// Header fields with lower-cased names, in arrival order.
    public let headerFields: [(name: String, value: String)]
    /// The raw body bytes (empty when none); at most the route's body limit.
    public let body: [UInt8]
    /// Values of the route pattern's `{name}` segments.
    public let pathParameters: [String: String]
    /// The client's IP address as text (`127.0.0.1`, `2001:db8::7`), or `"unknown"`: the TCP
    /// peer, or the client a trusted proxy names (`HTTPServer.Configuration.trustedProxies`).
    public let remoteAddress: String
    /// The id of this request, echoed as `X-Request-Id` and written in the access log.
    public let requestID: String
    /// The route pattern that matched (`/v1/groups/{id}`), for logs and metrics.
    public let routePattern: String
    /// The credential segments of paths (the router's): what `loggedPath` redacts.
    public let credentialPaths: CredentialPaths
    /// What the route's `HeadCheck` resolved when it admitted the body as authenticated (a
    /// credential), or nil (no body, no check, or an anonymous body).
    public let headCheckResult: (any Sendable)?

    public init(method: String, path: String, queryItems: [(name: String, value: String)] = [],
                headerFields: [(name: String, value: String)] = [], body: [UInt8] = [],
                pathParameters: [String: String] = [:], remoteAddress: String = "unknown",
                requestID: String = "-", routePattern: String = "", credentialPaths: CredentialPaths = CredentialPaths(),
                headCheckResult: (any Sendable)? = nil) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headerFields = headerFields
        self.body = body
        self.pathParameters = pathParameters
        self.remoteAddress = remoteAddress
        self.requestID = requestID
        self.routePattern = routePattern
        self.credentialPaths = credentialPaths
        self.headCheckResult = headCheckResult
    }

    /// The key under which abuse limits count this client (`IPAddress.limitKey`): an IPv4
    /// address itself, an IPv6 address's /64 network; the text itself when it is no address.
    public var clientLimitKey: String {
        IPAddress(remoteAddress)?.limitKey ?? remoteAddress
    }

    /// The first value of header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headerFields.first { $0.name == lowered }?.value
    }

    /// The first value of query argument `name`, if present.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The path for logs: credential segments (`credentialPaths`) redacted, whichever route
    /// matched (the query string is never part of `path`).
    public var loggedPath: String {
        credentialPaths.redacting(path)
    }

    /// The value of path parameter `name` (present whenever the pattern has it).
    public func parameter(_ name: String) -> String {
        pathParameters[name] ?? ""
    }
}
