import API
import HTTPServer
import PostgresStore
import SQLiteStore
import Tracking

/// The store this node runs on: the embedded SQLite database in the data directory, or
/// PostgreSQL (`--database`), shared with every other node on it.
struct NodeStorage {
    /// Runs a background job unless another node runs it now; nil when it did not run.
    typealias Exclusive = @Sendable (String, @Sendable () async throws -> Int) async throws -> Int?

    let store: any TrackingStore
    /// Set when the node runs on PostgreSQL.
    let postgres: PostgresStore?

    static func open(_ configuration: ServerConfiguration, logger: Logger) throws -> NodeStorage {
        if let url = configuration.databaseURL {
            let store = try PostgresStore.open(url, writerCount: configuration.databaseWriters)
            logger.info("database: PostgreSQL, schema version \((try? store.schemaVersion()) ?? 0)")
            return NodeStorage(store: store, postgres: store)
        }
        let backend = try SQLiteBackend.open(directory: configuration.dataDirectory, synchronous: configuration.synchronous,
                                             merging: configuration.merging, wal: configuration.wal)
        logger.info("data directory \(configuration.dataDirectory) (database \(backend.path))")
        return NodeStorage(store: backend, postgres: nil)
    }

    /// Background jobs run on one node at a time: on PostgreSQL under an advisory lock; on
    /// SQLite (one node) always.
    var exclusive: Exclusive {
        guard let postgres else { return { _, body in try await body() } }
        return { name, body in try await postgres.runExclusively(name, body) }
    }
}
