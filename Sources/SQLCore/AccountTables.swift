import Timestamps
import Tracking

/// The administration's statements, written once for both stores
/// (`AccountAdministrationStore`'s and `ImportTokenStore`'s contracts, and the directory's
/// invitations by email): each runs inside the caller's transaction on `db`.
///
/// Tables (each store's schema makes them, `AccountTables.schema`): `users` (with `is_admin`,
/// `disabled_at`, `must_change_password`), `invite_codes`, `email_invitations`, `import_tokens`.
public enum AccountTables {
    /// The columns `user(_:)` decodes, in its order.
    public static let userColumns = "id, email, display_name, created_at, is_admin, disabled_at IS NOT NULL, must_change_password"

    public static func user(_ row: any SQLRow) throws -> User {
        User(id: UserID(try row.text(0)), email: try row.text(1), displayName: try row.text(2),
             createdAt: Timestamp(millisecondsSince1970: try row.int64(3)), isAdmin: try row.bool(4), isDisabled: try row.bool(5),
             mustChangePassword: try row.bool(6))
    }

    /// The condition of an account anyone can sign in to: one whose password hash is an Argon2
    /// string (`AccountService.ensureAccountWithoutPassword` stores one that is not).
    static let hasPassword = "password_hash LIKE '$argon2%'"

    /// Statements that make an account hold this lock first on PostgreSQL (a transaction-level
    /// advisory lock, released at commit): whether an account is the first, and whether its email
    /// is free, are then decided for every node one account at a time. The key is the ASCII of
    /// "fodsignu" (any fixed number would do; it must only differ from the other locks' keys).
    public static let accountCreationLockKey: Int64 = 0x666f_6473_6967_6e75

    // MARK: Accounts

