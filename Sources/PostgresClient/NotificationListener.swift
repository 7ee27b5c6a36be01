import CLibPQ

/// One `NOTIFY` received: the channel, its payload and the server process that sent it.
public struct PostgresNotification: Sendable, Hashable {
    public let channel: String
    public let payload: String
    /// `pg_backend_pid()` of the notifying session.
    public let senderPID: Int32

    public init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}

/// A session that `LISTEN`s on channels and waits for notifications on its socket; owns its
/// connection (which runs nothing else, so notifications are never held up by queries).
///
/// PostgreSQL delivers a notification when the notifying transaction commits, in commit
/// order, once per listening session (several NOTIFYs with the same channel and payload in
/// one transaction may be folded into one). Nothing is delivered to a session that was not
/// connected at the time: after `waitForNotifications` throws a lost connection, call
/// `reconnect()` and then read from the tables what changed meanwhile.
///
/// Not thread-safe, like `Connection`: one thread waits on a listener.
public final class NotificationListener {
    private let connection: Connection
    /// The channels listened on, to listen again after `reconnect()`.
    public private(set) var channels: Set<String> = []

    public init(_ connectionString: String) throws(PostgresError) {
        connection = try Connection(connectionString)
    }

    /// The listening session's server process.
    public var backendPID: Int32 { connection.backendPID }
    public var status: Connection.Status { connection.status }

    /// `LISTEN channel` (the channel name is quoted: case and spaces are kept).
    public func listen(_ channel: String) throws(PostgresError) {
        try connection.execute("LISTEN \(SQLIdentifier.quoted(channel))")
        channels.insert(channel)
    }

    public func unlisten(_ channel: String) throws(PostgresError) {
        try connection.execute("UNLISTEN \(SQLIdentifier.quoted(channel))")
        channels.remove(channel)
    }

    /// Returns the notifications that arrived, waiting up to `timeout` for the first when
    /// none is pending (`.zero`: do not wait). Returns `[]` when the time passed without any,
    /// or at once when `wakeup` was signalled.
    /// Throws a lost-connection error (`isConnectionLost`) when the session died (server
    /// stopped, backend terminated, network gone); notifications it had queued before are
    /// returned first.
    public func waitForNotifications(timeout: Duration, wakeup: Wakeup? = nil) throws(PostgresError) -> [PostgresNotification] {
        guard connection.status == .ok else { throw connection.failure("waiting for notifications", sql: nil) }
        var received = takeQueued()
        if !received.isEmpty { return received }
        let socket = try connection.socket()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let left = max(clock.now.duration(to: deadline), .zero)
            let ready = try SocketWait.wait(socket, timeout: left, wakeup: wakeup)
            if ready.woken && !ready.readable { return [] }
            if ready.readable {
                do throws(PostgresError) {
                    try connection.consumeInput()
                } catch {
                    received = takeQueued()
                    if !received.isEmpty { return received }
                    throw error
                }
                received = takeQueued()
                if !received.isEmpty { return received }
            }
            if clock.now >= deadline { return [] }
        }
    }

    /// Opens a new session (same connection string: after a failover, the new primary) and
    /// listens on every channel again. Notifications sent while disconnected are lost.
    public func reconnect() throws(PostgresError) {
        try connection.reset()
        for channel in channels.sorted() {
            try connection.execute("LISTEN \(SQLIdentifier.quoted(channel))")
        }
    }

    /// Notifications libpq has already read, oldest first.
    private func takeQueued() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notify = PQnotifies(connection.handle) {
            let value = notify.pointee
            received.append(PostgresNotification(channel: value.relname.map { String(cString: $0) } ?? "",
                                                 payload: value.extra.map { String(cString: $0) } ?? "",
                                                 senderPID: value.be_pid))
            PQfreemem(notify)
        }
        return received
    }
}
