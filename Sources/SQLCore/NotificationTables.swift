import EventJSON
import JSONCore
import Timestamps
import Tracking

/// The notification tables' statements, written once for both stores (`NotificationStore`'s
/// contract): each function runs inside the caller's transaction on `db`.
///
/// Tables (each store's schema makes them): `channels`, `alerts` (deleted with their membership,
/// channel, place and device), `deliveries` (the durable queue and its log; one row per
/// channel, group and event), `consumer_cursors` (how far each durable consumer read each
/// group's log).
/// What one step of the matcher did with a group.
public enum AlertMatchStep: Sendable {
    /// The group's log is read to its end.
    case done
    /// More of the log is left to read.
    case more
    /// Another node holds the group's cursor (it is matching the group now).
    case busy
}

public enum NotificationTables {
    static let channelColumns = "id, user_id, name, type, url, token, secret, enabled, disabled_reason, failing_since, created_at"

    static func channel(_ row: any SQLRow) throws -> Channel {
        Channel(id: ChannelID(try row.text(0)), userID: UserID(try row.text(1)), name: try row.text(2),
                type: ChannelType(rawValue: try row.text(3)) ?? .webhook, url: try row.text(4), token: try row.optionalText(5),
                secret: try row.optionalText(6), enabled: try row.bool(7), disabledReason: try row.optionalText(8),
                failingSince: try row.optionalInt64(9), createdAt: Timestamp(millisecondsSince1970: try row.int64(10)))
    }

    // MARK: Channels

