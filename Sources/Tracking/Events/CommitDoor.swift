import Synchronization

/// The one door through which a store's committed changes leave it: group events, stored fixes
/// and share-link changes, to every registered consumer, in commit order, whichever store
/// committed them — the store announces its own commits (the embedded store right after each
/// commit, on its writer thread; PostgreSQL through its relays, for every node's commits, this
/// node's too). Consumers register once, while the node starts, before `startPublishing`.
///
/// Delivery through the door is in memory and best effort: a consumer that must see every change
/// at least once keeps a durable cursor in the store (the alert matcher's
/// `NotificationStore.matchAlerts`) and uses the door only to know when to read. Such a consumer
/// may ask for only the events this node committed (`register(eventsCommittedHere:)`): on many
/// nodes each then reads after its own commits instead of every node after every commit, and its
/// periodic pass reads what a node that stopped left behind.
public final class CommitDoor: GroupEventSink, RelayedShareStreams, Sendable {
    private struct Consumers: Sendable {
        var events: [any GroupEventSink] = []
        var eventsCommittedHere: [any GroupEventSink] = []
        var fixes: [any DeviceFixSink] = []
        var shares: [any ShareLinkSink] = []
        /// The consumers that can say what they have applied (for a relay that lost its
        /// connection and must resend what they may have missed).
        var replaying: [any ReplayingEventConsumer] = []
        var watching: [any RelayedShareStreams] = []
    }

    private let consumers = Mutex(Consumers())
    /// Whether `publish` carries other nodes' commits too (PostgreSQL's relays), so that this
    /// node's own are announced apart (`publishCommittedHere`); false: every event published
    /// was committed here (the embedded store).
    private let relayed: Bool

    public init(relayed: Bool = false) { self.relayed = relayed }

    /// Adds a consumer of committed group events.
    public func register(events consumer: any GroupEventSink) {
        consumers.withLock { c in
            c.events.append(consumer)
            if let replaying = consumer as? any ReplayingEventConsumer { c.replaying.append(replaying) }
        }
    }

    /// Adds a consumer of the group events this node committed (after their commit, in its
    /// commit order).
    public func register(eventsCommittedHere consumer: any GroupEventSink) {
        consumers.withLock { $0.eventsCommittedHere.append(consumer) }
    }

    /// Adds a consumer of committed fixes and share-link changes (the share links' streams).
    public func register(shares consumer: any RelayedShareStreams) {
        consumers.withLock { c in
            c.fixes.append(consumer)
            c.shares.append(consumer)
            c.watching.append(consumer)
        }
    }

    // MARK: What stores announce

    public func publish(_ events: [GroupEvent]) {
        guard !events.isEmpty else { return }
        let (all, here) = consumers.withLock { ($0.events, $0.eventsCommittedHere) }
        for consumer in all { consumer.publish(events) }
        if !relayed { for consumer in here { consumer.publish(events) } }
    }

    /// Events this node just committed, announced by a store whose `publish` is relayed (a
    /// relay brings them to `publish` as well, a moment later, for the consumers of every
    /// node's). A store that is not relayed announces its commits with `publish` alone.
    public func publishCommittedHere(_ events: [GroupEvent]) {
        guard relayed, !events.isEmpty else { return }
        for consumer in consumers.withLock({ $0.eventsCommittedHere }) { consumer.publish(events) }
    }

    public func fixesStored(_ outcome: IngestOutcome) {
        guard !outcome.stored.isEmpty else { return }
        for consumer in consumers.withLock({ $0.fixes }) { consumer.fixesStored(outcome) }
    }

    public func shareRevoked(_ id: ShareID) {
        for consumer in consumers.withLock({ $0.shares }) { consumer.shareRevoked(id) }
    }

    public func shareRenewed(_ id: ShareID, expiresAt: Int64) {
        for consumer in consumers.withLock({ $0.shares }) { consumer.shareRenewed(id, expiresAt: expiresAt) }
    }

    public func deviceRemoved(_ id: DeviceID) {
        for consumer in consumers.withLock({ $0.shares }) { consumer.deviceRemoved(id) }
    }

    // MARK: What relays ask

    /// The groups some consumer follows, with the newest event id each has applied (the
    /// lowest when several follow one group).
    public var openGroups: [GroupID: EventID] {
        var all: [GroupID: EventID] = [:]
        for consumer in consumers.withLock({ $0.replaying }) {
            for (group, id) in consumer.openGroups { all[group] = min(all[group] ?? id, id) }
        }
        return all
    }

    /// Whether a consumer shows `deviceID`'s fixes live (other devices' need not be read).
    public func isWatching(_ deviceID: DeviceID) -> Bool {
        consumers.withLock { $0.watching }.contains { $0.isWatching(deviceID) }
    }

    /// Restarts the share streams of `deviceID` (every device's when nil): something may
    /// have been missed.
    public func restart(deviceID: DeviceID?) {
        for consumer in consumers.withLock({ $0.watching }) { consumer.restart(deviceID: deviceID) }
    }
}
