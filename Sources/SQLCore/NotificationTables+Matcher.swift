import EventJSON
import Tracking

/// The matcher, a durable consumer of the groups' logs (`NotificationStore.matchAlerts`), in the
/// caller's transaction. A transaction over many groups costs a fixed number of statements, not
/// a few per group: on PostgreSQL every statement is a round trip, and under load the matcher's
/// transactions were mostly those round trips (about seven a group, 16 groups a transaction).
///
/// Statements of a transaction: lock the cursors, read the logs' heads, read the `place` events
/// of every group in range, the enabled alerts of the groups with events, the names the messages
/// quote (groups, devices, members), insert the deliveries, move the cursors. Lists are padded to
/// a power of two in length (`InList`), so PostgreSQL prepares a few shapes of each.
extension NotificationTables {
    /// See `NotificationStore.matchAlerts`. Returns whether the log goes on past what was read,
    /// or that another node holds the group's cursor now (`busy`: it is matching the group).
    public static func matchAlerts(groupID: GroupID, consumer: String, limit: Int, on db: some SQLExecutor,
                                   _ match: (AlertMatchInput) -> [NewDelivery], now: Int64) throws -> AlertMatchStep {
        let progress = try matchAlerts(groupIDs: [groupID], consumer: consumer, limit: limit, on: db, match, now: now)
        return progress.busy.contains(groupID) ? .busy : progress.behind.contains(groupID) ? .more : .done
    }

    /// A group's part of the log a transaction reads: event ids in `(after, through]`.
    struct LogRange {
        let groupID: GroupID
        let after: Int64
        let through: Int64
    }

    /// The matcher over several groups in the caller's transaction: each group's `place` events
    /// after its cursor (at most `limit` ids a group) matched to its alerts of enabled channels,
    /// the deliveries `match` makes of them inserted, its cursor moved past what was read.
    /// Groups are taken `groupsPerPart` at a time, in group id order, so that every statement's
    /// list stays within both databases' limits on parameters however many groups are asked for.
    public static func matchAlerts(groupIDs: [GroupID], consumer: String, limit: Int, on db: some SQLExecutor,
                                   _ match: (AlertMatchInput) -> [NewDelivery], now: Int64) throws -> AlertMatchProgress {
        let groups = Set(groupIDs).sorted()
        var progress = AlertMatchProgress()
        var start = 0
        while start < groups.count {
            let part = try matchPart(Array(groups[start..<min(groups.count, start + groupsPerPart)]), consumer: consumer, limit: limit,
                                     on: db, match, now: now)
            start += groupsPerPart
            progress.behind.formUnion(part.behind)
            progress.busy.formUnion(part.busy)
        }
        return progress
    }

    /// Groups one part of a matching transaction covers at most (see `matchAlerts`).
    static let groupsPerPart = 64

    /// `matchAlerts` for at most `groupsPerPart` groups.
    private static func matchPart(_ groupIDs: [GroupID], consumer: String, limit: Int, on db: some SQLExecutor,
                                  _ match: (AlertMatchInput) -> [NewDelivery], now: Int64) throws -> AlertMatchProgress {
        var progress = AlertMatchProgress()
        let name = SQLParameter.text(consumer)
        let cursors = try lockCursors(groupIDs: Set(groupIDs), consumer: name, on: db)
        progress.busy = cursors.busy
        let heads = try logHeads(groupIDs: Array(cursors.locked.keys), on: db)
        var ranges: [LogRange] = []
        for (groupID, cursor) in cursors.locked.sorted(by: { $0.key < $1.key }) {
            let head = heads[groupID] ?? 0
            guard head > cursor else { continue }
            let (upper, overflow) = cursor.addingReportingOverflow(Int64(max(1, limit)))
            let through = overflow ? head : min(head, upper)
            ranges.append(LogRange(groupID: groupID, after: cursor, through: through))
            if through < head { progress.behind.insert(groupID) }
        }
        guard !ranges.isEmpty else { return progress }
        let events = try placeEvents(in: ranges, on: db)
        let alerts = try enabledAlerts(groupIDs: ranges.map(\.groupID).filter { events[$0] != nil }, on: db)
        let matched = ranges.compactMap { range -> (GroupID, [GroupEvent], [Alert])? in
            guard let groupEvents = events[range.groupID], let groupAlerts = alerts[range.groupID] else { return nil }
            return (range.groupID, groupEvents, groupAlerts)
        }
        if !matched.isEmpty {
            let names = try MessageNames.read(groupIDs: matched.map(\.0), events: matched.flatMap(\.1), on: db)
            var deliveries: [(GroupID, NewDelivery)] = []
            for (groupID, groupEvents, groupAlerts) in matched {
                let input = AlertMatchInput(groupID: groupID, groupName: names.groups[groupID] ?? "", events: groupEvents, alerts: groupAlerts,
                                            deviceNames: names.devices, displayNames: names.members)
                deliveries += match(input).map { (groupID, $0) }
            }
            try insertDeliveries(deliveries, now: now, on: db)
        }
        try moveCursors(ranges, consumer: name, on: db)
        return progress
    }

