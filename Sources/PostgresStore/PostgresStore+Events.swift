import JSONCore
import PostgresClient
import Timestamps
import Tracking

extension PostgresStore: EventLog {
    /// Appends events to a group's log inside the current write transaction; ids are the next
    /// ones of the group, in the order given, and a `NOTIFY` on `eventChannel` announces them
    /// at commit (`EventAppend`: one statement, one round trip).
    static func appendEvents(groupID: GroupID, _ entries: [EventLogEntry], on c: Connection) throws -> [GroupEvent] {
        guard !entries.isEmpty else { return [] }
        let log = EventAppend(groupID: groupID, entries: entries)
        return try log.events(from: c.queryPrepared(EventAppend.sql, log.parameters))
    }

    /// Redacts the location events of device `deviceKey` whose fix is older than `before` (all
    /// of them when nil), inside the transaction that deletes those fixes.
    static func redactLocationEvents(deviceKey: Int64, before: Int64?, on c: Connection) throws {
        if let before {
            try c.run("""
                UPDATE events SET type = 'redacted', data = '{}'
                WHERE device_key = $1 AND fix_ts < $2 AND type IN ('location', 'locations', 'place')
                """, [.int64(deviceKey), .int64(before)])
        } else {
            try c.run("UPDATE events SET type = 'redacted', data = '{}' WHERE device_key = $1 AND type IN ('location', 'locations', 'place')",
                      [.int64(deviceKey)])
        }
    }

    static func event(groupID: GroupID, _ row: Row) throws -> GroupEvent {
        let text = try row.text(3)
        return GroupEvent(groupID: groupID, id: EventID(try row.int64(0)), kind: GroupEvent.Kind(rawValue: try row.text(1)) ?? .redacted,
                          userID: try row.optionalID(2), data: (try? JSONParser.parse(Array(text.utf8))) ?? .null)
    }

    public func events(groupID: GroupID, after: EventID, limit: Int) throws -> [GroupEvent] {
        try read { c in
            try c.rows("SELECT id, type, user_id, data FROM events WHERE group_id = $1 AND id > $2 ORDER BY id LIMIT $3",
                       [.id(groupID), .int64(after.rawValue), .int(max(0, limit))]) { try Self.event(groupID: groupID, $0) }
        }
    }

    public func eventBounds(groupID: GroupID) throws -> (last: EventID, oldest: EventID?) {
        try read { try Self.eventBounds(groupID: groupID, on: $0) }
    }

    static func eventBounds(groupID: GroupID, on c: Connection) throws -> (last: EventID, oldest: EventID?) {
        let row = try c.queryPrepared("""
            SELECT (SELECT last_id FROM event_heads WHERE group_id = $1), (SELECT min(id) FROM events WHERE group_id = $1)
            """, [.id(groupID)]).row(0)
        return (EventID(try row.optionalInt64(0) ?? 0), try row.optionalInt64(1).map { EventID($0) })
    }

    public func feedSnapshot(groupID: GroupID, readerID: UserID) throws -> FeedSnapshot? {
        try readSnapshot { c in
            guard try c.firstRow("SELECT 1 FROM memberships WHERE group_id = $1 AND user_id = $2",
                                 [.id(groupID), .id(readerID)], { _ in true }) == true else { return nil }
            let rows = try c.rows("""
                SELECT m.user_id, m.device_id, m.share_location, p.start_ts, p.end_ts FROM memberships m
                LEFT JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id AND p.device_id = m.device_id
                WHERE m.group_id = $1
                """, [.id(groupID)]) {
                GroupVisibility.MembershipRow(userID: try $0.id(0), deviceID: try $0.id(1), shares: try $0.bool(2),
                                              start: try $0.optionalInt64(3), end: try $0.optionalInt64(4))
            }
            let bounds = try Self.eventBounds(groupID: groupID, on: c)
            return FeedSnapshot(visibility: GroupVisibility(rows: rows), lastEventID: bounds.last, oldestEventID: bounds.oldest)
        }
    }

    public func pruneEvents(before: Int64) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await write { c in
                try c.run("""
                    DELETE FROM events WHERE (group_id, id) IN
                      (SELECT group_id, id FROM events WHERE created_at < $1 ORDER BY created_at LIMIT 5000)
                    """, [.int64(before)])
            }
            total += deleted
            if deleted < 5000 { return total }
        }
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
         .textArray(entries.map { $0.data.serializedString() }),
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
            GroupEvent(groupID: groupID, id: EventID(first + Int64(offset)), kind: entry.kind, userID: entry.userID, data: entry.data)
        }
    }
}
