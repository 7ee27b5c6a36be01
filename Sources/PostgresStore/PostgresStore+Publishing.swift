import Synchronization
import Tracking

/// The store announces its commits through `commits`: on PostgreSQL the node's relays listen
/// for every node's commits (its own too) and feed the door; nothing is announced from the
/// writer, so a change is announced once, however many nodes there are.
extension PostgresStore: CommitPublisher {
    public func startPublishing(log: @escaping @Sendable (String) -> Void) throws {
        let door = commits
        let started = try NodeRelays.start(store: self, hub: door, openGroups: { door.openGroups }, shares: door, log: log)
        relays.withLock { $0 = started }
    }

    public func stopPublishing() {
        relays.withLock { relays in
            relays?.stop()
            relays = nil
        }
    }
}
