import Tracking

/// Accounts' sign-up rows and sessions (`AccountStore`'s contract), written once for both
/// stores: each runs inside the caller's transaction on `db`.
public enum SessionTables {
    /// The columns `session(_:)` decodes, in its order.
    static let columns = "id, user_id, created_at, last_used_at, client"

    static func session(_ row: any SQLRow) throws -> Session {
        Session(id: try row.id(0), userID: try row.id(1), createdAt: try row.time(2), lastUsedAt: try row.time(3),
                client: try row.optionalText(4))
    }

    /// Inserts the user and their first session. A taken email fails the store's unique
    /// constraint (each store maps its own error to `emailTaken`).
    public static func createUser(_ user: User, passwordHash: String, session: Session, tokenHash: String, on db: some SQLExecutor) throws {
        try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                   [.id(user.id), .text(user.email), .text(user.displayName), .text(passwordHash), .time(user.createdAt)])
        try insert(session, tokenHash: tokenHash, on: db)
    }

    static func insert(_ session: Session, tokenHash: String, on db: some SQLExecutor) throws {
        try db.run("INSERT INTO sessions (token_hash, user_id, created_at, id, last_used_at, client) VALUES (?, ?, ?, ?, ?, ?)",
                   [.text(tokenHash), .id(session.userID), .time(session.createdAt), .id(session.id),
                    .time(session.lastUsedAt), .optional(session.client)])
    }

    /// Inserts the session and keeps the user's `keepAtMost` (at least 1) newest.
    public static func createSession(_ session: Session, tokenHash: String, keepAtMost: Int, on db: some SQLExecutor) throws {
        try insert(session, tokenHash: tokenHash, on: db)
        let user = SQLParameter.id(session.userID)
        try db.run("""
            DELETE FROM sessions WHERE user_id = ? AND id NOT IN
              (SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id LIMIT ?)
            """, [user, user, .int(max(1, keepAtMost))])
    }

    public static func userWithPasswordHash(email: String, on db: some SQLExecutor) throws -> (User, String)? {
        try db.firstRow("SELECT \(AccountTables.userColumns), password_hash FROM users WHERE email = ?", [.text(email)]) { row in
            (try AccountTables.user(row), try row.text(7))
        }
    }

    /// The session of a token; nil for an unknown token and for a disabled account's (it works
    /// no more: `AccountAdministrationStore`).
    public static func session(tokenHash: String, on db: some SQLExecutor) throws -> Session? {
        try db.firstRow("""
            SELECT \(columns) FROM sessions WHERE token_hash = ?
              AND EXISTS (SELECT 1 FROM users u WHERE u.id = sessions.user_id AND u.disabled_at IS NULL)
            """, [.text(tokenHash)], session)
    }

    /// The user's sessions, newest first.
    public static func sessions(userID: UserID, on db: some SQLExecutor) throws -> [Session] {
        try db.rows("SELECT \(columns) FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id", [.id(userID)], session)
    }

    /// Moves the session's last use to `time`, never back.
    public static func touchSession(id: SessionID, at time: Int64, on db: some SQLExecutor) throws {
        try db.run("UPDATE sessions SET last_used_at = \(db.dialect.greatest)(last_used_at, ?) WHERE id = ?", [.integer(time), .id(id)])
    }

    public static func deleteSession(tokenHash: String, on db: some SQLExecutor) throws -> Bool {
        try db.run("DELETE FROM sessions WHERE token_hash = ?", [.text(tokenHash)]) > 0
    }

    public static func deleteSession(id: SessionID, userID: UserID, on db: some SQLExecutor) throws -> Bool {
        try db.run("DELETE FROM sessions WHERE id = ? AND user_id = ?", [.id(id), .id(userID)]) > 0
    }

    public static func deleteExpiredSessions(createdBefore: Int64, usedBefore: Int64, on db: some SQLExecutor) throws -> Int {
        try db.run("DELETE FROM sessions WHERE created_at < ? OR last_used_at < ?", [.integer(createdBefore), .integer(usedBefore)])
    }

    /// The user as renamed; nil when there is no such user.
    public static func updateDisplayName(userID: UserID, displayName: String, on db: some SQLExecutor) throws -> User? {
        try db.firstRow("UPDATE users SET display_name = ? WHERE id = ? RETURNING \(AccountTables.userColumns)",
                        [.text(displayName), .id(userID)], AccountTables.user)
    }
}

/// `AccountStore` over `SessionTables`, but for `createUser` (each store maps its own unique
/// violation): a store gets it by declaring its conformance.
extension SQLStatementReads {
    public func userWithPasswordHash(email: String) throws -> (User, String)? {
        try readSQLStatement { try SessionTables.userWithPasswordHash(email: email, on: $0) }
    }

    public func user(id: UserID) throws -> User? {
        try readSQLStatement { try DirectoryTables.user(id: id, on: $0) }
    }

    public func createSession(_ session: Session, tokenHash: String, keepAtMost: Int) async throws {
        try await writeSQL { try SessionTables.createSession(session, tokenHash: tokenHash, keepAtMost: keepAtMost, on: $0) }
    }

    public func session(tokenHash: String) throws -> Session? {
        try readSQLStatement { try SessionTables.session(tokenHash: tokenHash, on: $0) }
    }

    public func sessions(userID: UserID) throws -> [Session] {
        try readSQLStatement { try SessionTables.sessions(userID: userID, on: $0) }
    }

    public func touchSession(id: SessionID, at time: Int64) async throws {
        try await writeSQL { try SessionTables.touchSession(id: id, at: time, on: $0) }
    }

    public func deleteSession(tokenHash: String) async throws -> Bool {
        try await writeSQL { try SessionTables.deleteSession(tokenHash: tokenHash, on: $0) }
    }

    public func deleteSession(id: SessionID, userID: UserID) async throws -> Bool {
        try await writeSQL { try SessionTables.deleteSession(id: id, userID: userID, on: $0) }
    }

    public func deleteExpiredSessions(createdBefore: Int64, usedBefore: Int64) async throws -> Int {
        try await writeSQL { try SessionTables.deleteExpiredSessions(createdBefore: createdBefore, usedBefore: usedBefore, on: $0) }
    }

    public func updateDisplayName(userID: UserID, displayName: String) async throws -> User? {
        try await writeSQL { try SessionTables.updateDisplayName(userID: userID, displayName: displayName, on: $0) }
    }
}
