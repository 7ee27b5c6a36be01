import Foundation

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
    // @unchecked: every var is guarded by `condition`; a borrowed `Database` is used by
    // exactly one thread until returned.
    private let condition = NSCondition()
    private var idle: [Database]
    /// Connections open: idle plus borrowed. Invariant: `idle.count <= open <= size`.
    private var open: Int
    private var suspended = false
    private var closed = false
    private let path: String
    public let size: Int

    public init(path: String, size: Int) throws {
        precondition(size > 0, "a reader pool needs at least one connection")
        self.path = path
        self.size = size
        self.idle = try (0..<size).map { _ in try Database(path: path, mode: .readOnly) }
        self.open = size
    }

    /// Runs `body` with a read-only connection.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let database = try borrow()
        defer {
            condition.lock()
            idle.append(database)
            condition.broadcast()
            condition.unlock()
        }
        // Each read is its own transaction so it sees one consistent snapshot (prepared once per
        // connection: sqlite3_exec would parse both statements on every read).
        try database.prepare("BEGIN").run()
        defer { _ = try? database.prepare("COMMIT").run() }
        return try body(database)
    }

    private func borrow() throws -> Database {
        condition.lock()
        while !closed && (suspended || (idle.isEmpty && open == size)) { condition.wait() }
        if closed {
            condition.unlock()
            throw StorageError(code: 21, message: "the database is closing")
        }
        if let database = idle.popLast() {
            condition.unlock()
            return database
        }
        open += 1
        condition.unlock()
        do {
            return try Database(path: path, mode: .readOnly)
        } catch {
            condition.lock()
            open -= 1
            condition.broadcast()
            condition.unlock()
            throw error
        }
    }

    /// Waits for borrowed connections to come back and closes them all; reads wait until
    /// `reopenConnections`.
    public func closeConnections() {
        condition.lock()
        suspended = true
        while idle.count < open { condition.wait() }
        idle.removeAll()
        open = 0
        condition.unlock()
    }

    /// Lets reads run again after `closeConnections`, opening connections as they need them.
    public func reopenConnections() {
        condition.lock()
        suspended = false
        condition.broadcast()
        condition.unlock()
    }

    /// Frees the page-cache memory of the connections not borrowed now (they stay open).
    public func releaseMemory() {
        condition.lock()
        defer { condition.unlock() }
        for database in idle { database.releaseMemory() }
    }

    /// Waits for borrowed connections to come back, then closes them all.
    public func close() {
        condition.lock()
        while idle.count < open { condition.wait() }
        closed = true
        idle.removeAll()
        open = 0
        condition.broadcast()
        condition.unlock()
    }
}
