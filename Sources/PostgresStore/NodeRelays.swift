import Tracking

/// The two relays a node on PostgreSQL runs: `EventRelay` feeds its live hub and `ShareRelay`
/// its share-link streams from every node's commits, its own included. `fod serve` starts them
/// on a node, and the API tests on a PostgreSQL test app, the same way.
///
/// Lifetime: `start` once; `stop` once, before the hub and the streams go.
public final class NodeRelays: Sendable {
    private let events: EventRelay
    private let shares: ShareRelay

    /// Starts both (listening before it returns, so nothing committed after it is missed);
    /// throws `StoreFailure(.unavailable)` when the database cannot be reached, having started
    /// neither.
    /// - Parameters:
    ///   - hub: the node's live hub; `openGroups` names its groups with open streams and the
    ///     newest event id each has applied.
    ///   - shares: the node's share-link streams.
    public static func start(store: PostgresStore, hub: any GroupEventSink, openGroups: @escaping @Sendable () -> [GroupID: EventID],
                             shares: any RelayedShareStreams, log: @escaping @Sendable (String) -> Void) throws -> NodeRelays {
        let events = EventRelay(store: store, downstream: hub, openGroups: openGroups, log: log)
        try events.start()
        let shareRelay = ShareRelay(store: store, streams: shares, log: log)
        do { try shareRelay.start() } catch {
            events.stop()
            throw error
        }
        return NodeRelays(events: events, shares: shareRelay)
    }

    private init(events: EventRelay, shares: ShareRelay) {
        self.events = events
        self.shares = shares
    }

    /// Stops both relays (each within one wait of its listening session).
    public func stop() {
        shares.stop()
        events.stop()
    }
}
