import Tracking
import JSONCore
import Storage
import Timestamps

extension SQLiteBackend: EventLog {
    /// Appends events to a group's log inside the current write transaction; ids are the next
    /// ones of the group, in the order given.
    static func appendEvents(groupID: GroupID, _ entries: [EventLogEntry], in db: Database) throws -> [GroupEvent] {
        guard !entries.isEmpty else { return [] }
        guard let last = try db.firstRow("""
            INSERT INTO event_heads (group_id, last_id) VALUES (?, ?)
            ON CONFLICT (group_id) DO UPDATE SET last_id = last_id + excluded.last_id RETURNING last_id
            """, [.id(groupID), .int(entries.count)], { $0.int64(0) }) else {
            throw StorageError(code: 1, message: "event head not returned")
        }
        let now = Timestamp.nowMilliseconds()
        let insert = try db.prepare("""
            INSERT INTO events (group_id, id, type, user_id, data, created_at, device_key, fix_ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var events: [GroupEvent] = []
        events.reserveCapacity(entries.count)
        var id = last - Int64(entries.count)
        for entry in entries {
            id += 1
            try insert.bind([.id(groupID), .integer(id), .text(entry.kind.rawValue), .id(entry.userID),
                             .text(entry.data.serializedString()), .integer(now),
                             entry.fix.map { .integer($0.deviceKey.storeValue) } ?? .null, entry.fix.map { .integer($0.timestamp) } ?? .null])
            try insert.run()
            events.append(GroupEvent(groupID: groupID, id: EventID(id), kind: entry.kind, userID: entry.userID, data: entry.data))
        }
        return events
    }

    /// Redacts the location events of device `deviceKey` whose fix is older than `before` (all
    /// of them when nil), inside the transaction that deletes those fixes.
    static func redactLocationEvents(deviceKey: Int64, before: Int64?, in db: Database) throws {
        if let before {
            try db.run("""
                UPDATE events SET type = 'redacted', data = '{}'
                WHERE device_key = ? AND fix_ts < ? AND type IN ('location', 'locations', 'place')
                """, [.integer(deviceKey), .integer(before)])
        } else {
            try db.run("UPDATE events SET type = 'redacted', data = '{}' WHERE device_key = ? AND type IN ('location', 'locations', 'place')",
                       [.integer(deviceKey)])
        }
    }

    public func events(groupID: GroupID, after: EventID, limit: Int) throws -> [GroupEvent] {
        try read { db in
            try db.rows("SELECT id, type, user_id, data FROM events WHERE group_id = ? AND id > ? ORDER BY id LIMIT ?",
                        [.id(groupID), .event(after), .int(limit)]) { row in
                GroupEvent(groupID: groupID, id: EventID(row.int64(0)), kind: GroupEvent.Kind(rawValue: row.string(1)) ?? .redacted,
                           userID: row.optionalID(2), data: (try? JSONParser.parse(Array(row.string(3).utf8))) ?? .null)
            }
        }
    }

    public func eventBounds(groupID: GroupID) throws -> (last: EventID, oldest: EventID?) {
        try read { db in try Self.eventBounds(groupID: groupID, in: db) }
    }

    static func eventBounds(groupID: GroupID, in db: Database) throws -> (last: EventID, oldest: EventID?) {
        let last = try db.firstRow("SELECT last_id FROM event_heads WHERE group_id = ?", [.id(groupID)]) { $0.int64(0) } ?? 0
        let oldest = try db.firstRow("SELECT min(id) FROM events WHERE group_id = ?", [.id(groupID)]) { $0.optionalInt64(0) } ?? nil
        return (EventID(last), oldest.map { EventID($0) })
    }

    public func feedSnapshot(groupID: GroupID, readerID: UserID) throws -> FeedSnapshot? {
        try read { db in
            guard try db.firstRow("SELECT 1 FROM memberships WHERE group_id = ? AND user_id = ?",
                                  [.id(groupID), .id(readerID)], { _ in true }) == true else { return nil }
            let rows = try db.rows("""
                SELECT m.user_id, m.device_id, m.share_location, p.start_ts, p.end_ts FROM memberships m
                LEFT JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id AND p.device_id = m.device_id
                WHERE m.group_id = ?
                """, [.id(groupID)]) {
                GroupVisibility.MembershipRow(userID: $0.id(0), deviceID: $0.id(1), shares: $0.bool(2),
                                              start: $0.optionalInt64(3), end: $0.optionalInt64(4))
            }
            let bounds = try Self.eventBounds(groupID: groupID, in: db)
            return FeedSnapshot(visibility: GroupVisibility(rows: rows), lastEventID: bounds.last, oldestEventID: bounds.oldest)
        }
    }

    public func pruneEvents(before: Int64) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await write { db in
                try db.run("""
                    DELETE FROM events WHERE (group_id, id) IN
                      (SELECT group_id, id FROM events WHERE created_at < ? ORDER BY created_at LIMIT 5000)
                    """, [.integer(before)])
            }
            total += deleted
            if deleted < 5000 { return total }
        }
    }
}
