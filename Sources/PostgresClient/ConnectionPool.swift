import Foundation
import ThreadControl

/// A fixed number of connections shared by many threads; `withConnection` lends one.
///
/// Connections are opened on demand (so the pool can be made while the database is down and
/// starts working when it returns), at most `size` at a time. A borrower blocks until one is
/// free, at most `checkoutTimeout`, then gets `53300` (`isUnavailable`). A connection that
/// comes back bad (the server closed it), or still inside a transaction, is closed and its
/// place given to a new one; an idle connection whose server session ended meanwhile is
/// found before it is lent (see `Connection.isAliveWhenIdle`) and replaced too.
///
/// Thread-safety: every mutable field is guarded by `condition` (an `NSCondition`, whose lock
/// is held only to take or return a connection, never while connecting or querying); each
/// `Connection` is used by one borrower at a time. Hence `@unchecked Sendable`.
public final class ConnectionPool: @unchecked Sendable {
    public let size: Int
    public let checkoutTimeout: Duration
    private let connectionString: String
    private let prepare: (@Sendable (Connection) throws(PostgresError) -> Void)?

    private let condition = NSCondition()
    /// Idle connections and places lent out or being opened (guarded by `condition`).
    private var state: PoolState<Connection>

    /// - Parameters:
    ///   - connectionString: libpq's, as for `Connection`.
    ///   - size: the most connections open at once (at least 1).
    ///   - checkoutTimeout: how long a borrower waits for a free connection.
    ///   - prepare: runs once on each new connection (session settings), before it is lent.
    public init(_ connectionString: String, size: Int, checkoutTimeout: Duration = .seconds(5),
                prepare: (@Sendable (Connection) throws(PostgresError) -> Void)? = nil) {
        self.connectionString = connectionString
        self.size = max(1, size)
        self.state = PoolState(size: size)
        self.checkoutTimeout = checkoutTimeout
        self.prepare = prepare
    }

    /// Lends a connection to `body` for the duration of the call (it must not keep it).
    /// Throws `body`'s error, or a `PostgresError` when no connection could be had (pool
    /// exhausted for `checkoutTimeout`: 53300; database unreachable: 08001; pool closed: 55000).
    @discardableResult
    public func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// How many connections are open and how many of them are lent out right now.
    public var statistics: (open: Int, lent: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (state.openCount, state.lent)
    }

    /// Closes the idle connections; later checkouts fail, connections lent out close on return.
    public func close() {
        condition.lock()
        let closing = state.close()
        condition.broadcast()
        condition.unlock()
        _ = closing // freed here, outside the lock
    }

    // MARK: Lending

    private func checkOut() throws(PostgresError) -> Connection {
        let deadline = Date().addingTimeInterval(Self.seconds(checkoutTimeout))
        guard let connection = try claim(until: deadline) else { return try open() }
        if connection.isAliveWhenIdle() { return connection }
        return try open()  // its session ended: a new connection takes its place
    }

    /// Takes an idle connection, or (nil) a free place for a new one, waiting until `deadline`.
    private func claim(until deadline: Date) throws(PostgresError) -> Connection? {
        condition.lock()
        defer { condition.unlock() }
        var timedOut = false
        while true {
            switch state.claim() {
            case .reuse(let connection):
                return connection
            case .open:
                return nil
            case .closed:
                throw .misuse("the connection pool is closed")
            case .wait:
                // After the deadline, the claim above was the last look.
                if timedOut { throw .client(.tooManyConnections, "all \(size) pooled connections stayed busy for \(checkoutTimeout)") }
                timedOut = !condition.wait(until: deadline)
            }
        }
    }

    /// Opens a connection in a place already claimed (gives the place back on failure).
    private func open() throws(PostgresError) -> Connection {
        let connection: Connection
        do throws(PostgresError) {
            connection = try Connection(connectionString)
            try prepare?(connection)
        } catch {
            release(nil)
            throw error
        }
        return connection
    }

    private func checkIn(_ connection: Connection) {
        let reusable = connection.status == .ok && connection.transactionStatus == .idle
        release(reusable ? connection : nil)
    }

    /// Gives a place back: with a connection to lend again, or empty (the connection, if any,
    /// is closed when the last reference goes, outside the lock).
    private func release(_ connection: Connection?) {
        condition.lock()
        let dropped = state.release(connection)
        condition.signal()
        condition.unlock()
        _ = dropped // closed here, outside the lock
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
