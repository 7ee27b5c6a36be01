import EventJSON
import Tracking

/// The OwnTracks friends reply's transitions (API.md "Notifications", OwnTracks): the `place`
/// events of the asking device's groups since its previous post, each handed out once — a
/// durable cursor per device and group (`consumer_cursors`, consumer `owntracks:<device id>`),
/// moved in the transaction that reads them. Written once for both stores.
public enum FriendTransitionTables {
    public static func consumer(_ deviceID: DeviceID) -> String { "owntracks:" + deviceID.rawValue }

    /// The events, oldest first, with only what the group may be served (`GroupVisibility`).
    /// A device's first call sets its cursors at the logs' heads and gets nothing.
    public static func take(forDevice deviceID: DeviceID, since: Int64, limit: Int, on db: some SQLExecutor) throws -> [GroupEvent] {
        let consumer = SQLParameter.text(consumer(deviceID))
        let groups = try db.rows("SELECT group_id FROM memberships WHERE device_id = ?", [.text(deviceID.rawValue)]) { GroupID(try $0.text(0)) }
        var taken: [GroupEvent] = []
        for groupID in groups {
            let group = SQLParameter.text(groupID.rawValue)
            let head = try db.firstRow("SELECT last_id FROM event_heads WHERE group_id = ?", [group]) { try $0.int64(0) } ?? 0
            let created = try db.run("""
                INSERT INTO consumer_cursors (consumer, group_id, last_id) VALUES (?, ?, ?) ON CONFLICT (consumer, group_id) DO NOTHING
                """, [consumer, group, .integer(head)])
            if created > 0 { continue }
            let cursor = try db.firstRow("SELECT last_id FROM consumer_cursors WHERE consumer = ? AND group_id = ?" + db.dialect.lockForUpdate,
                                         [consumer, group]) { try $0.int64(0) } ?? head
            guard head > cursor else { continue }
            let events = try db.rows("""
                SELECT id, data FROM events
                WHERE group_id = ? AND id > ? AND id <= ? AND type = 'place' AND created_at >= ? ORDER BY id DESC LIMIT ?
                """, [group, .integer(cursor), .integer(head), .integer(since), .integer(Int64(max(1, limit)))]) { row in
                GroupEvent(groupID: groupID, id: EventID(try row.int64(0)), payload: EventJSON.payload(type: "place", text: try row.text(1)))
            }
            try db.run("UPDATE consumer_cursors SET last_id = ? WHERE consumer = ? AND group_id = ?", [.integer(head), consumer, group])
            guard !events.isEmpty else { continue }
            let visibility = try GroupVisibilityTables.visibility(groupID: groupID, on: db)
            taken += events.reversed().filter(visibility.serves)
        }
        return taken
    }
}

/// A group's `GroupVisibility` as the store holds it now: its memberships with their devices'
/// sharing periods (written once for both stores).
public enum GroupVisibilityTables {
    public static func visibility(groupID: GroupID, on db: some SQLExecutor) throws -> GroupVisibility {
        GroupVisibility(rows: try db.rows("""
            SELECT m.user_id, m.device_id, m.share_location, p.start_ts, p.end_ts FROM memberships m
            LEFT JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id AND p.device_id = m.device_id
            WHERE m.group_id = ?
            """, [.text(groupID.rawValue)]) { row in
            GroupVisibility.MembershipRow(userID: UserID(try row.text(0)), deviceID: DeviceID(try row.text(1)), shares: try row.bool(2),
                                          start: try row.optionalInt64(3), end: try row.optionalInt64(4))
        })
    }
}

extension SQLTransactions {
    public func takePlaceEvents(forDevice deviceID: DeviceID, since: Int64, limit: Int,
                                completion: @escaping @Sendable (Result<[GroupEvent], Error>) -> Void) {
        writeSQL({ try FriendTransitionTables.take(forDevice: deviceID, since: since, limit: limit, on: $0) }, completion: completion)
    }
}
