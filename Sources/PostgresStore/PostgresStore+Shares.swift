import PostgresClient
import SQLCore
import Tracking

/// Share links: `SQLCore.ShareTables`, written once for both stores, in this store's transactions
/// (the relays announce revocations and renewals: nothing is recorded here).
extension PostgresStore: ShareStore {
    public func writeShares<T: Sendable>(_ body: @escaping @Sendable (any ShareTransaction) throws -> T) async throws -> T {
        try await write { try body(ShareTables(db: PostgresExecutor(c: $0))) }
    }
}

/// `SQLCore.FriendSnapshotTables`, in one snapshot.
extension PostgresStore: FriendStore {}
