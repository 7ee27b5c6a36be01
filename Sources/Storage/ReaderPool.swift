import Foundation

/// A small pool of read-only connections to the same database file.
///
/// `read` borrows a connection for the duration of `body` (blocking while all are in use) and
/// returns it afterwards. In WAL mode readers never block the writer and see every commit that
/// completed before their read transaction began.
public final class ReaderPool: @unchecked Sendable {
    // @unchecked: `idle` and `closed` are guarded by `condition`; a borrowed `Database` is used
    // by exactly one thread until returned.
    private let condition = NSCondition()
    private var idle: [Database]
    private var closed = false
    public let size: Int

    public init(path: String, size: Int) throws {
        precondition(size > 0, "a reader pool needs at least one connection")
        self.size = size
        self.idle = try (0..<size).map { _ in try Database(path: path, mode: .readOnly) }
    }

    /// Runs `body` with a read-only connection.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        condition.lock()
        while idle.isEmpty && !closed { condition.wait() }
        guard !closed, let database = idle.popLast() else {
            condition.unlock()
            throw StorageError(code: 21, message: "the database is closing")
        }
        condition.unlock()
        defer {
            condition.lock()
            idle.append(database)
            condition.signal()
            condition.unlock()
        }
        // Each read is its own transaction so it sees one consistent snapshot.
        try database.execute("BEGIN")
        defer { try? database.execute("COMMIT") }
        return try body(database)
    }

    /// Waits for borrowed connections to come back, then closes them all.
    public func close() {
        condition.lock()
        while idle.count < size { condition.wait() }
        closed = true
        idle.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
