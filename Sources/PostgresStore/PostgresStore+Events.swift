import PostgresClient
import SQLCore
import Timestamps
import Tracking

/// The event log: appends here (`EventAppend`, one statement with its `NOTIFY`); the rest is
/// `SQLCore.EventTables`, written once for both stores (through `SQLTransactions`
/// and `SQLStatementReads`).
extension PostgresStore: EventLog {
    /// Appends events to a group's log inside the current write transaction; ids are the next
    /// ones of the group, in the order given, and a `NOTIFY` on `eventChannel` announces them
    /// at commit (`EventAppend`: one statement, one round trip).
    static func appendEvents(groupID: GroupID, _ entries: [EventLogEntry], on c: Connection) throws -> [GroupEvent] {
        guard !entries.isEmpty else { return [] }
        let log = EventAppend(groupID: groupID, entries: entries)
        return try log.events(from: c.queryPrepared(EventAppend.sql, log.parameters))
    }

    /// `EventTables.redactLocationEvents` inside the current write transaction on `c`.
    static func redactLocationEvents(deviceKey: Int64, before: Int64?, on c: Connection) throws {
        try EventTables.redactLocationEvents(deviceKey: deviceKey, before: before, on: PostgresExecutor(c: c))
    }
}

/// One statement that appends events to a group's log: it moves the group's head by their
/// count, inserts them with the ids it freed, and `NOTIFY`s `eventChannel` with
/// `EventNotice`'s payload. The upsert of `event_heads` locks the group's head row until
/// commit: a concurrent writer on any node waits there, so ids are gapless and in commit order.
/// Statements in a pipeline run in the order sent, so several of these keep their groups' order.
struct EventAppend {
    let groupID: GroupID
    /// Not empty.
    let entries: [EventLogEntry]

    /// Returns the group's new last id. Empty strings stand for NULL in the text arrays (an id
    /// is never empty); the payload is `group:first:last`, as `EventNotice` parses it.
    static let sql = """
        WITH head AS (
          INSERT INTO event_heads AS h (group_id, last_id) VALUES ($1, $2)
          ON CONFLICT (group_id) DO UPDATE SET last_id = h.last_id + excluded.last_id RETURNING last_id
        ), logged AS (
          INSERT INTO events (group_id, id, type, user_id, data, created_at, device_key, fix_ts)
          SELECT $1, head.last_id - $2 + t.ordinal, t.type, nullif(t.user_id, ''), t.data, $3,
                 nullif(t.device_key, '')::bigint, nullif(t.fix_ts, '')::bigint
          FROM head, unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
            WITH ORDINALITY AS t(type, user_id, data, device_key, fix_ts, ordinal)
        )
        SELECT last_id, pg_notify($9, $1::text || ':' || (last_id - $2 + 1)::text || ':' || last_id::text) FROM head
        """

    var parameters: [PostgresValue] {
        [.id(groupID), .int64(Int64(entries.count)), .int64(Timestamp.nowMilliseconds()),
         .textArray(entries.map(\.kind.rawValue)), .textArray(entries.map { $0.userID?.rawValue ?? "" }),
         .textArray(entries.map { EventTables.storedText($0, groupID: groupID) }),
         .textArray(entries.map { $0.fix.map { String($0.deviceKey.storeValue) } ?? "" }),
         .textArray(entries.map { $0.fix.map { String($0.timestamp) } ?? "" }), .text(PostgresStore.eventChannel)]
    }

    /// The events as logged, from the statement's result.
    func events(from result: QueryResult) throws -> [GroupEvent] {
        guard let last = try result.first?.int64(0) else {
            throw PostgresError(sqlState: .internalError, origin: .client, message: "the event head was not returned")
        }
        let first = last - Int64(entries.count) + 1
        return entries.enumerated().map { offset, entry in
            GroupEvent(groupID: groupID, id: EventID(first + Int64(offset)), payload: entry.payload)
        }
    }
}
