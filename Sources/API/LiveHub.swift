import Dispatch
import HTTPServer
import JSONCore
import Synchronization
import Tracking

/// Fans committed group events out to server-sent-event streams.
///
/// - Order: events arrive from the writer thread in commit order and are fanned out on one
///   serial queue, so every stream sees ids ascending.
/// - No gaps on (re)connect: a new subscriber is registered first, then the group's state and
///   log position are read in one snapshot; live events published meanwhile are collected and
///   the ones newer than that snapshot are applied and sent after the replay (or snapshot).
/// - Privacy: what goes out follows `GroupVisibility` (location events only for members who
///   share right now; redacted events never); a channel's visibility starts from a snapshot
///   read *after* the channel began collecting events, so a change committed in between is
///   never lost, even when the group had no open stream; a subscriber who leaves or is removed
///   gets that event last, then its stream ends — in a replay too; a deleted group ends every
///   stream.
/// - Bounded: each stream buffers at most `streamCapacity` bytes; a subscriber that falls
///   behind gets a `resync` event and is closed, and reconnects with its last id. A user holds
///   at most `streamsPerUser` streams at once.
public final class LiveHub: ReplayingEventConsumer, Sendable {
    public struct Configuration: Sendable {
        public var streamCapacity = 256 * 1024
        public var heartbeatSeconds = 15.0
        public var replayPageSize = 1_000
        /// Least time between two fan-out passes (ms): under load, events of that window go out
        /// as one write per stream instead of one per event.
        public var fanOutIntervalMilliseconds = 10
        /// Open streams one user may hold at once (429 beyond).
        public var streamsPerUser = 32
        public init() {}
    }

    let configuration: Configuration
    let log: any EventLog
    let fanOut = DispatchQueue(label: "fod.live.fanout", qos: .userInitiated)
    let groups = Mutex<[GroupID: GroupChannel]>([:])
    /// Ids of the open streams of each user.
    let streamsByUser = Mutex<[UserID: Set<Int>]>([:])
    /// Events published but not yet fanned out, and whether a drain is scheduled.
    let pending = Mutex<(events: [GroupEvent], scheduled: Bool)>(([], false))
    /// When the last fan-out pass started (monotonic ns).
    let lastDrain = Mutex<UInt64>(0)
    let nextSubscriberID = Atomic<Int>(0)
    let heartbeat: HeartbeatTimer
    /// Test seams of `subscribe`: each runs once, on the subscribing thread — right after the
    /// stream was registered, and right after the starting snapshot was read.
    public let afterRegistrationHook = Mutex<(@Sendable () -> Void)?>(nil)
    public let afterSnapshotHook = Mutex<(@Sendable () -> Void)?>(nil)

    public init(log: any EventLog, configuration: Configuration = Configuration()) {
        self.log = log
        self.configuration = configuration
        heartbeat = HeartbeatTimer(queue: fanOut, seconds: configuration.heartbeatSeconds)
        heartbeat.start { [weak self] in self?.sendHeartbeats() }
    }

    /// The groups with open streams and the newest event id each has applied (for a relay
    /// that resynchronises this node's streams after losing its database session).
    public var openGroups: [GroupID: EventID] {
        groups.withLock { all in all.compactMapValues { $0.visibility == nil ? nil : $0.appliedThrough } }
    }

    /// Open streams across all groups.
    public var subscriberCount: Int { groups.withLock { $0.values.reduce(0) { $0 + $1.subscribers.count } } }

    // MARK: Publishing