    public static func insertChannel(_ channel: Channel, limit: Int, on db: some SQLExecutor) throws {
        let count = try db.firstRow("SELECT count(*) FROM channels WHERE user_id = ?", [.text(channel.userID.rawValue)]) { try $0.int(0) } ?? 0
        guard count < limit else {
            throw TrackingError.conflict("a user may have at most \(limit) notification channels", code: .tooManyChannels)
        }
        try db.run("""
            INSERT INTO channels (\(channelColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(channel.id.rawValue), .text(channel.userID.rawValue), .text(channel.name), .text(channel.type.rawValue),
                   .text(channel.url), .optional(channel.token), .optional(channel.secret), .bool(channel.enabled),
                   .optional(channel.disabledReason), .optional(channel.failingSince), .integer(channel.createdAt.millisecondsSince1970)])
    }

    public static func channels(userID: UserID, on db: some SQLExecutor) throws -> [Channel] {
        try db.rows("SELECT \(channelColumns) FROM channels WHERE user_id = ? ORDER BY created_at, id",
                    [.text(userID.rawValue)], channel)
    }

    public static func channel(id: ChannelID, on db: some SQLExecutor) throws -> Channel? {
        try db.firstRow("SELECT \(channelColumns) FROM channels WHERE id = ?", [.text(id.rawValue)], channel)
    }

    public static func updateChannel(_ channel: Channel, on db: some SQLExecutor) throws -> Bool {
        try db.run("""
            UPDATE channels SET name = ?, url = ?, token = ?, enabled = ?, disabled_reason = ?, failing_since = ? WHERE id = ?
            """, [.text(channel.name), .text(channel.url), .optional(channel.token), .bool(channel.enabled),
                   .optional(channel.disabledReason), .optional(channel.failingSince), .text(channel.id.rawValue)]) > 0
    }

    public static func deleteChannel(id: ChannelID, userID: UserID, on db: some SQLExecutor) throws -> Bool {
        try db.run("DELETE FROM channels WHERE id = ? AND user_id = ?", [.text(id.rawValue), .text(userID.rawValue)]) > 0
    }

    // MARK: Alerts

    static let alertColumns = "id, group_id, user_id, channel_id, place_id, device_id, events, since_event, created_at"
    /// `alertColumns`, each as a column of `a` (the matcher's join).
    static let alertColumnsOfA = qualified(alertColumns, by: "a")

    static func alert(_ row: any SQLRow) throws -> Alert {
        let events = Set(try row.text(6).split(separator: ",").compactMap { PlaceCrossing(rawValue: String($0)) })
        return Alert(id: AlertID(try row.text(0)), groupID: GroupID(try row.text(1)), userID: UserID(try row.text(2)),
                     channelID: ChannelID(try row.text(3)), placeID: try row.optionalText(4).map(PlaceID.init),
                     deviceID: try row.optionalText(5).map(DeviceID.init), events: events, sinceEvent: EventID(try row.int64(7)),
                     createdAt: Timestamp(millisecondsSince1970: try row.int64(8)))
    }

    public static func insertAlert(_ alert: Alert, limit: Int, on db: some SQLExecutor) throws -> Alert {
        func exists(_ sql: String, _ parameters: [SQLParameter]) throws -> Bool {
            try db.firstRow(sql, parameters) { _ in true } ?? false
        }
        let group = SQLParameter.text(alert.groupID.rawValue), user = SQLParameter.text(alert.userID.rawValue)
        guard try exists("SELECT 1 FROM memberships WHERE group_id = ? AND user_id = ?", [group, user]) else {
            throw TrackingError.notFound("group")
        }
        guard try exists("SELECT 1 FROM channels WHERE id = ? AND user_id = ?", [.text(alert.channelID.rawValue), user]) else {
            throw TrackingError.notFound("channel")
        }
        if let place = alert.placeID, try !exists("SELECT 1 FROM places WHERE id = ? AND group_id = ?", [.text(place.rawValue), group]) {
            throw TrackingError.notFound("place")
        }
        if let device = alert.deviceID,
           try !exists("SELECT 1 FROM memberships WHERE group_id = ? AND device_id = ?", [group, .text(device.rawValue)]) {
            throw TrackingError.notFound("device")
        }
        let count = try db.firstRow("SELECT count(*) FROM alerts WHERE group_id = ? AND user_id = ?", [group, user]) { try $0.int(0) } ?? 0
        guard count < limit else {
            throw TrackingError.conflict("a member may have at most \(limit) alerts in a group", code: .tooManyAlerts)
        }
        let head = try db.firstRow("SELECT last_id FROM event_heads WHERE group_id = ?", [group]) { try $0.int64(0) } ?? 0
        let stored = Alert(id: alert.id, groupID: alert.groupID, userID: alert.userID, channelID: alert.channelID, placeID: alert.placeID,
                           deviceID: alert.deviceID, events: alert.events, sinceEvent: EventID(head), createdAt: alert.createdAt)
        try db.run("INSERT INTO alerts (\(alertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            .text(stored.id.rawValue), group, user, .text(stored.channelID.rawValue), .optional(stored.placeID?.rawValue),
            .optional(stored.deviceID?.rawValue), .text(stored.events.map(\.rawValue).sorted().joined(separator: ",")),
            .integer(head), .integer(stored.createdAt.millisecondsSince1970),
        ])
        return stored
    }

    public static func alerts(groupID: GroupID, userID: UserID, on db: some SQLExecutor) throws -> [Alert] {
        try db.rows("SELECT \(alertColumns) FROM alerts WHERE group_id = ? AND user_id = ? ORDER BY created_at, id",
                    [.text(groupID.rawValue), .text(userID.rawValue)], alert)
    }

    public static func deleteAlert(id: AlertID, groupID: GroupID, userID: UserID, on db: some SQLExecutor) throws -> Bool {
        try db.run("DELETE FROM alerts WHERE id = ? AND group_id = ? AND user_id = ?",
                   [.text(id.rawValue), .text(groupID.rawValue), .text(userID.rawValue)]) > 0
    }

    // MARK: The matcher (a durable consumer of the group's log)

    /// See `NotificationStore.matchAlerts`. Returns whether the log goes on past what was read,
    /// or that another node holds the group's cursor now (`busy`: it is matching the group).
    public static func matchAlerts(groupID: GroupID, consumer: String, limit: Int, on db: some SQLExecutor,
                                   _ match: (AlertMatchInput) -> [NewDelivery], now: Int64) throws -> AlertMatchStep {
        let progress = try matchAlerts(groupIDs: [groupID], consumer: consumer, limit: limit, on: db, match, now: now)
        return progress.busy.contains(groupID) ? .busy : progress.behind.contains(groupID) ? .more : .done
    }

    /// The matcher over several groups in the caller's transaction. The cursors are locked and
    /// the logs' heads read for all the groups at once (two statements), so that a group with
    /// nothing new — the usual case on a node that heard of events another node matched — costs
    /// no statement of its own.
    public static func matchAlerts(groupIDs: [GroupID], consumer: String, limit: Int, on db: some SQLExecutor,
                                   _ match: (AlertMatchInput) -> [NewDelivery], now: Int64) throws -> AlertMatchProgress {
        var progress = AlertMatchProgress()
        let name = SQLParameter.text(consumer)
        let cursors = try lockCursors(groupIDs: Set(groupIDs), consumer: name, on: db)
        progress.busy = cursors.busy
        let heads = try logHeads(groupIDs: Array(cursors.locked.keys), on: db)
        for (groupID, cursor) in cursors.locked.sorted(by: { $0.key < $1.key }) {
            let head = heads[groupID] ?? 0
            guard head > cursor else { continue }
            let (upper, overflow) = cursor.addingReportingOverflow(Int64(max(1, limit)))
            let through = overflow ? head : min(head, upper)
            try matchEvents(groupID: groupID, after: cursor, through: through, on: db, match, now: now)
            try db.run("UPDATE consumer_cursors SET last_id = ? WHERE consumer = ? AND group_id = ?",
                       [.integer(through), name, .text(groupID.rawValue)])
            if through < head { progress.behind.insert(groupID) }
        }
        return progress
    }

    /// Matches the group's `place` events in `(after, through]` to its alerts of enabled
    /// channels and inserts the deliveries `match` makes of them.
    static func matchEvents(groupID: GroupID, after cursor: Int64, through: Int64, on db: some SQLExecutor,
                            _ match: (AlertMatchInput) -> [NewDelivery], now: Int64) throws {
        let group = SQLParameter.text(groupID.rawValue)
        let events = try db.rows("""
            SELECT id, data FROM events WHERE group_id = ? AND id > ? AND id <= ? AND type = 'place' ORDER BY id
            """, [group, .integer(cursor), .integer(through)]) { row in
            GroupEvent(groupID: groupID, id: EventID(try row.int64(0)), payload: EventJSON.payload(type: "place", text: try row.text(1)))
        }
        guard !events.isEmpty else { return }
        let alerts = try db.rows("""
            SELECT \(alertColumnsOfA)
            FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.group_id = ? AND c.enabled = ?
            """, [group, .bool(true)], alert)
        guard !alerts.isEmpty else { return }
        try insertDeliveries(match(try input(groupID: groupID, events: events, alerts: alerts, on: db)), groupID: groupID, now: now, on: db)
    }

    /// The newest event id of each group's log (a group without events is missing).
    static func logHeads(groupIDs: [GroupID], on db: some SQLExecutor) throws -> [GroupID: Int64] {
        guard !groupIDs.isEmpty else { return [:] }
        let list = InList(groupIDs.map { .text($0.rawValue) })
        let rows = try db.rows("SELECT group_id, last_id FROM event_heads WHERE group_id IN (\(list.sql))", list.parameters) {
            (GroupID(try $0.text(0)), try $0.int64(1))
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// The consumer's cursors of the groups (event ids), locked until the transaction ends, in
    /// one statement; the groups whose cursor another transaction holds are `busy`. A group
    /// without a cursor yet gets one (`lockCursor`).
    static func lockCursors(groupIDs: Set<GroupID>, consumer name: SQLParameter,
                            on db: some SQLExecutor) throws -> (locked: [GroupID: Int64], busy: Set<GroupID>) {
        guard !groupIDs.isEmpty else { return ([:], []) }
        let ids = groupIDs.sorted(), list = InList(ids.map { .text($0.rawValue) })
        let rows = try db.rows("""
            SELECT group_id, last_id FROM consumer_cursors WHERE consumer = ? AND group_id IN (\(list.sql))
            """ + db.dialect.lockSkippingLocked(table: "consumer_cursors"), [name] + list.parameters) {
            (GroupID(try $0.text(0)), try $0.int64(1))
        }
        var locked = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        var busy: Set<GroupID> = []
        for group in ids where locked[group] == nil {
            if let cursor = try lockCursor(consumer: name, group: .text(group.rawValue), on: db) { locked[group] = cursor } else { busy.insert(group) }
        }
        return (locked, busy)
    }

    /// The consumer's cursor of the group (an event id), its row locked until the transaction
    /// ends; nil when another transaction holds it. The row is made the first time (at the
    /// group's oldest alert's `since_event`).
    ///
    /// Never waits for another node's transaction while the row exists: an
    /// `INSERT … ON CONFLICT DO NOTHING` on every call would wait for whichever transaction last
    /// updated the row to end (its conflict check cannot tell whether that one commits), so the
    /// matchers of every node, which all hear every event, queued behind each other's commits.
    static func lockCursor(consumer name: SQLParameter, group: SQLParameter, on db: some SQLExecutor) throws -> Int64? {
        let lock = "SELECT last_id FROM consumer_cursors WHERE consumer = ? AND group_id = ?" + db.dialect.lockSkippingLocked(table: "consumer_cursors")
        if let cursor = try db.firstRow(lock, [name, group], { try $0.int64(0) }) { return cursor }
        let exists = try db.firstRow("SELECT 1 FROM consumer_cursors WHERE consumer = ? AND group_id = ?", [name, group]) { _ in true } ?? false
        if exists { return nil }
        try db.run("""
            INSERT INTO consumer_cursors (consumer, group_id, last_id)
            VALUES (?, ?, coalesce((SELECT min(since_event) FROM alerts WHERE group_id = ?), 0))
            ON CONFLICT (consumer, group_id) DO NOTHING
            """, [name, group, group])
        return try db.firstRow(lock, [name, group]) { try $0.int64(0) }
    }

    static func input(groupID: GroupID, events: [GroupEvent], alerts: [Alert], on db: some SQLExecutor) throws -> AlertMatchInput {
        let groupName = try db.firstRow("SELECT name FROM groups WHERE id = ?", [.text(groupID.rawValue)]) { try $0.text(0) } ?? ""
        var deviceNames: [DeviceID: String] = [:], displayNames: [UserID: String] = [:]
        for event in events {
            if let device = event.payload.deviceID, deviceNames[device] == nil {
                deviceNames[device] = try db.firstRow("SELECT name FROM devices WHERE id = ?", [.text(device.rawValue)]) { try $0.text(0) }
            }
            if let user = event.userID, displayNames[user] == nil {
                displayNames[user] = try db.firstRow("SELECT display_name FROM users WHERE id = ?", [.text(user.rawValue)]) { try $0.text(0) }
            }
        }
        return AlertMatchInput(groupID: groupID, groupName: groupName, events: events, alerts: alerts, deviceNames: deviceNames,
                               displayNames: displayNames)
    }

    static func insertDeliveries(_ deliveries: [NewDelivery], groupID: GroupID, now: Int64, on db: some SQLExecutor) throws {
        let sql = """
            INSERT INTO deliveries (id, channel_id, group_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (channel_id, group_id, event_id) DO NOTHING
            """
        for delivery in deliveries {
            try db.run(sql, [.text(delivery.id.rawValue), .text(delivery.channelID.rawValue), .text(groupID.rawValue),
                             .integer(delivery.eventID.rawValue), .text(delivery.eventType), .text(delivery.payload), .integer(now), .integer(now)])
        }
    }

    public static func groupsBehind(consumer: String, on db: some SQLExecutor) throws -> [GroupID] {
        try db.rows("""
            SELECT DISTINCT a.group_id FROM alerts a JOIN event_heads h ON h.group_id = a.group_id
            LEFT JOIN consumer_cursors c ON c.consumer = ? AND c.group_id = a.group_id
            WHERE h.last_id > coalesce(c.last_id, a.since_event)
            """, [.text(consumer)]) { GroupID(try $0.text(0)) }
    }
}

extension NotificationTables {
    /// `columns` (`a, b, …`) with each name prefixed by `alias.`, for a join.
    static func qualified(_ columns: String, by alias: String) -> String {
        columns.split(separator: ",").map { alias + "." + $0.trimmingPrefix(while: { $0 == " " }) }.joined(separator: ", ")
    }
}