    public static func createAccount(_ account: NewAccount, admission: SignUpAdmission, now: Int64, on db: some SQLExecutor) throws -> User {
        if db.dialect == .postgres {
            _ = try db.rows("SELECT pg_advisory_xact_lock(?)", [.integer(accountCreationLockKey)]) { _ in true }
        }
        var user = account.user
        guard try db.firstRow("SELECT 1 FROM users WHERE email = ?", [.text(user.email)], { _ in true }) == nil else {
            throw TrackingError.conflict("an account with this email already exists", code: .emailTaken)
        }
        let first = try !hasAccounts(on: db)
        switch admission {
        case .anyone: break
        case .firstOrInvited(let code): if !first { try admitInvited(email: user.email, inviteCodeHash: code, now: now, on: db) }
        case .invited(let code): try admitInvited(email: user.email, inviteCodeHash: code, now: now, on: db)
        }
        user.isAdmin = user.isAdmin || first
        try db.run("""
            INSERT INTO users (id, email, display_name, password_hash, created_at, is_admin, must_change_password)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(user.id.rawValue), .text(user.email), .text(user.displayName), .text(account.passwordHash),
                  .integer(user.createdAt.millisecondsSince1970), .bool(user.isAdmin), .bool(user.mustChangePassword)])
        if let session = account.session, let tokenHash = account.sessionTokenHash {
            try db.run("INSERT INTO sessions (token_hash, user_id, created_at, id, last_used_at, client) VALUES (?, ?, ?, ?, ?, ?)",
                       [.text(tokenHash), .text(user.id.rawValue), .integer(session.createdAt.millisecondsSince1970),
                        .text(session.id.rawValue), .integer(session.lastUsedAt.millisecondsSince1970), .optional(session.client)])
        }
        try db.run("""
            INSERT INTO invitations (group_id, invitee_id, sender_id, created_at)
            SELECT group_id, ?, sender_id, created_at FROM email_invitations WHERE email = ? AND expires_at > ?
            """, [.text(user.id.rawValue), .text(user.email), .integer(now)])
        try db.run("DELETE FROM email_invitations WHERE email = ?", [.text(user.email)])
        return user
    }

    /// Admits an invited account: its email holds an unexpired invitation by email, or it brings
    /// an unexpired invite code, which it uses up. Throws `signup_closed` otherwise.
    static func admitInvited(email: String, inviteCodeHash: String?, now: Int64, on db: some SQLExecutor) throws {
        if try db.firstRow("SELECT 1 FROM email_invitations WHERE email = ? AND expires_at > ?", [.text(email), .integer(now)], { _ in true }) != nil {
            return
        }
        if let inviteCodeHash, try db.run("DELETE FROM invite_codes WHERE code_hash = ? AND expires_at > ?", [.text(inviteCodeHash), .integer(now)]) > 0 {
            return
        }
        throw TrackingError.signUpClosed(.invite)
    }

    public static func hasAccounts(on db: some SQLExecutor) throws -> Bool {
        try db.firstRow("SELECT 1 FROM users WHERE \(hasPassword) LIMIT 1", [], { _ in true }) ?? false
    }

    public static func accounts(on db: some SQLExecutor) throws -> [User] {
        try db.rows("SELECT \(userColumns) FROM users ORDER BY created_at, id", [], user)
    }

    public static func setPassword(userID: UserID, passwordHash: String, mustChange: Bool, keepSession: SessionID?,
                                   on db: some SQLExecutor) throws -> Bool {
        guard try db.run("UPDATE users SET password_hash = ?, must_change_password = ? WHERE id = ?",
                         [.text(passwordHash), .bool(mustChange), .text(userID.rawValue)]) > 0 else { return false }
        try db.run("DELETE FROM sessions WHERE user_id = ? AND id <> ?", [.text(userID.rawValue), .text(keepSession?.rawValue ?? "")])
        return true
    }

    public static func setDisabled(userID: UserID, _ disabled: Bool, now: Int64, on db: some SQLExecutor) throws -> Bool {
        let user = SQLParameter.text(userID.rawValue)
        guard disabled else { return try db.run("UPDATE users SET disabled_at = NULL WHERE id = ?", [user]) > 0 }
        guard try db.run("UPDATE users SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?", [.integer(now), user]) > 0 else { return false }
        try db.run("DELETE FROM sessions WHERE user_id = ?", [user])
        try db.run("DELETE FROM import_tokens WHERE device_id IN (SELECT id FROM devices WHERE owner_id = ?)", [user])
        return true
    }

    public static func setAdmin(userID: UserID, _ isAdmin: Bool, on db: some SQLExecutor) throws -> Bool {
        try db.run("UPDATE users SET is_admin = ? WHERE id = ?", [.bool(isAdmin), .text(userID.rawValue)]) > 0
    }

    public static func insertInviteCode(codeHash: String, createdAt: Int64, expiresAt: Int64, on db: some SQLExecutor) throws {
        try db.run("INSERT INTO invite_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?)",
                   [.text(codeHash), .integer(createdAt), .integer(expiresAt)])
    }

    public static func deleteExpiredGrants(now: Int64, on db: some SQLExecutor) throws -> Int {
        try ["invite_codes", "email_invitations", "import_tokens"].reduce(0) { count, table in
            count + (try db.run("DELETE FROM \(table) WHERE expires_at <= ?", [.integer(now)]))
        }
    }

    // MARK: Invitations by email

    public static func hasEmailInvitation(groupID: GroupID, email: String, now: Int64, on db: some SQLExecutor) throws -> Bool {
        try db.firstRow("SELECT 1 FROM email_invitations WHERE group_id = ? AND email = ? AND expires_at > ?",
                        [.text(groupID.rawValue), .text(email), .integer(now)], { _ in true }) ?? false
    }

    public static func insertEmailInvitation(groupID: GroupID, email: String, senderID: UserID, at time: Int64, expiresAt: Int64,
                                             on db: some SQLExecutor) throws {
        try db.run("""
            INSERT INTO email_invitations (group_id, email, sender_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (group_id, email) DO UPDATE SET sender_id = excluded.sender_id, created_at = excluded.created_at,
                expires_at = excluded.expires_at
            """, [.text(groupID.rawValue), .text(email), .text(senderID.rawValue), .integer(time), .integer(expiresAt)])
    }

    // MARK: Import tokens

    public static func insertImportToken(tokenHash: String, deviceID: DeviceID, ownerID: UserID, createdAt: Int64, expiresAt: Int64,
                                         keepPerDevice: Int, on db: some SQLExecutor) throws -> Bool {
        let device = SQLParameter.text(deviceID.rawValue)
        guard try db.run("""
            INSERT INTO import_tokens (token_hash, device_id, created_at, expires_at)
            SELECT ?, d.id, ?, ? FROM devices d JOIN users u ON u.id = d.owner_id
            WHERE d.id = ? AND d.owner_id = ? AND u.disabled_at IS NULL
            """, [.text(tokenHash), .integer(createdAt), .integer(expiresAt), device, .text(ownerID.rawValue)]) > 0 else { return false }
        try db.run("DELETE FROM import_tokens WHERE device_id = ? AND expires_at <= ?", [device, .integer(createdAt)])
        try db.run("""
            DELETE FROM import_tokens WHERE device_id = ? AND token_hash NOT IN
              (SELECT token_hash FROM import_tokens WHERE device_id = ? ORDER BY created_at DESC, token_hash LIMIT ?)
            """, [device, device, .integer(Int64(max(1, keepPerDevice)))])
        return true
    }

    public static func importTokenDevice(tokenHash: String, now: Int64, on db: some SQLExecutor) throws -> (DeviceID, UserID)? {
        try db.firstRow("""
            SELECT t.device_id, d.owner_id FROM import_tokens t JOIN devices d ON d.id = t.device_id JOIN users u ON u.id = d.owner_id
            WHERE t.token_hash = ? AND t.expires_at > ? AND u.disabled_at IS NULL
            """, [.text(tokenHash), .integer(now)]) { (DeviceID(try $0.text(0)), UserID(try $0.text(1))) }
    }

    public static func redeemImportToken(tokenHash: String, deviceID: DeviceID, now: Int64, on db: some SQLExecutor) throws -> UserID? {
        guard let owner = try db.firstRow("""
            SELECT d.owner_id FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.id = ? AND u.disabled_at IS NULL
            """, [.text(deviceID.rawValue)], { UserID(try $0.text(0)) }) else { return nil }
        guard try db.run("DELETE FROM import_tokens WHERE token_hash = ? AND device_id = ? AND expires_at > ?",
                         [.text(tokenHash), .text(deviceID.rawValue), .integer(now)]) > 0 else { return nil }
        return owner
    }
}