    /// Queues committed events; the fan-out queue drains everything queued so far in one
    /// pass, so under load each stream gets one write (and one wake-up) per batch, not per event.
    public func publish(_ events: [GroupEvent]) {
        let schedule = pending.withLock { state -> Bool in
            state.events.append(contentsOf: events)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        let wait = lastDrain.withLock { last -> UInt64 in
            let interval = UInt64(max(0, configuration.fanOutIntervalMilliseconds)) * 1_000_000
            let since = DispatchTime.now().uptimeNanoseconds &- last
            return since >= interval ? 0 : interval - since
        }
        if wait == 0 {
            fanOut.async { [self] in drain() }
        } else {
            fanOut.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: wait))) { [self] in drain() }
        }
    }

    func drain() {
        lastDrain.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        let batch = pending.withLock { state -> [GroupEvent] in
            let events = state.events
            state.events = []
            state.scheduled = false
            return events
        }
        var start = 0
        while start < batch.count {
            var end = start
            while end < batch.count && batch[end].groupID == batch[start].groupID { end += 1 }
            deliver(batch[start..<end])
            start = end
        }
    }

    /// Delivers consecutive events of one group: bytes are gathered into a segment and
    /// written to each live stream once; an event that ends some streams (a member left or
    /// was removed, the group was deleted) closes the segment so those streams end right after it.
    func deliver(_ events: ArraySlice<GroupEvent>) {
        guard let groupID = events.first?.groupID else { return }
        groups.withLock { all in
            guard let channel = all[groupID] else { return }
            var segment = Segment()
            for event in events {
                for subscriber in channel.subscribers.values { _ = subscriber.collect(CollectionOfOne(event)) }
                // A channel still reading its starting state only collects.
                guard var visibility = channel.visibility else {
                    channel.collected.append(event)
                    continue
                }
                // Events its starting snapshot already reflects are not applied twice.
                if event.id > channel.appliedThrough {
                    visibility.apply(event)
                    channel.visibility = visibility
                    channel.appliedThrough = event.id
                }
                guard visibility.serves(event) else { continue }
                segment.append(event)
                if MembershipChange(event).map(Self.endsStreams) == true {
                    flush(segment, channel, ending: event)
                    segment = Segment()
                }
            }
            if !segment.bytes.isEmpty { flush(segment, channel, ending: nil) }
            if channel.subscribers.isEmpty { all[groupID] = nil }
        }
    }

    static func endsStreams(_ change: MembershipChange) -> Bool {
        switch change {
        case .left, .removed, .deleted: true
        default: false
        }
    }

    /// Writes a segment to every live stream of the channel (streams that already have these
    /// ids are skipped); streams that `ending` ends get it as their last word.
    private func flush(_ segment: Segment, _ channel: GroupChannel, ending: GroupEvent?) {
        for (id, subscriber) in channel.subscribers where subscriber.isLive && subscriber.lastSent < segment.lastID {
            let bytes = segment.bytes(after: subscriber.lastSent)
            if let ending, GroupVisibility.ends(streamOf: subscriber.userID, with: ending) {
                subscriber.stream.finish(with: bytes)
                channel.subscribers[id] = nil
            } else if subscriber.stream.write(bytes) {
                subscriber.lastSent = segment.lastID
            } else {
                subscriber.stream.finish(with: SSE.resync(lastEventID: subscriber.lastSent))
                channel.subscribers[id] = nil
            }
        }
    }

    func sendHeartbeats() {
        groups.withLock { all in
            for (groupID, channel) in all {
                channel.subscribers.sendHeartbeats { SSE.resync(lastEventID: $0.lastSent) }
                if channel.subscribers.isEmpty { all[groupID] = nil }
            }
        }
    }
}

/// The subscribers of one group and what they may be served. A reference type so fan-out
/// mutates it in place; touched only under the hub's `groups` lock.
final class GroupChannel {
    var subscribers: [Int: Subscriber] = [:]
    /// Nil while the channel's starting state is being read; events meanwhile go to `collected`.
    var visibility: GroupVisibility?
    var collected: [GroupEvent] = []
    /// The newest event `visibility` reflects.
    var appliedThrough = EventID.start

    /// Sets the starting state read at log position `snapshot.lastEventID`, then applies the
    /// events collected since that are newer than it.
    func start(from snapshot: FeedSnapshot) {
        guard visibility == nil else { return }
        var state = snapshot.visibility
        appliedThrough = snapshot.lastEventID
        for event in collected where event.id > appliedThrough {
            state.apply(event)
            appliedThrough = event.id
        }
        visibility = state
        collected = []
    }
}

/// One open stream of a group (`HubStream`: events committed while its opening is read are
/// collected). Touched only under the hub's `groups` lock.
final class Subscriber: HubStream<GroupEvent> {
    let userID: UserID
    /// The newest event id written to the stream.
    var lastSent: EventID

    init(userID: UserID, stream: ResponseStream, lastSent: EventID) {
        self.userID = userID
        self.lastSent = lastSent
        super.init(stream: stream)
    }
}
