@testable import PostgresStore
import StoreTestSupport
import Testing

/// Every applied PostgreSQL migration keeps the exact text it was applied with, however its
/// source is written (shared pieces such as the version-bump trigger are generated).
@Suite struct AppliedMigrationTests {
    /// FNV-1a of each migration's SQL as applied (`MigrationFingerprints.of`).
    static let applied: [Int64: String] = [
        1: "b54de3de26537257",
        2: "ec450a63f273d863",
        3: "404e740391f4a2da",
        4: "908d304660afb6d7",
        5: "310ba9e6c7b2c089",
        6: "e0c3d80fb13c0ad2",
        7: "1efcce6205849bef",
        8: "73a8e95cd5a7d7db",
        9: "7a3a9a29014f0a01",
        10: "bee575748e71b257",
        11: "d8cd0c5e176fb85b",
        12: "3d884f8945c49471",
        13: "c7e5c658074835dc",
    ]

    @Test func appliedMigrationsAreUnchanged() {
        for migration in PostgresSchema.migrations {
            let recorded = Self.applied[migration.version]
            #expect(recorded == MigrationFingerprints.of(migration.sql), "migration \(migration.version) \(migration.name)")
        }
    }
}
