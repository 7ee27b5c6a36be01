/// A consumer of group events that can say how far it has applied each group it follows (the
/// live hub), so a relay that lost its connection resends what it may have missed.
///
/// `openGroups` may be read from any thread, at any time after registration; it answers the
/// lowest event id it is sure to have applied for each group it follows.
///
/// Implemented by `LiveHub` (API).
public protocol ReplayingEventConsumer: GroupEventSink {
    var openGroups: [GroupID: EventID] { get }
}
