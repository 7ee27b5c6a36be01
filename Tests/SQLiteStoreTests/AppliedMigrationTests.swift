@testable import SQLiteStore
import StoreTestSupport
import Testing

/// Every applied SQLite migration keeps the exact text it was applied with.
@Suite struct AppliedMigrationTests {
    /// FNV-1a of each migration's SQL as applied (`MigrationFingerprints.of`).
    static let applied: [Int: String] = [
        1: "ea72f5dd2bde26ce",
        2: "4f91e41aae231099",
        3: "2fecf5842324b762",
        4: "192bf6719c1af1d7",
        5: "f98d7684d1303004",
        6: "c6c9078315ef9be7",
        7: "aeaba4afe44c9366",
        8: "c88e59debe829c44",
        9: "e41289934ea5ab98",
        10: "7583f5a012b9a83f",
        11: "1f697d76a9f457bf",
        12: "d480b47b94a4d34e",
        13: "0a8164181e21f022",
        14: "40528b4767fd2bf3",
        15: "49d0e2380dfa0968",
        16: "3d884f8945c49471",
        17: "890f1c550e94e36f",
    ]

    @Test func appliedMigrationsAreUnchanged() {
        for migration in Schema.migrator.migrations {
            let recorded = Self.applied[migration.version]
            #expect(recorded == MigrationFingerprints.of(migration.sql), "migration \(migration.version) \(migration.name)")
        }
    }
}
