/// How a store announces its commits through its door (`TrackingStore.commits`).
///
/// `startPublishing` and `stopPublishing` are each called once, in that order, while the node
/// starts and stops. Commits are announced after they are durable, in commit order.
///
/// Implemented by `SQLiteBackend` (it announces from its writer thread right after each
/// commit; starting and stopping do nothing) and `PostgresStore` (its relays announce every
/// node's commits between `startPublishing` and `stopPublishing`).
public protocol CommitPublisher: Sendable {
    /// The store's door; consumers register on it before `startPublishing`.
    var commits: CommitDoor { get }
    /// Starts announcing (PostgreSQL: the relays of every node's commits); nothing for a store
    /// that announces from its own writer. `log` gets what goes wrong meanwhile.
    func startPublishing(log: @escaping @Sendable (String) -> Void) throws
    /// Stops announcing, before the consumers go.
    func stopPublishing()
}
