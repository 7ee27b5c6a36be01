import Foundation
import ThreadControl
#if canImport(Glibc)
import Glibc
#endif

/// A small pool of read-only connections to the same database file.
///
/// `read` borrows a connection for the duration of `body` (blocking while all are in use) and
/// returns it afterwards. In WAL mode readers never block the writer and see every commit that
/// completed before their read transaction began.
///
/// `closeConnections` closes them all (waiting for borrowed ones) and holds new reads until
/// `reopenConnections`; connections are then opened again as reads need them (see
/// `WriterRecovery` for why the writer needs this).
public final class ReaderPool: @unchecked Sendable {
    // @unchecked: `state` is guarded by `condition`; a borrowed `Database` is used by exactly
    // one thread until returned.
    private let condition = NSCondition()
    /// Which connections are idle and lent (the extra ones of `readAlone` count as lent).
    private var state: PoolState<Database>
    private let path: String
    public let size: Int

    public init(path: String, size: Int) throws {
        precondition(size > 0, "a reader pool needs at least one connection")
        self.path = path
        self.size = size
        state = PoolState(size: size, connections: try (0..<size).map { _ in try Database(path: path, mode: .readOnly) })
    }

    /// The read transaction a thread runs `readingTogether` in: its pool and connection.
    private final class JoinedRead {
        let pool: ObjectIdentifier
        let database: Database
        init(pool: ObjectIdentifier, database: Database) {
            self.pool = pool
            self.database = database
        }
    }

    /// A thread's `JoinedRead` (unretained; kept alive by the `readingTogether` frame that set
    /// it), one key for every pool of the process; nil if the system had no key to give.
    private static let joinedKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The connection of the calling thread's `readingTogether` on this pool, if any.
    private func joinedDatabase() -> Database? {
        guard let key = Self.joinedKey, let value = pthread_getspecific(key) else { return nil }
        let joined = Unmanaged<JoinedRead>.fromOpaque(value).takeUnretainedValue()
        return joined.pool == ObjectIdentifier(self) ? joined.database : nil
    }

    /// Runs `body` in one read transaction that every `read` of this pool on the calling
    /// thread joins until `body` returns: the reads of one request (credential, membership,
    /// visibility, the query) then share one snapshot, one connection and one set of the
    /// database's locks instead of taking their own. For synchronous code only, as the
    /// transaction belongs to the thread; a nested call just runs `body`.
    public func readingTogether<T>(_ body: () throws -> T) throws -> T {
        guard let key = Self.joinedKey, joinedDatabase() == nil else { return try body() }
        let database = try borrow()
        defer { giveBack(database) }
        try database.prepare("BEGIN").run()
        defer { _ = try? database.prepare("COMMIT").run() }
        let joined = JoinedRead(pool: ObjectIdentifier(self), database: database)
        let outer = pthread_getspecific(key)   // another pool's, restored afterwards
        pthread_setspecific(key, Unmanaged.passUnretained(joined).toOpaque())
        defer { pthread_setspecific(key, outer) }
        return try withExtendedLifetime(joined) { try body() }
    }

    /// Runs `body` with a read-only connection: in a transaction of its own, or in the
    /// calling thread's `readingTogether` transaction.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let joined = joinedDatabase() { return try body(joined) }
        let database = try borrow()
        defer { giveBack(database) }
        // Each read is its own transaction so it sees one consistent snapshot (prepared once per
        // connection: sqlite3_exec would parse both statements on every read).
        try database.prepare("BEGIN").run()
        defer { _ = try? database.prepare("COMMIT").run() }
        return try body(database)
    }

    /// Runs `body` in a read transaction of its own (a snapshot taken now), even on a thread
    /// inside `readingTogether`: there, on an extra connection opened for this read and closed
    /// after it (the thread already holds one of the pool's, so waiting for a second could
    /// wait forever when every connection is held that way). For the rare read that must see
    /// commits made since the joined transaction's snapshot began.
    public func readAlone<T>(_ body: (Database) throws -> T) throws -> T {
        guard joinedDatabase() != nil else { return try read(body) }
        try claim { $0.claimExtra() }
        defer { giveBack(nil) }
        // The connection is released (closed) at the end of this closure, before its place is given back.
        return try {
            let database = try Database(path: path, mode: .readOnly)
            try database.prepare("BEGIN").run()
            defer { _ = try? database.prepare("COMMIT").run() }
            return try body(database)
        }()
    }

    /// Gives a place back, with its connection to lend again or nil; a connection the pool
    /// does not keep is closed here, outside the lock.
    private func giveBack(_ database: Database?) {
        condition.lock()
        let dropped = state.release(database)
        condition.broadcast()
        condition.unlock()
        _ = dropped
    }

    /// Waits until `take` (a claim on `state`) answers something other than `wait`; returns
    /// the idle connection it gave, or nil for a place to open one in.
    @discardableResult
    private func claim(_ take: (inout PoolState<Database>) -> PoolState<Database>.Claim) throws -> Database? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch take(&state) {
            case .reuse(let database): return database
            case .open: return nil
            case .closed: throw StorageError(code: 21, message: "the database is closing")
            case .wait: condition.wait()
            }
        }
    }

    private func borrow() throws -> Database {
        if let database = try claim({ $0.claim() }) { return database }
        do {
            return try Database(path: path, mode: .readOnly)
        } catch {
            giveBack(nil)
            throw error
        }
    }

    /// Waits for borrowed connections to come back and closes them all; reads wait until
    /// `reopenConnections`.
    public func closeConnections() {
        condition.lock()
        var closing = state.suspend()
        while !state.allReturned { condition.wait() }
        closing += state.suspend()
        condition.unlock()
        closing.removeAll()  // closes them, outside the lock
    }

    /// Lets reads run again after `closeConnections`, opening connections as they need them.
    public func reopenConnections() {
        condition.lock()
        state.resume()
        condition.broadcast()
        condition.unlock()
    }

    /// Frees the page-cache memory of the connections not borrowed now (they stay open).
    public func releaseMemory() {
        condition.lock()
        defer { condition.unlock() }
        state.forEachIdle { $0.releaseMemory() }
    }

    /// Waits for borrowed connections to come back, then closes them all.
    public func close() {
        condition.lock()
        while !state.allReturned { condition.wait() }
        var closing = state.close()
        condition.broadcast()
        condition.unlock()
        closing.removeAll()  // closes them, outside the lock
    }
}