    /// The `place` events of the ranges (at most `groupsPerPart`, well within the 500 parts
    /// SQLite allows a compound select), by group, oldest first, in one statement; empty ranges
    /// (no event is in `(0, 0]`) pad the list.
    static func placeEvents(in ranges: [LogRange], on db: some SQLExecutor) throws -> [GroupID: [GroupEvent]] {
        guard let last = ranges.last else { return [:] }
        let padded = InList.padded(ranges, with: LogRange(groupID: last.groupID, after: 0, through: 0))
        let sql = Array(repeating: "SELECT group_id, id, data FROM events WHERE group_id = ? AND id > ? AND id <= ? AND type = 'place'",
                        count: padded.count).joined(separator: " UNION ALL ")
        var events: [GroupID: [GroupEvent]] = [:]
        try db.forEachRow(sql, padded.flatMap { [.text($0.groupID.rawValue), .integer($0.after), .integer($0.through)] }) { row in
            let groupID = GroupID(try row.text(0))
            events[groupID, default: []].append(GroupEvent(groupID: groupID, id: EventID(try row.int64(1)),
                                                           payload: EventJSON.payload(type: "place", text: try row.text(2))))
        }
        return events.mapValues { $0.sorted { $0.id.rawValue < $1.id.rawValue } }
    }

    /// The alerts of enabled channels of the groups, by group.
    static func enabledAlerts(groupIDs: [GroupID], on db: some SQLExecutor) throws -> [GroupID: [Alert]] {
        guard !groupIDs.isEmpty else { return [:] }
        let list = InList(groupIDs.map { .text($0.rawValue) })
        let alerts = try db.rows("""
            SELECT \(alertColumnsOfA)
            FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.group_id IN (\(list.sql)) AND c.enabled = ?
            ORDER BY a.group_id, a.created_at, a.id
            """, list.parameters + [.bool(true)], alert)
        return Dictionary(grouping: alerts, by: \.groupID)
    }

    /// The names a transaction's messages quote: its groups', and the devices' and members' its
    /// events are about (a name of a row deleted since is missing).
    struct MessageNames {
        let groups: [GroupID: String]
        let devices: [DeviceID: String]
        let members: [UserID: String]

        static func read(groupIDs: [GroupID], events: [GroupEvent], on db: some SQLExecutor) throws -> MessageNames {
            MessageNames(groups: try names("groups", "name", ids: groupIDs.map(\.rawValue), as: GroupID.init, on: db),
                         devices: try names("devices", "name", ids: Set(events.compactMap { $0.payload.deviceID?.rawValue }).sorted(),
                                            as: DeviceID.init, on: db),
                         members: try names("users", "display_name", ids: Set(events.compactMap { $0.userID?.rawValue }).sorted(),
                                            as: UserID.init, on: db))
        }

        /// `column` of the table's rows with those ids, by id.
        private static func names<ID: Hashable>(_ table: String, _ column: String, ids: [String], as id: (String) -> ID,
                                                on db: some SQLExecutor) throws -> [ID: String] {
            guard !ids.isEmpty else { return [:] }
            let list = InList(ids.map { .text($0) })
            let rows = try db.rows("SELECT id, \(column) FROM \(table) WHERE id IN (\(list.sql))", list.parameters) {
                (id(try $0.text(0)), try $0.text(1))
            }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
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

    /// Inserts the deliveries in order (a channel's are sent in `seq` order), a delivery already
    /// made for its channel, group and event skipped; in statements of a power of two of rows,
    /// at most `deliveriesPerStatement`.
    static func insertDeliveries(_ deliveries: [(GroupID, NewDelivery)], now: Int64, on db: some SQLExecutor) throws {
        var start = 0
        while start < deliveries.count {
            var rows = deliveriesPerStatement
            while rows > deliveries.count - start { rows /= 2 }
            let part = deliveries[start..<start + rows]
            start += rows
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)", count: rows).joined(separator: ", ")
            try db.run("""
                INSERT INTO deliveries (id, channel_id, group_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
                VALUES \(values) ON CONFLICT (channel_id, group_id, event_id) DO NOTHING
                """, part.flatMap { groupID, delivery -> [SQLParameter] in
                    [.text(delivery.id.rawValue), .text(delivery.channelID.rawValue), .text(groupID.rawValue), .integer(delivery.eventID.rawValue),
                     .text(delivery.eventType), .text(delivery.payload), .integer(now), .integer(now)]
                })
        }
    }

    /// Rows of deliveries one statement inserts at most (8 parameters a row).
    static let deliveriesPerStatement = 256

    /// Moves each range's group's cursor to the range's end, in one statement.
    static func moveCursors(_ ranges: [LogRange], consumer name: SQLParameter, on db: some SQLExecutor) throws {
        let part = InList.padded(ranges)
        let cases = Array(repeating: "WHEN ? THEN CAST(? AS BIGINT)", count: part.count).joined(separator: " ")
        let list = InList(ranges.map { .text($0.groupID.rawValue) })
        try db.run("UPDATE consumer_cursors SET last_id = CASE group_id \(cases) ELSE last_id END WHERE consumer = ? AND group_id IN (\(list.sql))",
                   part.flatMap { [.text($0.groupID.rawValue), .integer($0.through)] } + [name] + list.parameters)
    }
}
