import HTTPServer
import JSONCore
import Tracking

/// Who may call a route; the authentication middleware checks it before the handler runs, so
/// a handler never sees a caller it was not written for.
enum Caller: Sendable {
    /// Anyone; a credential, if sent, is not looked at (sign-up, sign-in).
    case anyone
    /// Anyone; a credential, if sent, is resolved (an unknown or revoked one is 401).
    case optional
    /// A user token (401 without; 403 `wrong_credential` for a device token).
    case user
    /// A device token (401 without; 403 for a user token): the only writers of locations.
    case device
    /// A user token reading the partition the path names: 401 without a credential, 403 naming
    /// the partition for a device token. Whether the user may read it is the service's question
    /// (404 hides what they may not).
    case reader(PathPartition)
}

/// Which partition a route's path names.
enum PathPartition: Sendable {
    case group(parameter: String)
    case device(parameter: String)

    func partition(of request: Request) -> Partition {
        switch self {
        case .group(let name): .group(request.id(name))
        case .device(let name): .device(request.id(name))
        }
    }
}

/// What a route handler gets besides the request: the checked credential. (What the handler
/// works with — its services — its route group holds: each group gets only what it uses.)
struct RouteContext: Sendable {
    let credential: Credential

    /// The signed-in user (routes for `.user` and `.reader` callers always have one).
    var userID: UserID {
        get throws {
            guard let id = credential.userID else { throw TrackingError.unauthenticated }
            return id
        }
    }
}

/// A step every request of a route group passes before its handler: it may refuse the request
/// (throw) or add to the context. Synchronous, so inline routes stay on the fast path.
protocol RouteMiddleware: Sendable {
    func prepare(_ request: Request, _ context: inout RouteContext) throws
}

/// Resolves the bearer token (or, for live feeds, `?token=`) and checks it against the route's
/// `Caller`.
struct Authenticate: RouteMiddleware {
    let authentication: Authentication
    let caller: Caller
    /// Whether `?token=` may carry a user token (EventSource cannot set headers).
    var allowsQueryToken = false

    func prepare(_ request: Request, _ context: inout RouteContext) throws {
        if case .anyone = caller { return }
        var credential = try authentication.credential(request)
        if credential == .anonymous, allowsQueryToken, let token = request.query("token") {
            credential = try authentication.credential(forToken: token, clientAddress: request.clientLimitKey)
        }
        switch caller {
        case .anyone, .optional:
            break
        case .user:
            credential = .user(userID: try authentication.requireUser(credential))
        case .device:
            if credential == .anonymous { throw TrackingError.unauthenticated }
            guard case .device = credential else {
                throw TrackingError.wrongCredentialKind("only a device token writes a device's locations: cannot write partition \(Self.partitionName(request))")
            }
        case .reader(let path):
            credential = try authentication.reader(credential, of: path.partition(of: request))
        }
        context = RouteContext(credential: credential)
    }

    private static func partitionName(_ request: Request) -> String {
        "device=" + request.parameter("id")
    }
}

/// A request body the route decodes before its handler: parsed, type-checked, with 400s that
/// name the field.
protocol RequestBody: Sendable {
    init(_ body: JSONBody) throws
}

/// What every route group needs, whatever its routes do: the caller check and how handlers
/// run (`Services.routeAccess`).
struct RouteAccess: Sendable {
    let authentication: Authentication
    /// For `readingTogether`: an inline route's reads see one committed state.
    let store: any TrackingStore
    /// `Services.Configuration.credentialChecksInline`.
    let credentialChecksInline: Bool
    /// `Services.Configuration.ingestInlineBodyBytes`.
    let ingestInlineBodyBytes: Int?
}

/// Builds the routes of one group: each gets the group's middleware, then its own `Caller`
/// check, then the handler with a `RouteContext`.
struct RouteGroup {
    let access: RouteAccess
    var middleware: [any RouteMiddleware] = []
    /// Body limit of routes with a JSON body (bytes).
    static let smallBody = 16 * 1024

    init(access: RouteAccess, middleware: [any RouteMiddleware] = []) {
        self.access = access
        self.middleware = middleware
    }

    /// The context for `request`: every middleware, then the caller check — or the context
    /// the route's head check worked out before the body (`headCheck`).
    func context(_ request: Request, _ caller: Caller, queryToken: Bool) throws -> RouteContext {
        if let checked = request.headCheckResult as? RouteContext { return checked }
        var context = RouteContext(credential: .anonymous)
        for step in middleware { try step.prepare(request, &context) }
        try Authenticate(authentication: access.authentication, caller: caller, allowsQueryToken: queryToken).prepare(request, &context)
        return context
    }

    /// The check of a request's head before its body is read (`HeadCheck`): the context, as the
    /// handler would work it out, then `admits` (a check of the route's own, such as the
    /// device's own token for a write). A caller without a credential, where the route allows
    /// one, sends an anonymous body (small). Routes for `.anyone` have none: all their bodies
    /// are anonymous.
    func headCheck(_ caller: Caller, queryToken: Bool,
                   admits: (@Sendable (Request, RouteContext) throws -> Void)? = nil) -> HeadCheck? {
        if case .anyone = caller { return nil }
        let group = self
        return HeadCheck(runsInline: access.credentialChecksInline) { request in
            let context = try group.context(request, caller, queryToken: queryToken)
            try admits?(request, context)
            return context.credential == .anonymous ? .anonymous : .authenticated(context)
        }
    }

