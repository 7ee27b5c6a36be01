import Synchronization

/// The one door through which committed group events leave a node: every consumer registers
/// here once and gets every committed event in commit order, whichever store committed it (on
/// SQLite the services hand their commits to it; on PostgreSQL the node's relays do, for every
/// node's commits). Delivery through the door is in memory and best effort: a consumer that
/// must see every event at least once keeps a durable cursor in the store (the alert matcher's
/// `NotificationStore.matchAlerts`) and uses the door only to know when to read.
///
/// Registration happens while the node starts, before the first commit; `publish` then reads
/// the list without a lock (`Mutex` guards the registration itself).
public final class CommitDoor: GroupEventSink, Sendable {
    private let consumers = Mutex<[any GroupEventSink]>([])

    public init() {}

    /// Adds a consumer; it gets every event published from now on.
    public func register(_ consumer: any GroupEventSink) {
        consumers.withLock { $0.append(consumer) }
    }

    public func publish(_ events: [GroupEvent]) {
        guard !events.isEmpty else { return }
        for consumer in consumers.withLock({ $0 }) { consumer.publish(events) }
    }
}
