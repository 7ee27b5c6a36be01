import Synchronization

/// How a route answers: inline on the server's thread (fast, must not block for long), or
/// later from a task (the connection is suspended meanwhile, no thread is held).
public enum Handler: Sendable {
    case inline(@Sendable (Request) throws -> Response)
    case deferred(@Sendable (Request) async throws -> Response)
    /// Tried on the server's thread first: `inline` answers when it can within a small, bounded
    /// amount of work, or returns nil when the request would cost more than that, and the
    /// request then runs as `.deferred` with `deferred` (from the start). Saves the hand-off to
    /// a task and back (two thread wake-ups) for the common cheap request; the work thrown away
    /// on a nil is bounded by what `inline` allows itself.
    case adaptive(inline: @Sendable (Request) throws -> Response?, deferred: @Sendable (Request) async throws -> Response)
    /// The body is read while it arrives (uploads of any size; see `RequestBodyStream`):
    /// `admit` runs on the server's thread as soon as the headers are in (authenticate, check
    /// the path; throw to answer before any of the body is read) and returns the handler, which
    /// runs in a task reading the body.
    case streaming(admit: @Sendable (Request) throws -> StreamingHandler)
    /// Answered through a `Reply` that whoever finishes the work calls, from any thread (a
    /// writer that has committed): `start` runs on the server's thread when the body is at most
    /// `inlineBodyBytes` (nil: never), otherwise from a task, and returns once the work is
    /// handed on. Saves the two hand-offs of `.deferred` (to a task, and from the awaited work
    /// back to it) for writes whose own worker can answer. A throw from `start` is the answer.
    case completing(inlineBodyBytes: Int?, start: @Sendable (Request, Reply) throws -> Void)
}

/// The answer to a `.completing` request, given once from any thread; later calls are ignored.
/// An error becomes the server's error response, as a thrown one would.
public final class Reply: Sendable {
    private let deliver: @Sendable (Result<Response, Error>) -> Void
    private let answered = Atomic<Bool>(false)

    public init(_ deliver: @escaping @Sendable (Result<Response, Error>) -> Void) {
        self.deliver = deliver
    }

    public func callAsFunction(_ result: Result<Response, Error>) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        deliver(result)
    }
}

/// Reads a streamed request body and answers.
public typealias StreamingHandler = @Sendable (Request, RequestBodyStream) async throws -> Response

/// One route: method, path pattern with `{name}` segments, handler and body limit.
public struct Route: Sendable {
    public let method: String
    public let pattern: String
    public let handler: Handler
    /// Largest accepted body in bytes; larger bodies get 413 before being read.
    public let maxBodyBytes: Int?
    /// Checks the head of a request with a body before any of it is buffered; nil: every body
    /// is anonymous (capped at `BodyLimits.anonymousBodyBytes`). A `.streaming` handler's
    /// `admit` is its own check.
    public let headCheck: HeadCheck?
    let segments: [Segment]

    enum Segment: Sendable, Equatable {
        /// A fixed segment, as its UTF-8 bytes (compared byte for byte).
        case literal([UInt8])
        case parameter(String)
    }

    public init(_ method: String, _ pattern: String, maxBodyBytes: Int? = nil, headCheck: HeadCheck? = nil, _ handler: Handler) {
        self.method = method.uppercased()
        self.pattern = pattern
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        self.headCheck = headCheck
        self.segments = Route.split(pattern).map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(Array(part.utf8))
        }
    }

    /// Path parameters that carry a credential (share-link tokens, `/s/{token}`): never
    /// written to a log, whatever the method or route of a request (`CredentialPaths`).
    public static let credentialParameters: Set<String> = ["token"]

    static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// `split` on the path's UTF-8 bytes (a `/` byte is always a separator in UTF-8): no
    /// character segmentation per request.
    static func splitBytes(_ path: String) -> [Substring.UTF8View] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    }
}

/// Matches a method and path against the routes.
///
/// Literal segments win over parameters at the same position (so `/v1/me` is not taken by
/// `/v1/{id}`); among equals, the route added first wins. Unknown path → `.notFound`; known
/// path with another method → `.methodNotAllowed` with the allowed methods (for `Allow`).
public struct Router: Sendable {
    public private(set) var routes: [Route] = []
    /// Indexes into `routes` by segment count, in the order added: only routes of a path's
    /// segment count can match it, so a request looks at a handful, not at every route.
    private var indexesBySegmentCount: [Int: [Int]] = [:]
    /// The path segments that are credentials, by the routes' credential parameters.
    public private(set) var credentialPaths = CredentialPaths()

    public init(_ routes: [Route] = []) {
        for route in routes { add(route) }
    }

    /// Treats the credential segments of `paths` (another router's) as credentials here too,
    /// in logs and caching, though no route of this router has them.
    public mutating func redact(_ paths: CredentialPaths) {
        credentialPaths.formUnion(paths)
    }

    public mutating func add(_ route: Route) {
        indexesBySegmentCount[route.segments.count, default: []].append(routes.count)
        routes.append(route)
        credentialPaths.add(route)
    }

    public enum Match: Sendable {
        case found(Route, [String: String])
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    public func match(method: String, path: String) -> Match {
        let parts = Route.splitBytes(path)
        var best: (index: Int, score: Int)?
        var allowed: [String] = []
        for index in indexesBySegmentCount[parts.count] ?? [] {
            guard let score = Router.score(routes[index].segments, parts) else { continue }
            let routeMethod = routes[index].method
            if routeMethod == method || (method == "HEAD" && routeMethod == "GET") {
                if score > (best?.score ?? -1) { best = (index, score) }
            } else if !allowed.contains(routeMethod) {
                allowed.append(routeMethod)
            }
        }
        if let best { return .found(routes[best.index], Router.parameters(routes[best.index].segments, parts)) }
        if !allowed.isEmpty {
            if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
            return .methodNotAllowed(allowed: allowed.sorted())
        }
        return .notFound
    }

    /// The literal segments matched, so specific routes win; nil when a literal differs.
    /// Allocates nothing: only the winning route's parameters are bound (`parameters`).
    private static func score(_ segments: [Route.Segment], _ parts: [Substring.UTF8View]) -> Int? {
        var score = 0
        for (segment, part) in zip(segments, parts) {
            guard case .literal(let literal) = segment else { continue }
            guard literal.elementsEqual(part) else { return nil }
            score += 1
        }
        return score
    }

    /// The parameter values of `parts` by the names of `segments` (of the same count).
    private static func parameters(_ segments: [Route.Segment], _ parts: [Substring.UTF8View]) -> [String: String] {
        var params: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            if case .parameter(let name) = segment { params[name] = String(Substring(part)) }
        }
        return params
    }
}
