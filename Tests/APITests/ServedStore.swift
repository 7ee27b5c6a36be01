import Foundation
import HTTPTestSupport

/// Where a test's `fod serve` children keep their data, on the selected store (`TestStoreKind`):
/// a new data directory, and on PostgreSQL also a new database (`--database`). Every `serve()`
/// of one `ServedStore` opens the same data, so a test can stop, kill and restart its server.
///
/// Lifetime: `remove()` exactly once, after the last server has stopped.
final class ServedStore: Sendable {
    /// The data directory (`--data`); the tests also put their scratch files here.
    let directory: String
    /// On PostgreSQL: the database every server of this store runs on.
    private let database: TestDatabase?

    /// - Parameter prefix: starts the data directory's name (to tell tests' leftovers apart).
    init(_ prefix: String) throws {
        directory = NSTemporaryDirectory() + prefix + UUID().uuidString
        switch try TestStoreKind.selectedOrFailure() {
        case .sqlite: database = nil
        case .postgresql: database = try TestDatabase.create()
        }
    }

    /// The arguments that put `fod serve` on this store's database (none on SQLite, where the
    /// data directory is the store).
    var storeArguments: [String] { database.map { ["--database", $0.url] } ?? [] }

    /// Starts `fod serve` on this store (`FodProcess`, which adds `--data`), with `extraArguments`.
    func serve(_ extraArguments: [String] = []) throws -> FodProcess {
        try FodProcess(dataDirectory: directory, extraArguments: storeArguments + extraArguments)
    }

    /// Deletes the data directory and drops the database.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
        database?.drop()
    }
}
