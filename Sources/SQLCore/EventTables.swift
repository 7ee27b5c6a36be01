import EventJSON
import Tracking

/// A group's event log (`events`, `event_heads`): the reads, redactions and pruning, written once
/// for both stores; each runs inside the caller's transaction on `db`. Appending stays with each
/// store (its own hot path: SQLite's one prepared insert per event in the writer's commit,
/// PostgreSQL's one statement with `unnest` and `NOTIFY`).
public enum EventTables {
    /// The log's entries of group `groupID` after `after`, oldest first, at most `limit`. A row
    /// whose type this release does not know, or whose data does not hold what its type needs,
    /// reads as redacted (`EventJSON.payload`).
    public static func events(groupID: GroupID, after: EventID, limit: Int, on db: some SQLExecutor) throws -> [GroupEvent] {
        try db.rows("SELECT id, type, data FROM events WHERE group_id = ? AND id > ? ORDER BY id LIMIT ?",
                    [.id(groupID), .integer(after.rawValue), .int(max(0, limit))]) { row in
            GroupEvent(groupID: groupID, id: EventID(try row.int64(0)), payload: EventJSON.payload(type: try row.text(1), text: try row.text(2)))
        }
    }

    /// The text the log stores for `entry`, an event of group `groupID` (`EventJSON`: the feed's
    /// `data`, so the stores need not know the encoding).
    public static func storedText(_ entry: EventLogEntry, groupID: GroupID) -> String {
        EventJSON.data(entry.payload, groupID: groupID).serializedString()
    }

    /// The group's last id handed out (0 before its first event) and its oldest kept event (nil
    /// when none is kept), in one statement.
    public static func eventBounds(groupID: GroupID, on db: some SQLExecutor) throws -> (last: EventID, oldest: EventID?) {
        let group = SQLParameter.id(groupID)
        let bounds = try db.firstRow("""
            SELECT (SELECT last_id FROM event_heads WHERE group_id = ?), (SELECT min(id) FROM events WHERE group_id = ?)
            """, [group, group]) { (last: try $0.optionalInt64(0), oldest: try $0.optionalInt64(1)) }
        return (EventID(bounds?.last ?? 0), bounds?.oldest.map { EventID($0) })
    }

    /// What a reader's live feed starts from: the group's visibility with its log's bounds, in
    /// one snapshot; nil when `readerID` is not a member.
    public static func feedSnapshot(groupID: GroupID, readerID: UserID, on db: some SQLExecutor) throws -> FeedSnapshot? {
        guard try db.firstRow("SELECT 1 FROM memberships WHERE group_id = ? AND user_id = ?",
                              [.id(groupID), .id(readerID)], { _ in true }) == true else { return nil }
        let visibility = try GroupVisibilityTables.visibility(groupID: groupID, on: db)
        let bounds = try eventBounds(groupID: groupID, on: db)
        return FeedSnapshot(visibility: visibility, lastEventID: bounds.last, oldestEventID: bounds.oldest)
    }

    /// Redacts the location events of device `deviceKey` whose fix is older than `before` (all
    /// of them when nil): run inside the transaction that deletes those fixes.
    public static func redactLocationEvents(deviceKey: Int64, before: Int64?, on db: some SQLExecutor) throws {
        let redact = "UPDATE events SET type = 'redacted', data = '{}' WHERE device_key = ? AND type IN ('location', 'locations', 'place')"
        if let before {
            try db.run(redact + " AND fix_ts < ?", [.integer(deviceKey), .integer(before)])
        } else {
            try db.run(redact, [.integer(deviceKey)])
        }
    }

    /// How many events one pruning transaction deletes at the most (short transactions beside ingest).
    public static let pruneBatchSize = 5000

    /// Deletes up to `pruneBatchSize` of the oldest events created before `before` (ms); returns how many.
    public static func deleteOldEvents(before: Int64, on db: some SQLExecutor) throws -> Int {
        try db.run("""
            DELETE FROM events WHERE (group_id, id) IN
              (SELECT group_id, id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?)
            """, [.integer(before), .int(pruneBatchSize)])
    }
}

/// The parts of `EventLog` that both stores run in the same transactions.
extension SQLTransactions {
    public func feedSnapshot(groupID: GroupID, readerID: UserID) throws -> FeedSnapshot? {
        try readSQL { try EventTables.feedSnapshot(groupID: groupID, readerID: readerID, on: $0) }
    }

    /// Deletes events created before `before` (ms) a batch per transaction; returns how many.
    public func pruneEvents(before: Int64) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await writeSQL { try EventTables.deleteOldEvents(before: before, on: $0) }
            total += deleted
            if deleted < EventTables.pruneBatchSize { return total }
        }
    }
}

/// The one-statement reads of `EventLog`, outside a snapshot.
extension SQLStatementReads {
    public func events(groupID: GroupID, after: EventID, limit: Int) throws -> [GroupEvent] {
        try readSQLStatement { try EventTables.events(groupID: groupID, after: after, limit: limit, on: $0) }
    }

    public func eventBounds(groupID: GroupID) throws -> (last: EventID, oldest: EventID?) {
        try readSQLStatement { try EventTables.eventBounds(groupID: groupID, on: $0) }
    }
}
