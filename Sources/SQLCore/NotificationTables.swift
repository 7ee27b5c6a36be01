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
