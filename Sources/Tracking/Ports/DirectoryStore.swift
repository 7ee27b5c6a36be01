/// Runs directory transactions: reads on a snapshot, writes in the next durable group commit.
///
/// `readDirectory` runs its body synchronously on one committed snapshot. `writeDirectory`
/// runs its body on the store's single writer in its own savepoint of a group commit (a body
/// that throws leaves nothing behind, and its error is rethrown), announces the membership
/// events it appended through the store's `CommitDoor`, and returns once the commit is durable.
/// Storage faults throw `StoreFailure`.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol DirectoryStore: PartitionFacts {
    func readDirectory<T>(_ body: (any DirectoryTransaction) throws -> T) throws -> T
    /// (deviceID, ownerID) of the device whose token hashes to `tokenHash`: one read, without
    /// opening a snapshot (it runs before every device request).
    func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)?
    @discardableResult
    func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T) async throws -> T
    /// Like `writeDirectory`; `onCommit` runs right after the commit, in commit order.
    @discardableResult
    func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T,
                                     onCommit: @escaping @Sendable (T) -> Void) async throws -> T
}
