/// A route's check of a request's head — headers, query and path, never the body — run once
/// the headers are in and before any byte of a body is buffered, so a body nobody may send is
/// refused before it costs memory. The transport knows nothing of credentials: the application
/// supplies the check (a token's lookup) and gets back what it resolved in
/// `Request.headCheckResult`, so its handler need not resolve it again.
///
/// It runs only for requests that announce a body (`Content-Length` above 0, or
/// `Transfer-Encoding`); requests without one go straight to their handler, which checks them
/// as always. A route without a check treats every body as anonymous.
public struct HeadCheck: Sendable {
    /// What the check concluded about the caller.
    public enum Verdict: Sendable {
        /// A credential the route accepts: the route's own body limit applies. `result` (what
        /// the check resolved) reaches the handler as `Request.headCheckResult`.
        case authenticated(_ result: any Sendable)
        /// No credential in the head, which the route allows (it may be in the body, as
        /// OsmAnd's form `id`): the body is capped at `BodyLimits.anonymousBodyBytes` and
        /// held against the anonymous budget.
        case anonymous
        /// As `anonymous`, but the route takes such bodies up to `maxBodyBytes` (at most its
        /// own limit): a phone app's batch that names its device only in the body. Held
        /// against the anonymous budget all the same.
        case anonymousUpTo(maxBodyBytes: Int)
    }

    /// Whether the check runs on the server's thread (a lookup in memory or a local file);
    /// false runs it from a task with the connection suspended meanwhile (a lookup that is a
    /// network round trip).
    public let runsInline: Bool
    /// Throws to refuse the request (the error becomes its response: 401, 403 …).
    public let check: @Sendable (Request) throws -> Verdict

    public init(runsInline: Bool = true, _ check: @escaping @Sendable (Request) throws -> Verdict) {
        self.runsInline = runsInline
        self.check = check
    }
}
