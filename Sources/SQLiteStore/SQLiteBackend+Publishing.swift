import SQLCore
import Synchronization
import Tracking

/// The embedded store announces its own commits: it is the only node.
extension SQLiteBackend: CommitPublisher {
    public func startPublishing(log: @escaping @Sendable (String) -> Void) throws {}
    public func stopPublishing() {}
}

/// What one write transaction changed that the store announces once it commits: the events it
/// logged and the share links it revoked or renewed. Filled on the writer thread inside the
/// transaction, read right after its commit (a failed transaction's is dropped with it).
final class CommittedChanges: ShareChangeRecorder {
    private struct Changes {
        var events: [GroupEvent] = []
        var revoked: [ShareID] = []
        var renewed: [(ShareID, Int64)] = []
    }

    private let changes = Mutex(Changes())

    func logged(_ events: [GroupEvent]) { changes.withLock { $0.events += events } }
    func revoked(_ id: ShareID) { changes.withLock { $0.revoked.append(id) } }
    func renewed(_ id: ShareID, expiresAt: Int64) { changes.withLock { $0.renewed.append((id, expiresAt)) } }

    /// Hands everything recorded to `door`.
    func announce(through door: CommitDoor) {
        let all = changes.withLock { $0 }
        door.publish(all.events)
        for id in all.revoked { door.shareRevoked(id) }
        for (id, expiresAt) in all.renewed { door.shareRenewed(id, expiresAt: expiresAt) }
    }
}

/// A write's value with what it changed, for the announcement after its commit.
struct Announced<T: Sendable>: Sendable {
    let value: T
    let changes: CommittedChanges
}