    /// A route answered on the server's thread (quick reads).
    func inline(_ method: String, _ pattern: String, _ caller: Caller, queryToken: Bool = false, maxBodyBytes: Int? = nil,
                _ handle: @escaping @Sendable (Request, RouteContext) throws -> Response) -> Route {
        let group = self
        let store = access.store
        return Route(method, pattern, maxBodyBytes: maxBodyBytes, headCheck: headCheck(caller, queryToken: queryToken), .inline { request in
            try store.readingTogether { try handle(request, try group.context(request, caller, queryToken: queryToken)) }
        })
    }

    /// A route answered from a task (writes, anything that may wait); no HTTP thread waits.
    func deferred(_ method: String, _ pattern: String, _ caller: Caller, queryToken: Bool = false, maxBodyBytes: Int? = nil,
                  _ handle: @escaping @Sendable (Request, RouteContext) async throws -> Response) -> Route {
        let group = self
        return Route(method, pattern, maxBodyBytes: maxBodyBytes, headCheck: headCheck(caller, queryToken: queryToken), .deferred { request in
            try await handle(request, try group.context(request, caller, queryToken: queryToken))
        })
    }

    /// A route tried on the server's thread within `inlineBudget` (`Handler.adaptive`):
    /// `handle` gets the budget there, and nil when it runs again in a task because the budget
    /// was not enough (it throws `WorkBudget.Exceeded`). For reads whose cost is unknown until
    /// they run (geo queries): the cheap ones skip the hand-off to a task and back. A body over
    /// `smallBody` goes to the task at once: parsing it (and a large polygon in it) is work the
    /// budget does not count.
    /// With no `inlineBudget` the route is deferred: it always runs from a task.
    func adaptive(_ method: String, _ pattern: String, _ caller: Caller, maxBodyBytes: Int? = nil, inlineBudget: WorkBudget?,
                  _ handle: @escaping @Sendable (Request, RouteContext, WorkBudget?) throws -> Response) -> Route {
        let group = self
        guard let inlineBudget else {
            return deferred(method, pattern, caller, maxBodyBytes: maxBodyBytes) { request, context in try handle(request, context, nil) }
        }
        let store = access.store
        return Route(method, pattern, maxBodyBytes: maxBodyBytes, headCheck: headCheck(caller, queryToken: false), .adaptive(inline: { request in
            guard request.body.count <= Self.smallBody else { return nil }
            do {
                return try store.readingTogether { try handle(request, try group.context(request, caller, queryToken: false), inlineBudget) }
            } catch is WorkBudget.Exceeded {
                return nil
            }
        }, deferred: { request in
            try handle(request, try group.context(request, caller, queryToken: false), nil)
        }))
    }

    /// A write answered by whoever completes it (`Handler.completing`): `start` checks the
    /// caller, parses and hands the work on, and the work answers through `reply` (the SQLite
    /// writer, right after its commit). Bodies of at most `ingestInlineBodyBytes` start on the
    /// server's thread, larger ones from a task. `admits` is checked with the caller before
    /// the body is read (`headCheck`).
    func completing(_ method: String, _ pattern: String, _ caller: Caller, maxBodyBytes: Int? = nil,
                    admits: (@Sendable (Request, RouteContext) throws -> Void)? = nil,
                    _ start: @escaping @Sendable (Request, RouteContext, Reply) throws -> Void) -> Route {
        let group = self
        return Route(method, pattern, maxBodyBytes: maxBodyBytes, headCheck: headCheck(caller, queryToken: false, admits: admits),
                     .completing(inlineBodyBytes: access.ingestInlineBodyBytes) { request, reply in
            try start(request, try group.context(request, caller, queryToken: false), reply)
        })
    }

    /// A route whose body is read while it arrives (uploads of any size): `admit` runs on the
    /// server's thread once the headers are in, after the caller check, and returns the handler
    /// that reads the body; a refusal is answered before any of the body is read.
    func streaming(_ method: String, _ pattern: String, _ caller: Caller, maxBodyBytes: Int,
                   _ admit: @escaping @Sendable (Request, RouteContext) throws -> StreamingHandler) -> Route {
        let group = self
        return Route(method, pattern, maxBodyBytes: maxBodyBytes, .streaming { request in
            try admit(request, try group.context(request, caller, queryToken: false))
        })
    }

    /// A deferred route with a typed JSON body, decoded after the caller check.
    func deferred<Body: RequestBody>(_ method: String, _ pattern: String, _ caller: Caller, body: Body.Type,
                                     maxBodyBytes: Int = RouteGroup.smallBody,
                                     _ handle: @escaping @Sendable (Request, RouteContext, Body) async throws -> Response) -> Route {
        deferred(method, pattern, caller, maxBodyBytes: maxBodyBytes) { request, context in
            try await handle(request, context, try Body(JSONBody(request)))
        }
    }
}
