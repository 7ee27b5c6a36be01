import SQLCore
import Tracking
import Storage

/// Administrators, invite codes, invitations by email and import tokens: `SQLCore.AccountTables`,
/// written once for both stores.
extension SQLiteBackend: AccountAdministrationStore, ImportTokenStore {}

extension SQLiteBackend: AccountStore {
    public func createUser(_ user: User, passwordHash: String, session: Session, tokenHash: String) async throws {
        do {
            try await write { db in
                try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                           [.id(user.id), .text(user.email), .text(user.displayName), .text(passwordHash), .time(user.createdAt)])
                try Self.insert(session, tokenHash: tokenHash, in: db)
            }
        } catch let error as StorageError where error.isUniqueViolation {
            throw TrackingError.conflict("an account with this email already exists", code: .emailTaken)
        }
    }

    static func insert(_ session: Session, tokenHash: String, in db: Database) throws {
        try db.run("INSERT INTO sessions (token_hash, user_id, created_at, id, last_used_at, client) VALUES (?, ?, ?, ?, ?, ?)",
                   [.text(tokenHash), .id(session.userID), .time(session.createdAt), .id(session.id),
                    .time(session.lastUsedAt), .optional(session.client)])
    }

    static let sessionColumns = "id, user_id, created_at, last_used_at, client"

    static func session(_ row: Statement) -> Session {
        Session(id: row.id(0), userID: row.id(1), createdAt: row.time(2), lastUsedAt: row.time(3), client: row.optionalString(4))
    }

    public func userWithPasswordHash(email: String) throws -> (User, String)? {
        try read { db in
            try db.firstRow("SELECT \(AccountTables.userColumns), password_hash FROM users WHERE email = ?", [.text(email)]) { row in
                (Self.user(row), row.string(7))
            }
        }
    }

    public func user(id: UserID) throws -> User? {
        try read { db in try Self.user(id: id, in: db) }
    }

    static func user(id: UserID, in db: Database) throws -> User? {
        try db.firstRow("SELECT \(AccountTables.userColumns) FROM users WHERE id = ?", [.id(id)], user)
    }

    /// A user of a row of `AccountTables.userColumns`.
    static func user(_ row: Statement) -> User {
        User(id: row.id(0), email: row.string(1), displayName: row.string(2), createdAt: row.time(3), isAdmin: row.bool(4),
             isDisabled: row.bool(5), mustChangePassword: row.bool(6))
    }

    public func createSession(_ session: Session, tokenHash: String, keepAtMost: Int) async throws {
        try await write { db in
            try Self.insert(session, tokenHash: tokenHash, in: db)
            try db.run("""
                DELETE FROM sessions WHERE user_id = ? AND id NOT IN
                  (SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id LIMIT ?)
                """, [.id(session.userID), .id(session.userID), .int(max(1, keepAtMost))])
        }
    }

    public func session(tokenHash: String) throws -> Session? {
        try read { db in
            // A disabled account's session works no more (`AccountAdministrationStore`).
            try db.firstRow("""
                SELECT \(Self.sessionColumns) FROM sessions WHERE token_hash = ?
                  AND EXISTS (SELECT 1 FROM users u WHERE u.id = sessions.user_id AND u.disabled_at IS NULL)
                """, [.text(tokenHash)], Self.session)
        }
    }

    public func sessions(userID: UserID) throws -> [Session] {
        try read { db in
            try db.rows("SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id",
                        [.id(userID)], Self.session)
        }
    }

    public func touchSession(id: SessionID, at time: Int64) async throws {
        try await write { db in
            try db.run("UPDATE sessions SET last_used_at = max(last_used_at, ?) WHERE id = ?", [.integer(time), .id(id)])
        }
    }

    public func deleteSession(tokenHash: String) async throws -> Bool {
        try await write { db in
            try db.run("DELETE FROM sessions WHERE token_hash = ?", [.text(tokenHash)]) > 0
        }
    }

    public func deleteSession(id: SessionID, userID: UserID) async throws -> Bool {
        try await write { db in
            try db.run("DELETE FROM sessions WHERE id = ? AND user_id = ?", [.id(id), .id(userID)]) > 0
        }
    }

    public func deleteExpiredSessions(createdBefore: Int64, usedBefore: Int64) async throws -> Int {
        try await write { db in
            try db.run("DELETE FROM sessions WHERE created_at < ? OR last_used_at < ?", [.integer(createdBefore), .integer(usedBefore)])
        }
    }

    public func updateDisplayName(userID: UserID, displayName: String) async throws -> User? {
        try await write { db in
            guard try db.run("UPDATE users SET display_name = ? WHERE id = ?", [.text(displayName), .id(userID)]) > 0 else {
                return nil
            }
            return try Self.user(id: userID, in: db)
        }
    }
}
