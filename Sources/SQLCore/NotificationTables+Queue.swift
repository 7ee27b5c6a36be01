import JSONCore
import Timestamps
import Tracking

/// The deliveries queue's statements (the sender's side of `NotificationStore`): leases, followers,
/// releases and recorded attempts, each in the caller's transaction.
extension NotificationTables {
    // MARK: The sender's queue

    static let deliveryColumns = """
        seq, id, channel_id, group_id, event_id, event_type, payload, status, attempts, next_attempt_at, last_attempt_at, \
        http_status, error, created_at
        """

    /// `deliveryColumns`, each as a column of `d` (the lease's join).
    static let deliveryColumnsOfD = qualified(deliveryColumns, by: "d")

    /// Joins each channel's head — its oldest pending delivery, the only one that may be due — to `d`.
    static let channelHeads = "JOIN (SELECT channel_id, min(seq) AS head FROM deliveries WHERE status = 'pending' GROUP BY channel_id) h ON d.seq = h.head"


    static func delivery(_ row: any SQLRow) throws -> Delivery {
        Delivery(id: DeliveryID(try row.text(1)), sequence: try row.int64(0), channelID: ChannelID(try row.text(2)),
                 groupID: GroupID(try row.text(3)), eventID: EventID(try row.int64(4)), eventType: try row.text(5), payload: try row.text(6),
                 status: DeliveryStatus(rawValue: try row.text(7)) ?? .failed, attempts: try row.int(8), nextAttemptAt: try row.int64(9),
                 lastAttemptAt: try row.optionalInt64(10), httpStatus: try row.optionalInt64(11).map { Int(truncatingIfNeeded: $0) },
                 error: try row.optionalText(12), createdAt: try row.int64(13))
    }

    public static func leaseDeliveries(now: Int64, leaseMilliseconds: Int64, limit: Int, perChannel: Int,
                                       on db: some SQLExecutor) throws -> [DeliveryJob] {
        let d = db.dialect
        let heads = try db.rows("""
            SELECT \(deliveryColumnsOfD) FROM deliveries d
            \(channelHeads)
            WHERE d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
            ORDER BY d.seq LIMIT ?
            """ + d.lockSkippingLocked(table: "d"), [.integer(now), .integer(now), .integer(Int64(limit))], delivery)
        guard !heads.isEmpty else { return [] }
        let channels = try channels(ids: Set(heads.map(\.channelID)), on: db)
        let followers = perChannel > 1 ? try followers(of: heads, count: perChannel - 1, on: db) : [:]
        var jobs: [DeliveryJob] = []
        for head in heads {
            guard let channel = channels[head.channelID] else { continue }
            let run = [head] + (followers[head.channelID] ?? []).prefix { $0.nextAttemptAt <= now }
            jobs += run.map { DeliveryJob(delivery: $0, channel: channel) }
        }
        if !jobs.isEmpty {
            let list = InList(jobs.map { .integer($0.delivery.sequence) })
            try db.run("UPDATE deliveries SET lease_until = ? WHERE seq IN (\(list.sql))", [.integer(now + leaseMilliseconds)] + list.parameters)
        }
        return jobs
    }

