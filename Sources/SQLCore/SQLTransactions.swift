import Dispatch
import Synchronization
import Timestamps
import Tracking

/// A store that runs `SQLCore`'s statements in its own transactions: with this, a store gets
/// every port written once in `SQLCore` by declaring its conformance (the notification tables:
/// `extension SQLiteBackend: NotificationStore {}`).
public protocol SQLTransactions: Sendable {
    /// Runs `body` in a read of one committed snapshot.
    func readSQL<T>(_ body: (any SQLExecutor) throws -> T) throws -> T
    /// Runs `body` in a write transaction; returns once it is durable.
    func writeSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T
    /// Runs `body` in a write transaction; `completion` gets the outcome once durable, on the
    /// store's writer thread (no task waits).
    func writeSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T,
                               completion: @escaping @Sendable (Result<T, Error>) -> Void)
    /// Runs `body` in a write transaction on the calling thread (a thread of the caller's own:
    /// it blocks) and returns once it is durable: for the notification queue's short
    /// transactions (the matcher's, the senders' leases and records). A store may run them
    /// beside its group commit rather than in it; by default they join it (`writeSQLWaiting`).
    func writeSQLAside<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) throws -> T
}

extension SQLTransactions {
    public func writeSQLAside<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) throws -> T {
        try writeSQLWaiting(body)
    }

    /// `writeSQL` waited for on the calling thread (a thread of the caller's own: it blocks).
    public func writeSQLWaiting<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, Error>?>(nil)
        writeSQL(body) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }
}

/// `NotificationStore` over `NotificationTables`.
extension SQLTransactions {
    public func insertChannel(_ channel: Channel, limit: Int) async throws {
        try await writeSQL { try NotificationTables.insertChannel(channel, limit: limit, on: $0) }
    }

    public func channels(userID: UserID) throws -> [Channel] {
        try readSQL { try NotificationTables.channels(userID: userID, on: $0) }
    }

    public func channel(id: ChannelID) throws -> Channel? {
        try readSQL { try NotificationTables.channel(id: id, on: $0) }
    }

    public func updateChannel(_ channel: Channel) async throws -> Bool {
        try await writeSQL { try NotificationTables.updateChannel(channel, on: $0) }
    }

    public func deleteChannel(id: ChannelID, userID: UserID) async throws -> Bool {
        try await writeSQL { try NotificationTables.deleteChannel(id: id, userID: userID, on: $0) }
    }

    public func insertAlert(_ alert: Alert, limit: Int) async throws -> Alert {
        try await writeSQL { try NotificationTables.insertAlert(alert, limit: limit, on: $0) }
    }

    public func alerts(groupID: GroupID, userID: UserID) throws -> [Alert] {
        try readSQL { try NotificationTables.alerts(groupID: groupID, userID: userID, on: $0) }
    }

    public func deleteAlert(id: AlertID, groupID: GroupID, userID: UserID) async throws -> Bool {
        try await writeSQL { try NotificationTables.deleteAlert(id: id, groupID: groupID, userID: userID, on: $0) }
    }

    public func matchAlerts(groupID: GroupID, consumer: String, limit: Int,
                            _ match: @escaping @Sendable (AlertMatchInput) -> [NewDelivery]) throws -> Bool {
        try writeSQLAside {
            try NotificationTables.matchAlerts(groupID: groupID, consumer: consumer, limit: limit, on: $0, match,
                                               now: Timestamp.nowMilliseconds()) == .more
        }
    }

    public func matchAlerts(groupIDs: [GroupID], consumer: String, limit: Int,
                            _ match: @escaping @Sendable (AlertMatchInput) -> [NewDelivery]) throws -> AlertMatchProgress {
        try writeSQLAside { db in
            try NotificationTables.matchAlerts(groupIDs: groupIDs, consumer: consumer, limit: limit, on: db, match, now: Timestamp.nowMilliseconds())
        }
    }

    public func groupsBehind(consumer: String) throws -> [GroupID] {
        try readSQL { try NotificationTables.groupsBehind(consumer: consumer, on: $0) }
    }

    public func leaseDeliveries(now: Int64, leaseMilliseconds: Int64, limit: Int, perChannel: Int) throws -> [DeliveryJob] {
        try writeSQLAside {
            try NotificationTables.leaseDeliveries(now: now, leaseMilliseconds: leaseMilliseconds, limit: limit, perChannel: perChannel, on: $0)
        }
    }

    public func recordAttempt(_ attempt: DeliveryAttempt) throws {
        try recordAttempts([attempt], releasing: [])
    }

    public func recordAttempts(_ attempts: [DeliveryAttempt], releasing unattempted: [DeliveryID]) throws {
        guard !attempts.isEmpty || !unattempted.isEmpty else { return }
        try writeSQLAside { db in
            try NotificationTables.recordAttempts(attempts, on: db)
            try NotificationTables.releaseDeliveries(unattempted, on: db)
        }
    }

    public func recordAttempts(_ attempts: [DeliveryAttempt], releasing unattempted: [DeliveryID], thenLeasing limit: Int,
                               now: Int64, leaseMilliseconds: Int64, perChannel: Int) throws -> [DeliveryJob] {
        try writeSQLAside { db in
            try NotificationTables.recordAttempts(attempts, on: db)
            try NotificationTables.releaseDeliveries(unattempted, on: db)
            return try NotificationTables.leaseDeliveries(now: now, leaseMilliseconds: leaseMilliseconds, limit: limit, perChannel: perChannel, on: db)
        }
    }

    public func nextDueTime() throws -> Int64? {
        try readSQL { try NotificationTables.nextDueTime(on: $0) }
    }

    public func deliveries(channelID: ChannelID, limit: Int) throws -> [Delivery] {
        try readSQL { try NotificationTables.deliveries(channelID: channelID, limit: limit, on: $0) }
    }

    public func pruneDeliveries(before: Int64, keep: Int) throws -> Int {
        try writeSQLAside { try NotificationTables.pruneDeliveries(before: before, keep: keep, on: $0) }
    }

    public func failPendingDeliveries(channelID: ChannelID, reason: String, at: Int64) async throws {
        try await writeSQL { try NotificationTables.failPendingDeliveries(channelID: channelID, reason: reason, at: at, on: $0) }
    }
}
