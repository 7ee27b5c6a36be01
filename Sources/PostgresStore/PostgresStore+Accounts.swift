import PostgresClient
import SQLCore
import Tracking

/// Administrators, invite codes, invitations by email and import tokens: `SQLCore.AccountTables`,
/// written once for both stores.
extension PostgresStore: AccountAdministrationStore, ImportTokenStore {}

extension PostgresStore: AccountStore {
    public func createUser(_ user: User, passwordHash: String, session: Session, tokenHash: String) async throws {
        do {
            try await write { c in
                try c.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
                          [.id(user.id), .text(user.email), .text(user.displayName), .text(passwordHash), .time(user.createdAt)])
                try Self.insert(session, tokenHash: tokenHash, on: c)
            }
        } catch let error as PostgresError where error.isUniqueViolation && error.constraint == "users_email_key" {
            throw TrackingError.conflict("an account with this email already exists", code: .emailTaken)
        }
    }

    static func insert(_ session: Session, tokenHash: String, on c: Connection) throws {
        try c.run("INSERT INTO sessions (token_hash, user_id, created_at, id, last_used_at, client) VALUES ($1, $2, $3, $4, $5, $6)",
                  [.text(tokenHash), .id(session.userID), .time(session.createdAt), .id(session.id),
                   .time(session.lastUsedAt), .optional(session.client)])
    }

    static let sessionColumns = "id, user_id, created_at, last_used_at, client"

    static func session(_ row: Row) throws -> Session {
        Session(id: try row.id(0), userID: try row.id(1), createdAt: try row.time(2), lastUsedAt: try row.time(3),
                client: try row.optionalText(4))
    }

    /// A user of a row of `AccountTables.userColumns`.
    static func user(_ row: Row) throws -> User {
        User(id: try row.id(0), email: try row.text(1), displayName: try row.text(2), createdAt: try row.time(3),
             isAdmin: try row.bool(4), isDisabled: try row.bool(5), mustChangePassword: try row.bool(6))
    }

    static func user(id: UserID, on c: Connection) throws -> User? {
        try c.firstRow("SELECT \(AccountTables.userColumns) FROM users WHERE id = $1", [.id(id)], user)
    }

    public func userWithPasswordHash(email: String) throws -> (User, String)? {
        try read { c in
            try c.firstRow("SELECT \(AccountTables.userColumns), password_hash FROM users WHERE email = $1", [.text(email)]) { row in
                (try Self.user(row), try row.text(7))
            }
        }
    }

    public func user(id: UserID) throws -> User? {
        try read { try Self.user(id: id, on: $0) }
    }

    public func createSession(_ session: Session, tokenHash: String, keepAtMost: Int) async throws {
        try await write { c in
            try Self.insert(session, tokenHash: tokenHash, on: c)
            try c.run("""
                DELETE FROM sessions WHERE user_id = $1 AND id NOT IN
                  (SELECT id FROM sessions WHERE user_id = $1 ORDER BY created_at DESC, id LIMIT $2)
                """, [.id(session.userID), .int(max(1, keepAtMost))])
        }
    }

    public func session(tokenHash: String) throws -> Session? {
        try read { c in
            // A disabled account's session works no more (`AccountAdministrationStore`).
            try c.firstRow("""
                SELECT \(Self.sessionColumns) FROM sessions WHERE token_hash = $1
                  AND EXISTS (SELECT 1 FROM users u WHERE u.id = sessions.user_id AND u.disabled_at IS NULL)
                """, [.text(tokenHash)], Self.session)
        }
    }

    public func sessions(userID: UserID) throws -> [Session] {
        try read { c in
            try c.rows("SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = $1 ORDER BY created_at DESC, id",
                       [.id(userID)], Self.session)
        }
    }

    public func touchSession(id: SessionID, at time: Int64) async throws {
        try await write { c in
            try c.run("UPDATE sessions SET last_used_at = greatest(last_used_at, $1) WHERE id = $2", [.int64(time), .id(id)])
        }
    }

    public func deleteSession(tokenHash: String) async throws -> Bool {
        try await write { c in try c.run("DELETE FROM sessions WHERE token_hash = $1", [.text(tokenHash)]) > 0 }
    }

    public func deleteSession(id: SessionID, userID: UserID) async throws -> Bool {
        try await write { c in try c.run("DELETE FROM sessions WHERE id = $1 AND user_id = $2", [.id(id), .id(userID)]) > 0 }
    }

    public func deleteExpiredSessions(createdBefore: Int64, usedBefore: Int64) async throws -> Int {
        try await write { c in
            try c.run("DELETE FROM sessions WHERE created_at < $1 OR last_used_at < $2", [.int64(createdBefore), .int64(usedBefore)])
        }
    }

    public func updateDisplayName(userID: UserID, displayName: String) async throws -> User? {
        try await write { c in
            try c.firstRow("UPDATE users SET display_name = $1 WHERE id = $2 RETURNING \(AccountTables.userColumns)",
                           [.text(displayName), .id(userID)], Self.user)
        }
    }
}
