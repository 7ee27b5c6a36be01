import SQLCore
import Storage
import Tracking

/// `DirectoryTransaction` over one SQLite connection inside a transaction: the rows are
/// `SQLCore.DirectoryTables`' (`DirectoryTablesTransaction`); deleting fixes (with the unmerged
/// mirror) and membership events are this store's.
struct SQLiteDirectory: DirectoryTablesTransaction {
    let db: Database
    /// The backend's mirror of unmerged fixes (deleting a device deletes its entries there too).
    let unmerged: UnmergedFixes
    /// What a write transaction logs, announced once it commits (nil in a read).
    var changes: CommittedChanges? = nil

    /// This transaction's connection, for the statements written once in `SQLCore`.
    var sql: SQLiteExecutor { SQLiteExecutor(db: db) }

    func deleteAllFixes(deviceKey: Int64) throws {
        try SQLiteBackend.deleteAllFixes(deviceKey: deviceKey, unmerged: unmerged, in: db)
    }

    /// Appends to the group's log and records the event for the announcement after the commit.
    func appendMembershipEvent(groupID: GroupID, _ event: MembershipEvent) throws -> GroupEvent {
        let events = try SQLiteBackend.appendEvents(groupID: groupID, [event.entry], in: db)
        guard let event = events.first else { throw StorageError(code: 1, message: "event not appended") }
        changes?.logged([event])
        return event
    }
}

/// Directory and place transactions (`SQLCore.DirectoryTablesStore`); `PartitionFacts` and
/// `deviceCredential` are `SQLCore.DirectoryTables`' (through `SQLStatementReads`).
extension SQLiteBackend: DirectoryTablesStore {
    public func readPlaces<T>(_ body: (any PlaceTransaction) throws -> T) throws -> T {
        try read { try body(SQLiteDirectory(db: $0, unmerged: self.unmerged)) }
    }

    /// The events `body` logs are announced through `commits` right after the commit.
    public func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T,
                                         onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        let door = commits, unmerged = self.unmerged
        return try await write({ db -> Announced<T> in
            let changes = CommittedChanges()
            return Announced(value: try body(SQLiteDirectory(db: db, unmerged: unmerged, changes: changes)), changes: changes)
        }, onCommit: { committed in
            committed.changes.announce(through: door)
            onCommit(committed.value)
        }).value
    }
}
