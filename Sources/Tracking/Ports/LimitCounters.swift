/// Where the abuse limits count attempts (a port): sign-ups, sign-ins, invitations, failed
/// share-link lookups and device requests.
///
/// The embedded store counts in this process (`LocalLimitCounters`): it is the only node.
/// Nodes on a shared database count there, so that a limit means the same however many nodes
/// serve and whichever node a request reaches. Keys may hold personal data (an address, an
/// email): a shared implementation keeps only a digest of them, and only while they count.
///
/// Every method returns nil when the attempt may go ahead, else the whole seconds to wait
/// (≥ 1, for `Retry-After`). `now` is milliseconds since 1970 by the calling node's clock.
/// Throws `StoreFailure` when the counters cannot be reached (the request gets 503).
///
/// Implemented by `LocalLimitCounters` (Tracking, for the embedded store) and
/// `PostgresLimitCounters` (PostgresStore).
public protocol LimitCounters: Sendable {
    /// Records an attempt of `key` unless the window already holds `limit.limit` of them (then
    /// records nothing).
    func attempt(_ limit: WindowLimit, key: String, now: Int64) throws -> Int?
    /// Whether `key` may make an attempt now; records nothing (to refuse early, before work
    /// whose failure alone is counted).
    func waitTime(_ limit: WindowLimit, key: String, now: Int64) throws -> Int?
    /// Takes a token of `key`'s bucket if it holds one (always nil when the limit is disabled).
    func take(_ limit: BucketLimit, key: String, now: Int64) throws -> Int?
}
