import Foundation
import PostgresClient
import PostgresStore
import PostgresTestSupport
import SQLiteStore
import Storage
import Synchronization
import Testing
import Tracking

/// One store implementation the conformance suite runs against: how to open a fresh, empty
/// store of it, and how to throw it away afterwards.
///
/// Every test opens its own store (`open()`), so tests never see each other's rows and may run
/// in parallel.
public struct StoreFactory: Sendable, CustomTestStringConvertible {
    public let name: String
    public let open: @Sendable () throws -> OpenedStore

    public var testDescription: String { name }

    /// Every implementation of `TrackingStore` the suite knows. A store joins the suite by
    /// adding its factory here.
    /// PostgreSQL joins when its server programs are installed (CI installs them); without
    /// them `PostgresJoinsTheSuite` is skipped, saying why.
    public static let all: [StoreFactory] = PostgresTestServer.isAvailable ? [.sqlite, .postgres] : [.sqlite]

    /// The embedded store in a fresh temporary directory.
    public static let sqlite = StoreFactory(name: "SQLite") {
        let directory = NSTemporaryDirectory() + "fod-conformance-" + UUID().uuidString
        let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal)
        return OpenedStore(store: backend) {
            backend.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}

extension StoreFactory {
    /// A new database on the test process's throwaway PostgreSQL server, dropped afterwards.
    public static let postgres = StoreFactory(name: "PostgreSQL") {
        let server = try PostgresTestServer.shared.get()
        let name = "fod_conformance_\(databaseCounter.add(1, ordering: .relaxed).newValue)"
        try Connection(server.url).execute("CREATE DATABASE \(name)")
        let store = try PostgresStore.open(server.url(database: name), readerCount: 4)
        let adminURL = server.url
        return OpenedStore(store: store) {
            store.close()
            _ = try? Connection(adminURL).execute("DROP DATABASE \(name) WITH (FORCE)")
        }
    }

    private static let databaseCounter = Atomic<Int>(0)
}

/// A store opened for one test; `close()` closes it and deletes what it stored.
public final class OpenedStore: Sendable {
    public let store: any TrackingStore
    private let discard: @Sendable () -> Void

    public init(store: any TrackingStore, discard: @escaping @Sendable () -> Void) {
        self.store = store
        self.discard = discard
    }

    public func close() { discard() }
}

extension StoreFactory {
    /// Runs `body` with a fresh store of this kind, closing it afterwards however `body` ends.
    public func withStore<T>(_ body: (any TrackingStore) async throws -> T) async throws -> T {
        let opened = try open()
        defer { opened.close() }
        return try await body(opened.store)
    }
}
