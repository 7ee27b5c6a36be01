import SQLCore
import Storage
import Tracking

/// Share links: `SQLCore.ShareTables`, written once for both stores (reads too), in this store's
/// transactions.
extension SQLiteBackend: ShareStore {
    /// Runs `body` in a write; the links it revokes or renews are announced through `commits`
    /// right after the commit.
    public func writeShares<T: Sendable>(_ body: @escaping @Sendable (any ShareTransaction) throws -> T) async throws -> T {
        let door = commits
        return try await write({ db -> Announced<T> in
            let changes = CommittedChanges()
            return Announced(value: try body(ShareTables(db: SQLiteExecutor(db: db), changes: changes)), changes: changes)
        }, onCommit: { $0.changes.announce(through: door) }).value
    }
}

/// `SQLCore.FriendSnapshotTables`, in one read.
extension SQLiteBackend: FriendStore {}
