/// The 64-bit key of a PostgreSQL advisory lock.
public struct AdvisoryLockKey: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// A key derived from a job's name with 64-bit FNV-1a over its UTF-8 bytes: the same on
    /// every node and in every build (unlike Swift's `Hasher`, which is seeded per process).
    public init(name: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        rawValue = Int64(bitPattern: hash)
    }

    public var description: String { String(rawValue) }
}

/// A dedicated session holding session-level advisory locks: "exactly one node runs
/// background job X at a time".
///
/// A lock is held until `unlock` or until this session ends: if the node dies or loses its
/// connection, the server releases the lock and another node's `tryLock` succeeds. A job
/// should therefore check `isHeld` between steps and stop when it returns false.
///
///     let locks = try AdvisoryLockSession(url)
///     if try locks.tryLock(AdvisoryLockKey(name: "retention")) { runRetention(while: { locks.isHeld(key) }) }
///
/// Not thread-safe, like `Connection`.
public final class AdvisoryLockSession {
    private let connection: Connection
    /// The keys this session took and has not released.
    public private(set) var heldKeys: Set<AdvisoryLockKey> = []

    public init(_ connectionString: String) throws(PostgresError) {
        connection = try Connection(connectionString)
    }

    public var backendPID: Int32 { connection.backendPID }

    /// `pg_try_advisory_lock(key)`: true when this session now holds the lock (also when it
    /// already did; the server counts re-entries, `unlock` releases one), false when another
    /// session holds it. Never waits.
    public func tryLock(_ key: AdvisoryLockKey) throws(PostgresError) -> Bool {
        let taken = try connection.queryPrepared("SELECT pg_try_advisory_lock($1)", [.int64(key.rawValue)]).row(0).bool(0)
        if taken { heldKeys.insert(key) }
        return taken
    }

    /// `pg_advisory_unlock(key)`: true when this session held it.
    @discardableResult
    public func unlock(_ key: AdvisoryLockKey) throws(PostgresError) -> Bool {
        let released = try connection.queryPrepared("SELECT pg_advisory_unlock($1)", [.int64(key.rawValue)]).row(0).bool(0)
        heldKeys.remove(key)
        return released
    }

    /// Whether this session still holds `key`, asked of the server (`pg_locks`); false when
    /// the session is gone, so a job never goes on believing it holds a lock it lost.
    public func isHeld(_ key: AdvisoryLockKey) -> Bool {
        // A bigint advisory key is stored as classid = high 32 bits, objid = low 32 bits, objsubid = 1.
        let high = Int64(UInt32(truncatingIfNeeded: UInt64(bitPattern: key.rawValue) >> 32))
        let low = Int64(UInt32(truncatingIfNeeded: UInt64(bitPattern: key.rawValue)))
        let sql = """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() \
            AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1 AND granted
            """
        guard let count = try? connection.queryPrepared(sql, [.int64(high), .int64(low)]).row(0).int64(0) else {
            if connection.status == .bad { heldKeys.removeAll() }
            return false
        }
        if count == 0 { heldKeys.remove(key) }
        return count > 0
    }

    /// Opens a new session after the old one was lost (its locks are gone: take them again).
    public func reconnect() throws(PostgresError) {
        heldKeys.removeAll()
        try connection.reset()
    }
}
