/// The bookkeeping of a connection pool, as a state machine: which connection to lend, when a
/// new one may be opened, when a borrower waits, what closing hands back. It does no I/O and
/// holds no lock (its owner guards it and opens, checks and closes the connections itself), so
/// both pools — SQLite's readers (`Storage.ReaderPool`) and PostgreSQL's
/// (`PostgresClient.ConnectionPool`) — run on the same rules, tested once (`PoolStateTests`).
///
/// Invariants: `idle.count + lent` connections are open (or being opened); a claim never takes
/// the pool past `size` but for `extra` places, which a caller takes beside the pool; a closed
/// pool lends nothing and keeps nothing given back.
public struct PoolState<Connection> {
    /// What a borrower does after `claim`.
    public enum Claim {
        /// Use this idle connection (its place is now lent).
        case reuse(Connection)
        /// A place is reserved: open a new connection in it (`release(nil)` if that fails).
        case open
        /// Every place is lent (or the pool is suspended): wait for a `release` or `resume`.
        case wait
        /// The pool is closed.
        case closed
    }

    /// Most connections open at once (at least 1), extra places aside.
    public let size: Int
    private var idle: [Connection] = []
    /// Places lent out or being opened (extra places included).
    public private(set) var lent = 0
    public private(set) var isClosed = false
    /// While suspended, nothing is lent (the owner is closing every connection and will resume).
    public private(set) var isSuspended = false

    /// A pool of `size` places holding `connections` idle (opened by the owner ahead).
    public init(size: Int, connections: [Connection] = []) {
        self.size = max(1, size)
        idle = Array(connections.prefix(self.size))
    }

    /// Connections open now: idle, lent and being opened.
    public var openCount: Int { idle.count + lent }

    /// Whether every connection lent out came back.
    public var allReturned: Bool { lent == 0 }

    /// Takes an idle connection, or a place for a new one, if there is one to take.
    public mutating func claim() -> Claim {
        if isClosed { return .closed }
        if isSuspended { return .wait }
        if let connection = idle.popLast() {
            lent += 1
            return .reuse(connection)
        }
        guard lent < size else { return .wait }
        lent += 1
        return .open
    }

    /// Takes a place beside the pool (past `size`), for a caller that must not wait for one of
    /// the pool's while it holds another; nil when closed or suspended (wait and try again
    /// unless closed).
    public mutating func claimExtra() -> Claim {
        if isClosed { return .closed }
        if isSuspended { return .wait }
        lent += 1
        return .open
    }

    /// Gives a place back, with its connection to lend again, or nil (it broke, could not be
    /// opened, or was an extra). Returns the connection the owner must close (outside its
    /// lock) when the pool does not keep it.
    @discardableResult
    public mutating func release(_ connection: Connection?) -> Connection? {
        lent = max(0, lent - 1)
        guard let connection else { return nil }
        guard !isClosed else { return connection }
        idle.append(connection)
        return nil
    }

    /// Stops lending until `resume`; returns the idle connections for the owner to close (call
    /// again, after waiting for `allReturned`, to collect those that came back since).
    public mutating func suspend() -> [Connection] {
        isSuspended = true
        return takeIdle()
    }

    /// Lends again after `suspend`, opening connections as borrowers need them.
    public mutating func resume() {
        isSuspended = false
    }

    /// Lends nothing more; returns the idle connections for the owner to close. Connections
    /// lent now are closed by their `release`.
    public mutating func close() -> [Connection] {
        isClosed = true
        return takeIdle()
    }

    /// Applies `body` to every idle connection (e.g. to free caches), in place.
    public mutating func forEachIdle(_ body: (Connection) -> Void) {
        for connection in idle { body(connection) }
    }

    private mutating func takeIdle() -> [Connection] {
        let taken = idle
        idle.removeAll()
        return taken
    }
}
