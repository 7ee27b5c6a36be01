import Foundation
import Storage

/// The embedded backend: one SQLite file in the data directory, one group-committing writer,
/// a small pool of readers. It implements the domain's store protocols.
///
/// Lifetime: `open` migrates the schema; `close` finishes queued writes, checkpoints the WAL
/// and closes every connection. Call `close` exactly once.
public final class SQLiteBackend: Sendable {
    public let path: String
    public let writer: DatabaseWriter
    public let readers: ReaderPool
    let checkpointer: Checkpointer
    let sequences = SequenceAllocator()

    /// Opens (creating) `fod.sqlite` in `directory` and applies pending migrations.
    public static func open(directory: String, synchronous: Database.Synchronous = .full,
                            readerCount: Int = 4) throws -> SQLiteBackend {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/fod.sqlite"
        let database = try Database(path: path, synchronous: synchronous)
        try Schema.migrator.migrate(database)
        return try SQLiteBackend(path: path, writerDatabase: database, readerCount: readerCount)
    }

    init(path: String, writerDatabase: Database, readerCount: Int) throws {
        self.path = path
        // Checkpoints run beside the writer (see `Checkpointer`), never inside a commit.
        try writerDatabase.execute("PRAGMA wal_autocheckpoint = 0")
        self.writer = DatabaseWriter(database: writerDatabase)
        self.readers = try ReaderPool(path: path, size: readerCount)
        self.checkpointer = try Checkpointer(path: path)
    }

    /// Runs `body` with a read-only connection (one consistent snapshot).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try readers.read(body)
    }

    /// Runs `body` inside the next group commit; returns once it is durable.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(body)
    }

    /// Like `write`; `onCommit` runs on the writer thread right after the commit, in commit order.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T,
                                   onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        try await writer.write(body, onCommit: onCommit)
    }

    /// Size of the database file in bytes.
    public func sizeBytes() -> Int64 {
        (try? read { try $0.fileSizeBytes() }) ?? 0
    }

    public func close() {
        checkpointer.close()
        writer.close()
        readers.close()
        if let database = try? Database(path: path) {
            database.checkpoint()
        }
    }
}
