import SQLCore
import Storage
import Tracking

/// Share links: `SQLCore.ShareTables`, written once for both stores, in this store's transactions.
extension SQLiteBackend: ShareStore {
    public func readShares<T>(_ body: (any ShareTransaction) throws -> T) throws -> T {
        try read { try body(ShareTables(db: SQLiteExecutor(db: $0))) }
    }

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
extension SQLiteBackend: FriendStore {
    public func friendsSnapshot(deviceID: DeviceID) throws -> FriendsSnapshot? {
        try read { try FriendSnapshotTables.snapshot(deviceID: deviceID, on: SQLiteExecutor(db: $0)) }
    }
}