    /// The channels of `ids` that exist, by id: one statement.
    static func channels(ids: Set<ChannelID>, on db: some SQLExecutor) throws -> [ChannelID: Channel] {
        guard !ids.isEmpty else { return [:] }
        let list = InList(ids.map { .text($0.rawValue) })
        let found = try db.rows("SELECT \(channelColumns) FROM channels WHERE id IN (\(list.sql))", list.parameters, channel)
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Behind each leased head, up to `count` of its channel's next pending deliveries in seq
    /// order, by channel: one statement for all heads (a `UNION ALL` of one index range each).
    /// Only reachable through their head, whose lease they share, so no one else takes them.
    static func followers(of heads: [Delivery], count: Int, on db: some SQLExecutor) throws -> [ChannelID: [Delivery]] {
        let one = "SELECT * FROM (SELECT \(deliveryColumns) FROM deliveries WHERE channel_id = ? AND status = 'pending' AND seq > ? ORDER BY seq LIMIT ?) f"
        let sql = heads.indices.map { "\(one)\($0)" }.joined(separator: " UNION ALL ")
        let parameters = heads.flatMap { head -> [SQLParameter] in
            [.text(head.channelID.rawValue), .integer(head.sequence), .integer(Int64(count))]
        }
        var byChannel: [ChannelID: [Delivery]] = [:]
        for follower in try db.rows(sql, parameters, delivery).sorted(by: { $0.sequence < $1.sequence }) {
            byChannel[follower.channelID, default: []].append(follower)
        }
        return byChannel
    }

    /// Ends the leases of deliveries leased and not attempted (they are due again at once).
    public static func releaseDeliveries(_ ids: [DeliveryID], on db: some SQLExecutor) throws {
        guard !ids.isEmpty else { return }
        let list = InList(ids.map { .text($0.rawValue) })
        try db.run("UPDATE deliveries SET lease_until = NULL WHERE status = 'pending' AND id IN (\(list.sql))", list.parameters)
    }

    /// Records the attempts' outcomes and ends their leases, in a fixed number of statements
    /// however many there are (one for the deliveries; one for the channels that delivered
    /// everything, whose `failing_since` is cleared only where set), then, in order, the
    /// channel state of each attempt of a channel that had a failure (rare: each its own).
    public static func recordAttempts(_ attempts: [DeliveryAttempt], on db: some SQLExecutor) throws {
        guard !attempts.isEmpty else { return }
        try updateDeliveries(attempts, on: db)
        let failing = Set(attempts.lazy.filter { $0.outcome != .delivered }.map(\.channelID))
        let delivered = Set(attempts.map(\.channelID)).subtracting(failing)
        if !delivered.isEmpty {
            let list = InList(delivered.map { .text($0.rawValue) })
            try db.run("UPDATE channels SET failing_since = NULL WHERE failing_since IS NOT NULL AND id IN (\(list.sql))", list.parameters)
        }
        for attempt in attempts where failing.contains(attempt.channelID) { try recordChannelState(attempt, on: db) }
    }

    /// Each attempt's delivery row: its status, attempt count, next attempt (retries), HTTP
    /// status and error, its lease ended; one `UPDATE … FROM` a list of values.
    static func updateDeliveries(_ attempts: [DeliveryAttempt], on db: some SQLExecutor) throws {
        // Rows padded as `InList` pads (a repeated row updates its delivery to the same values);
        // the optional numbers bound as text, so that a null and a number bind as one type.
        let rows = InList.padded(attempts)
        let values = Array(repeating: "(?, ?, CAST(? AS bigint), ?, CAST(? AS bigint), ?)", count: rows.count).joined(separator: ", ")
        let parameters = rows.flatMap { attempt -> [SQLParameter] in
            let status: String, next: Int64?
            switch attempt.outcome {
            case .delivered: (status, next) = ("delivered", nil)
            case .retry(let at): (status, next) = ("pending", at)
            case .failed: (status, next) = ("failed", nil)
            }
            return [.text(attempt.deliveryID.rawValue), .text(status), .optional(next.map(String.init)), .integer(attempt.at),
                    .optional(attempt.httpStatus.map(String.init)), .optional(attempt.error)]
        }
        try db.run("""
            WITH v (id, status, next_attempt_at, at, http_status, error) AS (VALUES \(values))
            UPDATE deliveries SET status = v.status, attempts = deliveries.attempts + 1,
                next_attempt_at = coalesce(v.next_attempt_at, deliveries.next_attempt_at), last_attempt_at = v.at,
                http_status = v.http_status, error = v.error, lease_until = NULL
            FROM v WHERE deliveries.id = v.id
            """, parameters)
    }

    /// The channel's failure state after one attempt, and its turning off when the attempt says so.
    static func recordChannelState(_ attempt: DeliveryAttempt, on db: some SQLExecutor) throws {
        let channel = SQLParameter.text(attempt.channelID.rawValue)
        if case .delivered = attempt.outcome {
            try db.run("UPDATE channels SET failing_since = NULL WHERE id = ?", [channel])
        } else {
            try db.run("UPDATE channels SET failing_since = coalesce(failing_since, ?) WHERE id = ?", [.integer(attempt.at), channel])
        }
        if let reason = attempt.disableChannel {
            try db.run("UPDATE channels SET enabled = ?, disabled_reason = ? WHERE id = ?", [.bool(false), .text(reason), channel])
            try failPendingDeliveries(channelID: attempt.channelID, reason: "the channel was disabled: \(reason)", at: attempt.at, on: db)
        }
    }

    public static func nextDueTime(on db: some SQLExecutor) throws -> Int64? {
        // Only the oldest pending delivery of a channel can be due; a leased one is due when its
        // lease runs out.
        try db.firstRow("""
            SELECT min(CASE WHEN d.lease_until IS NOT NULL AND d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END)
            FROM deliveries d
            \(channelHeads)
            """, []) { try $0.optionalInt64(0) } ?? nil
    }

    public static func deliveries(channelID: ChannelID, limit: Int, on db: some SQLExecutor) throws -> [Delivery] {
        try db.rows("SELECT \(deliveryColumns) FROM deliveries WHERE channel_id = ? ORDER BY seq DESC LIMIT ?",
                    [.text(channelID.rawValue), .integer(Int64(limit))], delivery)
    }

    public static func pruneDeliveries(before: Int64, keep: Int, on db: some SQLExecutor) throws -> Int {
        var removed = try db.run("DELETE FROM deliveries WHERE status <> 'pending' AND created_at < ?", [.integer(before)])
        removed += try db.run("""
            DELETE FROM deliveries WHERE status <> 'pending' AND seq < (
                SELECT e.seq FROM deliveries e WHERE e.channel_id = deliveries.channel_id ORDER BY e.seq DESC LIMIT 1 OFFSET ?)
            """, [.integer(Int64(max(0, keep - 1)))])
        return removed
    }

    public static func failPendingDeliveries(channelID: ChannelID, reason: String, at: Int64, on db: some SQLExecutor) throws {
        try db.run("""
            UPDATE deliveries SET status = 'failed', error = ?, last_attempt_at = ?, lease_until = NULL WHERE channel_id = ? AND status = 'pending'
            """, [.text(reason), .integer(at), .text(channelID.rawValue)])
    }
}
