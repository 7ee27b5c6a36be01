/// Where channels, alerts and the durable delivery queue live (API.md "Notifications").
///
/// Contract, for every store:
/// - Writes return once durable; each runs in one transaction.
/// - `insertAlert` checks, in its transaction, that the owner is a member of the group, the
///   channel is the owner's, and the place (if any) is the group's; an alert goes with its
///   owner's membership, its channel, its place and its device (deleted with them).
/// - `matchAlerts` is the durable consumer of a group's log: in one transaction it reads the
///   consumer's cursor (locked against other nodes), the `place` events after it, the group's
///   alerts and names, inserts what `match` returns — each (channel, group, event) at most once,
///   whoever inserts it — and moves the cursor past every event read. A crash before its commit
///   leaves the cursor where it was, so the events are read again: at least once, never twice.
/// - `leaseDeliveries` hands each due delivery to one caller at a time (a lease that runs out
///   makes it due again, so a dead node's deliveries are taken over): the oldest pending
///   delivery of each channel, and behind it the channel's next ones while they are due, all in
///   event order (the caller sends them in that order and releases what it did not attempt).
/// - The matcher's and the sender's calls (`matchAlerts` … `pruneDeliveries`) block until their
///   transaction is durable: call them from a thread of the caller's own, never from Swift's
///   cooperative pool (they wait for the store's writer thread, not for a task).
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol NotificationStore: Sendable {
    /// Adds a channel; 409 `too_many_channels` past `limit` for its user.
    func insertChannel(_ channel: Channel, limit: Int) async throws
    /// The user's channels, oldest first.
    func channels(userID: UserID) throws -> [Channel]
    func channel(id: ChannelID) throws -> Channel?
    /// Writes `name`, `url`, `token`, `enabled`, `disabledReason`, `failingSince`; false when
    /// the channel is gone.
    func updateChannel(_ channel: Channel) async throws -> Bool
    /// Deletes the channel, its alerts and deliveries; false when it was not the user's.
    func deleteChannel(id: ChannelID, userID: UserID) async throws -> Bool

    /// Adds an alert (its `sinceEvent` set to the group's newest event id); throws 404 for a
    /// group, channel, place or device the owner may not use, 409 past `limit` per user and group.
    func insertAlert(_ alert: Alert, limit: Int) async throws -> Alert
    /// The user's alerts in the group, oldest first.
    func alerts(groupID: GroupID, userID: UserID) throws -> [Alert]
    func deleteAlert(id: AlertID, groupID: GroupID, userID: UserID) async throws -> Bool

    /// Runs the matcher over the group's log after `consumer`'s cursor (at most `limit`
    /// events read); returns true when the log goes on past what was read.
    func matchAlerts(groupID: GroupID, consumer: String, limit: Int,
                     _ match: @escaping @Sendable (AlertMatchInput) -> [NewDelivery]) throws -> Bool
    /// `matchAlerts` for several groups in one transaction (their cursors locked in group id
    /// order; a group whose cursor another node holds is skipped, `busy`).
    func matchAlerts(groupIDs: [GroupID], consumer: String, limit: Int,
                     _ match: @escaping @Sendable (AlertMatchInput) -> [NewDelivery]) throws -> AlertMatchProgress
    /// Groups that have alerts and events past `consumer`'s cursor.
    func groupsBehind(consumer: String) throws -> [GroupID]

    /// Leases, until `now + leaseMilliseconds`, the oldest pending delivery of up to `limit`
    /// channels (those whose `nextAttemptAt` ≤ `now` and whose lease ran out) and, behind each,
    /// up to `perChannel − 1` more of the channel's pending deliveries while they are due: the
    /// jobs of a channel together, in its event order.
    func leaseDeliveries(now: Int64, leaseMilliseconds: Int64, limit: Int, perChannel: Int) throws -> [DeliveryJob]
    /// Records an attempt's outcome (and the channel's failure state) and ends the lease.
    func recordAttempt(_ attempt: DeliveryAttempt) throws
    /// `recordAttempt` for several attempts in one transaction, which also ends the leases of
    /// `unattempted` (leased, not sent: due again at once, still in their channel's order).
    func recordAttempts(_ attempts: [DeliveryAttempt], releasing unattempted: [DeliveryID]) throws
    /// `recordAttempts(_:releasing:)`, then in the same transaction `leaseDeliveries`: a
    /// sender's next round leased as its last one is recorded, one transaction a round (the
    /// channels it just sent to, whose next deliveries are now their oldest, among the rest).
    func recordAttempts(_ attempts: [DeliveryAttempt], releasing unattempted: [DeliveryID], thenLeasing limit: Int,
                        now: Int64, leaseMilliseconds: Int64, perChannel: Int) throws -> [DeliveryJob]
    /// When the next lease can be had: the earliest due time of the oldest pending delivery of
    /// each channel, or its lease's end (nil when nothing is pending).
    func nextDueTime() throws -> Int64?
    /// The channel's deliveries, newest first, at most `limit`.
    func deliveries(channelID: ChannelID, limit: Int) throws -> [Delivery]
    /// Deletes finished deliveries older than `before` (ms) and past the newest `keep` of
    /// their channel; returns how many.
    func pruneDeliveries(before: Int64, keep: Int) throws -> Int
    /// Marks the channel's pending deliveries failed with `reason` (a channel turned off).
    func failPendingDeliveries(channelID: ChannelID, reason: String, at: Int64) async throws
}

/// What a pass of the matcher left to do.
public struct AlertMatchProgress: Sendable, Equatable {
    /// Groups whose log goes on past what was read.
    public var behind: Set<GroupID> = []
    /// Groups another node was matching (their cursor was held): to try again shortly.
    public var busy: Set<GroupID> = []
    public init() {}
}

extension NotificationStore {
    /// The oldest due delivery of up to `limit` channels, one each.
    public func leaseDeliveries(now: Int64, leaseMilliseconds: Int64, limit: Int) throws -> [DeliveryJob] {
        try leaseDeliveries(now: now, leaseMilliseconds: leaseMilliseconds, limit: limit, perChannel: 1)
    }

    /// `recordAttempts(_:releasing:)` with nothing to release.
    public func recordAttempts(_ attempts: [DeliveryAttempt]) throws {
        try recordAttempts(attempts, releasing: [])
    }
}
