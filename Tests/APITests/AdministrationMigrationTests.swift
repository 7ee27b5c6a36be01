import API
import Foundation
import Testing
import SQLiteStore
import Storage
import Tracking

/// A server that had accounts before administrators existed: its oldest account anyone can sign
/// in to becomes the administrator (not an account without a password, such as the demo's
/// vessels), and the default sign-up policy is then invite-only.
@Suite(.enabled(if: TestStoreKind.isSQLite, "a migration of an existing SQLite data directory (the same SQL runs on PostgreSQL, AccountTables.schema)"))
struct AdministrationMigrationTests {
    @Test func theOldestAccountWithAPasswordBecomesTheAdministrator() async throws {
        let directory = NSTemporaryDirectory() + "fod-migrate-admin-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let db = try Database(path: directory + "/fod.sqlite")
            let before = Schema.migrator.migrations.prefix { !$0.name.hasPrefix("administrators") }
            #expect(before.count < Schema.migrator.migrations.count)
            _ = try Migrator(Array(before)).migrate(db)
            for (id, hash, time) in [("u_vessel", "!no-password", 1), ("u_ann", "$argon2id$v=19$ann", 2), ("u_bob", "$argon2id$v=19$bob", 3)] {
                try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                           [.text(id), .text(id + "@example.org"), .text(id), .text(hash), .integer(Int64(time))])
            }
        }
        let backend = try SQLiteBackend.open(directory: directory, synchronous: .normal)
        defer { backend.close() }
        #expect(try backend.accounts().map { "\($0.id.rawValue) \($0.isAdmin)" } == ["u_vessel false", "u_ann true", "u_bob false"])
        let accounts = try AccountService(store: backend, directory: backend, hashing: PasswordWork(policy: AccountService.Policy()))
        #expect(try accounts.signUpPolicy() == .invite)
    }
}
