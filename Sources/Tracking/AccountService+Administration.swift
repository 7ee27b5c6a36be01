import Crypto
import Timestamps

/// Passwords and the server's administration (API.md, "Accounts, administration and the web
/// app"): what `PUT /v1/me/password`, `GET /v1/server`, `POST /v1/admin/invites` and the
/// `fod user` commands do.
///
/// An administrator is an account like any other for the partition rules (it reads nobody's
/// locations); what it adds is making invite codes. The server's operator, who runs `fod user`
/// on its data, can do everything here.
extension AccountService {
    /// Invite codes start with this.
    public static let inviteCodePrefix = "fodc_"
    /// Lifetimes an invite code may be given (seconds): a minute to 90 days.
    public static let inviteCodeLifetimes: ClosedRange<Int64> = 60...(90 * 86_400)

    /// The sign-up policy in force now (`SignUpPolicy.effective`).
    public func signUpPolicy() throws -> SignUpPolicy {
        if let configured = policy.signUp { return configured }
        return SignUpPolicy.effective(nil, hasAccounts: try store.hasAccounts())
    }

    /// Changes the caller's password. The current one is checked like a sign-in (the same limits,
    /// and a wrong one counts as a failed sign-in of the account, so this cannot be used to guess
    /// it); then every session of the user but `keepSession` (the caller's) ends.
    /// - Throws: `invalid_password` (400) for a new password that is not 8 to 256 characters,
    ///   `invalid_credentials` (401) for a wrong current password, `rate_limited` (429), `busy` (503).
    public func changePassword(userID: UserID, keepSession: SessionID?, current: String, new: String, clientAddress: String,
                               now: Int64 = Timestamp.nowMilliseconds()) async throws {
        try Validate.password(new, field: "newPassword")
        let user = try user(id: userID)
        _ = try await verifiedUser(email: user.email, password: current, clientAddress: clientAddress, now: now,
                                   wrong: "the current password is wrong")
        let hash = try await hashing.run { [hasher] in try hasher.hash(new) }
        guard try await store.setPassword(userID: userID, passwordHash: hash, mustChange: false, keepSession: keepSession) else {
            throw TrackingError.unauthenticated
        }
    }

    /// Adds an account whatever the sign-up policy (an administrator's act: `fod user add`). With
    /// no `password` one is made and returned, shown once, and the user is asked to choose their
    /// own (`User.mustChangePassword`). The first account anyone can sign in to is an
    /// administrator whatever `isAdmin` says.
    /// - Throws: invalid input (400), `email_taken` (409).
    public func addAccount(email rawEmail: String, displayName rawName: String, password: String?, isAdmin: Bool) async throws
        -> (user: User, password: String?) {
        let email = try Validate.email(rawEmail)
        let displayName = try Validate.displayName(rawName)
        if let password { try Validate.password(password) }
        let chosen = password ?? Self.newPassword()
        let hash = try await hashing.run { [hasher] in try hasher.hash(chosen) }
        let now = Timestamp.nowMilliseconds()
        let draft = User(id: UserID.generate(), email: email, displayName: displayName, createdAt: Timestamp(millisecondsSince1970: now),
                         isAdmin: isAdmin, mustChangePassword: password == nil)
        let user = try await store.createAccount(NewAccount(user: draft, passwordHash: hash), admission: .anyone, now: now)
        return (user, password == nil ? chosen : nil)
    }

    /// Gives the account a new password, made here and returned (shown once), ends all of its
    /// sessions, and asks the user to choose their own (`User.mustChangePassword`).
    /// - Throws: 404 for an unknown user.
    public func resetPassword(userID: UserID) async throws -> String {
        let password = Self.newPassword()
        let hash = try await hashing.run { [hasher] in try hasher.hash(password) }
        guard try await store.setPassword(userID: userID, passwordHash: hash, mustChange: true, keepSession: nil) else {
            throw TrackingError.notFound("user")
        }
        return password
    }

    /// Disables the account (its sessions and import tokens end; sign-in, its device tokens and
    /// new sessions are refused while it stays so) or enables it again. 404 for an unknown user.
    public func setDisabled(userID: UserID, _ disabled: Bool) async throws {
        guard try await store.setDisabled(userID: userID, disabled, now: Timestamp.nowMilliseconds()) else {
            throw TrackingError.notFound("user")
        }
    }

    /// Makes the user an administrator or takes it back. 404 for an unknown user.
    public func setAdmin(userID: UserID, _ isAdmin: Bool) async throws {
        guard try await store.setAdmin(userID: userID, isAdmin) else { throw TrackingError.notFound("user") }
    }

    /// Every account, the oldest first.
    public func accounts() throws -> [User] {
        try store.accounts()
    }

    /// A new invite code (shown once, stored hashed), usable once within `lifetimeSeconds`
    /// (default `Policy.inviteCodeSeconds`). For the server's operator (`fod user invite`).
    /// - Throws: `invalid_expiry` (400) for a lifetime outside `inviteCodeLifetimes`.
    public func makeInviteCode(lifetimeSeconds: Int64? = nil) async throws -> (code: String, expiresAt: Timestamp) {
        let lifetime = lifetimeSeconds ?? policy.inviteCodeSeconds
        guard Self.inviteCodeLifetimes.contains(lifetime) else {
            throw TrackingError.invalid("expiresIn must be \(Self.inviteCodeLifetimes.lowerBound) to \(Self.inviteCodeLifetimes.upperBound) seconds",
                                        code: .invalidExpiry)
        }
        let code = Secrets.newToken(prefix: Self.inviteCodePrefix)
        let now = Timestamp.nowMilliseconds()
        let expiresAt = now + lifetime * 1000
        try await store.insertInviteCode(codeHash: Secrets.tokenHash(code), createdAt: now, expiresAt: expiresAt)
        return (code, Timestamp(millisecondsSince1970: expiresAt))
    }

    /// `makeInviteCode` for a signed-in user, who must be an administrator (403 otherwise).
    public func makeInviteCode(by userID: UserID, lifetimeSeconds: Int64?) async throws -> (code: String, expiresAt: Timestamp) {
        guard try user(id: userID).isAdmin else {
            throw TrackingError.forbidden("only an administrator makes invite codes: cannot write partition server")
        }
        return try await makeInviteCode(lifetimeSeconds: lifetimeSeconds)
    }

    /// Deletes expired invite codes, invitations by email and import tokens (a background job);
    /// returns how many.
    public func purgeExpiredGrants(now: Int64 = Timestamp.nowMilliseconds()) async throws -> Int {
        try await store.deleteExpiredGrants(now: now)
    }

    /// A password made for someone (120 random bits, 20 characters of base64url).
    static func newPassword() -> String {
        Base64URL.encode(Secrets.randomBytes(15))
    }
}
