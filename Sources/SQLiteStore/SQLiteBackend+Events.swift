import SQLCore
import Storage
import Timestamps
import Tracking

/// The event log: appends here (the writer's hot path); the rest is `SQLCore.EventTables`,
/// written once for both stores (through `SQLTransactions` and `SQLStatementReads`).
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
                             .text(EventTables.storedText(entry, groupID: groupID)), .integer(now),
                             entry.fix.map { .integer($0.deviceKey.storeValue) } ?? .null, entry.fix.map { .integer($0.timestamp) } ?? .null])
            try insert.run()
            events.append(GroupEvent(groupID: groupID, id: EventID(id), payload: entry.payload))
        }
        return events
    }

    /// `EventTables.redactLocationEvents` inside the writer's transaction on `db`.
    static func redactLocationEvents(deviceKey: Int64, before: Int64?, in db: Database) throws {
        try EventTables.redactLocationEvents(deviceKey: deviceKey, before: before, on: SQLiteExecutor(db: db))
    }
}
