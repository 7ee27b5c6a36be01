/// Applies numbered schema migrations in order, each once.
///
/// The applied version is SQLite's `PRAGMA user_version`; migration `n` (1-based) runs only when
/// the stored version is below `n`, inside the same transaction that bumps the version, so a
/// crash leaves either the old or the new schema. Running it again is a no-op.
public struct Migrator: Sendable {
    /// One migration: its number (1, 2, 3, … with no gaps) and its SQL.
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        public let sql: String
        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }
    }

    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The schema version stored in `database`.
    public static func currentVersion(of database: Database) throws -> Int {
        try database.firstRow("PRAGMA user_version") { $0.int(0) } ?? 0
    }

    /// Applies every pending migration; returns the versions applied (empty when up to date).
    @discardableResult
    public func migrate(_ database: Database) throws -> [Int] {
        var applied: [Int] = []
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw StorageError.misuse("migration numbers must be 1, 2, 3, …; found \(migration.version) at \(offset + 1)")
        }
        let current = try Self.currentVersion(of: database)
        if current > migrations.count {
            throw StorageError.misuse("database schema version \(current) is newer than this program (\(migrations.count))")
        }
        for migration in migrations where migration.version > current {
            try database.transaction {
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
            applied.append(migration.version)
        }
        return applied
    }
}
