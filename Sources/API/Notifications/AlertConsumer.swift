import Dispatch
import HTTPServer
import Synchronization
import Tracking

/// The alert matcher, a consumer of the commit door: a `place` event this node committed wakes
/// it for its group, and it runs the store's durable matcher (`NotificationStore.matchAlerts`, a
/// cursor per group) there; every `catchUpSeconds` it also runs it for every group whose log went
/// past its cursor — events it never saw in memory (written before a restart, or by another node,
/// whose own matcher reads them unless it stopped first). On many nodes each matches after its
/// own commits, so the nodes do not queue for the same groups' cursors after every commit. What it inserts, it hands to the delivery worker (`onDeliveries`).
///
/// One serial queue does the matching, so the cursor of a group is advanced by one matcher of
/// this node at a time (nodes exclude each other by the cursor's row lock).
public final class AlertConsumer: GroupEventSink, Sendable {
    /// The cursor's name in `consumer_cursors`.
    public static let name = "alerts"

    public struct Configuration: Sendable {
        /// Events read per transaction.
        public var batch = 500
        /// Seconds between passes over every group that is behind.
        public var catchUpSeconds = 5.0
        public init() {}
    }

    let store: any NotificationStore
    let configuration: Configuration
    let onDeliveries: @Sendable () -> Void
    let logger: Logger
    /// Where matching runs: one serial queue (its work blocks on the store's writer, never on a
    /// task of the cooperative pool).
    private let queue = DispatchQueue(label: "fod.alerts")
    /// Groups woken and not yet matched, and whether a pass is scheduled.
    private let pending = Mutex<(groups: Set<GroupID>, scheduled: Bool)>(([], false))
    /// Whether the periodic passes go on.
    private let running = Atomic<Bool>(false)

    public init(store: any NotificationStore, configuration: Configuration = Configuration(), logger: Logger,
                onDeliveries: @escaping @Sendable () -> Void) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.onDeliveries = onDeliveries
    }

    public func publish(_ events: [GroupEvent]) {
        let groups = Set(events.lazy.filter { $0.kind == .place }.map(\.groupID))
        guard !groups.isEmpty else { return }
        let schedule = pending.withLock { state -> Bool in
            state.groups.formUnion(groups)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { [self] in matchPending() } }
    }

    /// Starts the passes over every group behind (the first now: what was committed before).
    public func start() {
        running.store(true, ordering: .releasing)
        queue.async { [self] in catchUp() }
    }

    /// Stops the passes and waits for the one under way.
    public func stop() {
        running.store(false, ordering: .releasing)
        queue.sync {}
    }

    /// One pass over every group behind, then the next one scheduled.
    private func catchUp() {
        guard running.load(ordering: .acquiring) else { return }
        match(Set((try? store.groupsBehind(consumer: Self.name)) ?? []))
        queue.asyncAfter(deadline: .now() + configuration.catchUpSeconds) { [self] in catchUp() }
    }

    private func matchPending() {
        let groups = pending.withLock { state -> Set<GroupID> in
            defer { state.groups = []; state.scheduled = false }
            return state.groups
        }
        match(groups)
    }

    /// Runs the matcher over the groups, together (one transaction a pass, at most
    /// `groupsPerTransaction` groups), until their logs are read. What a transaction inserted
    /// goes to the senders as it commits: while walkers keep posting, the groups stay behind
    /// and the passes go on, and their deliveries must not wait for the last one.
    func match(_ groups: Set<GroupID>) {
        var left = Array(groups)
        while !left.isEmpty {
            let batch = Array(left.prefix(Self.groupsPerTransaction))
            left.removeFirst(batch.count)
            do {
                let progress = try store.matchAlerts(groupIDs: batch, consumer: Self.name, limit: configuration.batch) { AlertMatcher.deliveries($0, body: NotificationMessage.webhookBody) }
                onDeliveries()
                left += progress.behind
                if !progress.busy.isEmpty { retryShortly(progress.busy) }
            } catch {
                logger.warning("alerts: matching \(batch.count) group(s) failed (\(error)); the next pass retries")
            }
        }
    }

    /// Groups another node was matching: look again in a moment (what it read before our
    /// events committed would otherwise wait for the next pass).
    private func retryShortly(_ groups: Set<GroupID>) {
        queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
            let schedule = pending.withLock { state -> Bool in
                state.groups.formUnion(groups)
                defer { state.scheduled = true }
                return !state.scheduled
            }
            if schedule { matchPending() }
        }
    }

    /// Groups matched in one transaction at most.
    static let groupsPerTransaction = 16
}
