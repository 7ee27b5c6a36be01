/// A new account as the store inserts it.
public struct NewAccount: Sendable {
    /// The user; `isAdmin` when an administrator asked for one (`fod user add --admin`).
    public let user: User
    /// Its password's Argon2id hash.
    public let passwordHash: String
    /// A first session, signed in at once (sign-up); nil for an account an administrator adds.
    public let session: Session?
    /// The hash of that session's token.
    public let sessionTokenHash: String?

    public init(user: User, passwordHash: String, session: Session? = nil, sessionTokenHash: String? = nil) {
        self.user = user
        self.passwordHash = passwordHash
        self.session = session
        self.sessionTokenHash = sessionTokenHash
    }
}

/// Persistence of the server's administration (API.md, "Accounts, administration and the web
/// app"): who may make an account, administrators, disabled accounts, passwords an
/// administrator set, invite codes and invitations addressed to an email without an account.
///
/// Invariants: invite codes are stored only as hashes and are used up by the account they
/// admit; an invitation by email is kept until its `expiresAt`, and becomes an ordinary
/// invitation of the account made with its email, in that account's transaction; a disabled
/// account has no session and no import token, and the stores' credential lookups
/// (`AccountStore.session(tokenHash:)`, `DirectoryStore.deviceCredential(tokenHash:)`,
/// `ImportTokenStore`) find nothing of it while it stays disabled.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol AccountAdministrationStore: Sendable {
    /// Inserts the account if `admission` admits it, all in one transaction that every other
    /// account creation waits for (on PostgreSQL: on every node): checks the email is free and
    /// the admission (using up the invite code that admits it), inserts the user — an
    /// administrator when asked, or when it is the first account anyone can sign in to — and
    /// its session, and turns the pending invitations by email of its email into invitations
    /// of it. Returns the user as stored.
    /// - Throws: `email_taken` (409), `signup_closed` (403) when `admission` does not admit it.
    func createAccount(_ account: NewAccount, admission: SignUpAdmission, now: Int64) async throws -> User
    /// Whether an account anyone can sign in to (one with a password) exists.
    func hasAccounts() throws -> Bool
    /// Every account, the oldest first.
    func accounts() throws -> [User]
    /// Replaces the user's password hash and sets `mustChangePassword` to `mustChange`; ends every
    /// session of the user but `keepSession` (nil: all of them). Returns false for an unknown user.
    func setPassword(userID: UserID, passwordHash: String, mustChange: Bool, keepSession: SessionID?) async throws -> Bool
    /// Disables the account (at `now`, ms; its sessions and import tokens are deleted with it) or
    /// enables it again. Returns false for an unknown user.
    func setDisabled(userID: UserID, _ disabled: Bool, now: Int64) async throws -> Bool
    /// Makes the user an administrator or takes it back. Returns false for an unknown user.
    func setAdmin(userID: UserID, _ isAdmin: Bool) async throws -> Bool
    /// Stores a new invite code (its hash), usable once until `expiresAt` (ms).
    func insertInviteCode(codeHash: String, createdAt: Int64, expiresAt: Int64) async throws
    /// Deletes the invite codes, invitations by email and import tokens whose `expiresAt` is at or
    /// before `now` (ms); returns how many.
    func deleteExpiredGrants(now: Int64) async throws -> Int
}
