import Foundation
import PostgresClient
import Tracking

/// What a `NOTIFY` on `PostgresStore.eventChannel` says: group `groupID` logged events
/// `first...last` in the transaction that just committed. Payload `groupID:first:last`.
public struct EventNotice: Sendable, Equatable {
    public let groupID: GroupID
    public let first: EventID
    public let last: EventID

    public init(groupID: GroupID, first: EventID, last: EventID) {
        self.groupID = groupID
        self.first = first
        self.last = last
    }

    public var payload: String { "\(groupID.rawValue):\(first.rawValue):\(last.rawValue)" }

    /// Parses a payload; nil for anything else (the numbers are read from the right, so a
    /// group id may itself hold colons).
    public init?(payload: String) {
        let parts = payload.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let first = Int64(parts[parts.count - 2]), let last = Int64(parts[parts.count - 1]),
              first >= 1, first <= last else { return nil }
        let group = parts.dropLast(2).joined(separator: ":")
        guard !group.isEmpty else { return nil }
        self.init(groupID: GroupID(rawValue: group), first: EventID(first), last: EventID(last))
    }
}

/// Feeds one node's live streams from every node's commits: it `LISTEN`s on
/// `PostgresStore.eventChannel` and, for each notice, reads the group's events it has not yet
/// passed on from the event table and publishes them to `downstream` (the node's live hub),
/// per group in id order without gaps or repeats. The node's own commits come this way too,
/// so there is one path and one order.
///
/// When the listening session is lost, it connects again and then reads, for every group it
/// knows and every group `openGroups` names (with the last id its streams have), whatever was
/// committed meanwhile: streams miss nothing and get nothing twice.
///
/// Lifetime: `start()` once; `stop()` once, before the hub goes. Runs on its own thread.
public final class EventRelay: @unchecked Sendable {
    // @unchecked: `published` and `dirty` are touched only by the loop's thread.
    private let store: PostgresStore
    private let downstream: any GroupEventSink
    /// The groups with open streams on this node and the newest id each has applied.
    private let openGroups: @Sendable () -> [GroupID: EventID]
    private let log: @Sendable (String) -> Void
    private let loop: ListeningLoop
    private var published: [GroupID: EventID] = [:]
    /// Groups whose last read failed: read again before the next wait.
    private var dirty: Set<GroupID> = []

    public init(store: PostgresStore, downstream: any GroupEventSink,
                openGroups: @escaping @Sendable () -> [GroupID: EventID], log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.downstream = downstream
        self.openGroups = openGroups
        self.log = log
        loop = ListeningLoop(connectionString: store.connectionString, channels: [PostgresStore.eventChannel],
                             name: "fod-pg-relay", log: log)
    }

    /// Listens once (so nothing committed after `start` returns is missed), then relays on a
    /// thread of its own. Throws `StoreFailure(.unavailable)` when the database cannot be reached.
    public func start() throws {
        try loop.start(ListeningLoop.Callbacks(
            received: { [self] notifications in
                for notification in notifications {
                    guard let notice = EventNotice(payload: notification.payload) else { continue }
                    relay(notice.groupID, from: notice.first, through: notice.last)
                }
            },
            beforeWait: { [self] in for group in dirty { relay(group, through: nil) } },
            reconnected: { [self] in resynchronize() }))
    }

    /// Stops the thread (within one wait) and closes the listening session.
    public func stop() { loop.stop() }

    /// After a new session: every known group and every group with open streams, from the last
    /// id passed on (or applied there).
    private func resynchronize() {
        for (group, applied) in openGroups() where (published[group] ?? .start) < applied {
            published[group] = applied
        }
        for group in Set(published.keys).union(dirty) { relay(group, through: nil) }
    }

    /// Passes on the events of `group` after the last one published, up to `last` (or all).
    /// A group seen for the first time starts at `first`: what came before was committed
    /// before this node listened, so its streams started from a snapshot that has it.
    private func relay(_ group: GroupID, from first: EventID? = nil, through last: EventID?) {
        if let last, let done = published[group], done >= last { return }
        var after = published[group] ?? EventID((first?.rawValue ?? 1) - 1)
        do {
            while true {
                let events = try store.events(groupID: group, after: after, limit: 1_000)
                guard let newest = events.last else { break }
                downstream.publish(events)
                after = newest.id
                published[group] = after
                if events.count < 1_000 { break }
            }
            if published[group] == nil { published[group] = after }
            dirty.remove(group)
        } catch {
            log("live relay: reading events of \(group) failed (\(error)); will retry")
            dirty.insert(group)
        }
    }
}
