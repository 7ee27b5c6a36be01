/// Runs share-link transactions: reads on one snapshot, writes in the next durable commit.
///
/// `readShares` runs its body synchronously on one committed snapshot. `writeShares` runs its
/// body on the store's single writer in its own savepoint of a group commit (a body that
/// throws leaves nothing behind), announces revoked and renewed links through the store's
/// `CommitDoor`, and returns once the commit is durable. Storage faults throw `StoreFailure`.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol ShareStore: Sendable {
    func readShares<T>(_ body: (any ShareTransaction) throws -> T) throws -> T
    @discardableResult
    func writeShares<T: Sendable>(_ body: @escaping @Sendable (any ShareTransaction) throws -> T) async throws -> T
}
