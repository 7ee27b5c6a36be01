import Synchronization

/// The process's connections to one database file besides the writer's — the reader pool and
/// the checkpointer — and the one operation that needs them all: `reconnectWriter`.
///
/// Lifetime: `close` once, after the writer stopped (it closes the checkpointer and readers).
public final class FileConnections: Sendable {
    public let readers: ReaderPool
    private let makeCheckpointer: @Sendable () throws -> Checkpointer
    /// The running checkpointer (nil once closed, or if reopening it failed), and whether
    /// `close` was called.
    private let checkpointer: Mutex<(current: Checkpointer?, closed: Bool)>

    /// Opens the checkpointer with `makeCheckpointer` (again after each reconnect).
    public init(readers: ReaderPool, makeCheckpointer: @escaping @Sendable () throws -> Checkpointer) throws {
        self.readers = readers
        self.makeCheckpointer = makeCheckpointer
        checkpointer = Mutex((try makeCheckpointer(), false))
    }

    /// For `DatabaseWriter`'s `reconnect` (the writer's connection already closed): closes the
    /// checkpointer's and readers' connections, so SQLite lets go of the file's shared-memory
    /// index that could only be opened read-only, opens the writer's new connection with
    /// `openWriter`, and lets the others open theirs again.
    public func reconnectWriter(_ openWriter: () throws -> Database) throws -> Database {
        checkpointer.withLock { state in
            state.current?.close()
            state.current = nil
        }
        readers.closeConnections()
        defer {
            readers.reopenConnections()
            checkpointer.withLock { state in
                if !state.closed { state.current = try? makeCheckpointer() }
            }
        }
        return try openWriter()
    }

    /// Stops the checkpointer (waiting for a running checkpoint) and closes the readers.
    public func close() {
        checkpointer.withLock { state in
            state.current?.close()
            state.current = nil
            state.closed = true
        }
        readers.close()
    }

}
