import PostgresClient
import SQLCore
import Tracking

/// `DirectoryTransaction` over one connection inside a transaction (the writer's, or a
/// reader's read-only snapshot): the rows are `SQLCore.DirectoryTables`'
/// (`DirectoryTablesTransaction`); deleting fixes and membership events are this
/// store's.
struct PostgresDirectory: DirectoryTablesTransaction {
    let c: Connection
    /// Parsed place shapes (places are edited inside directory transactions too).
    let shapes: PlaceShapeCache

    /// This transaction's connection, for the statements written once in `SQLCore`.
    var sql: PostgresExecutor { PostgresExecutor(c: c) }

    func deleteAllFixes(deviceKey: Int64) throws {
        try PostgresStore.deleteAllFixes(deviceKey: deviceKey, on: c)
    }

    /// Appends to the group's log (its `NOTIFY` announces it at commit).
    func appendMembershipEvent(groupID: GroupID, _ event: MembershipEvent) throws -> GroupEvent {
        let events = try PostgresStore.appendEvents(groupID: groupID, [event.entry], on: c)
        guard let event = events.first else {
            throw PostgresError(sqlState: .internalError, origin: .client, message: "the membership event was not appended")
        }
        return event
    }
}

/// Directory and place transactions (`SQLCore.DirectoryTablesStore`; the membership events a
/// write logs are announced by their `NOTIFY`); `PartitionFacts` and `deviceCredential` are
/// `SQLCore.DirectoryTables`' (through `SQLStatementReads`).
extension PostgresStore: DirectoryTablesStore {
    public func readPlaces<T>(_ body: (any PlaceTransaction) throws -> T) throws -> T {
        try readSnapshot { try body(PostgresDirectory(c: $0, shapes: placeShapes)) }
    }

    public func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T,
                                         onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        let shapes = placeShapes
        return try await write({ try body(PostgresDirectory(c: $0, shapes: shapes)) }, onCommit: onCommit)
    }
}
