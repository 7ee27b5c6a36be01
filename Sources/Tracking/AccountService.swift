import Crypto
import Synchronization
import Timestamps

/// Sign-up, sign-in, sessions, profile and account deletion, and turning user tokens into
/// credentials.
///
/// Invariants: a password is never stored, only its Argon2id hash; a token is shown once and
/// stored only as a hash; unknown email and wrong password fail with the same error and take
/// the same time (a dummy hash is verified for unknown emails).
///
/// Abuse limits (`Policy`): hashing runs on a few dedicated threads with a bounded queue (a
/// flood gets 503, never starves other requests); sign-ups are limited per client address;
/// sign-ins per (address, account) pair, per address, and per account by `SignInThrottle` —
/// at most 100 consecutive failures a day from all addresses together, in a way that leaves
/// the owner's known addresses able to sign in (see `signIn`); sessions expire after an idle
/// and an absolute lifetime.
public final class AccountService: Sendable {
    /// User tokens start with this; device tokens with `DeviceTokens.prefix`.
    public static let userTokenPrefix = "fodu_"
    /// A session's last use is written at most this often (ms).
    public static let touchInterval: Int64 = 60_000

    /// The account rules that are settings.
    public struct Policy: Sendable {
        public var passwordCost = PasswordHasher.Cost.interactive
        /// Sign-ups one client address may make per hour.
        public var signUpsPerAddressPerHour = 20
        /// Sign-in attempts per minute for one (client address, email) pair.
        public var signInsPerAccountAndAddressPerMinute = 10
        /// Sign-in attempts per minute from one client address, whatever the emails.
        public var signInsPerAddressPerMinute = 60
        /// Failed sign-ins per account, whatever the addresses (docs/security.md).
        public var signInThrottle = SignInThrottle()
        /// A session unused this long stops working (ms; default 30 days).
        public var sessionIdleMilliseconds: Int64 = 30 * 86_400_000
        /// A session stops working this long after sign-in, used or not (ms; default 180 days).
        public var sessionLifetimeMilliseconds: Int64 = 180 * 86_400_000
        /// Most sessions a user holds; signing in again drops the oldest.
        public var sessionsPerUser = 50
        /// Threads hashing passwords (each Argon2id hash at interactive cost takes 64 MiB).
        public var hashingThreads = 2
        /// Hashes that may wait for a thread before sign-ups and sign-ins get 503.
        public var hashingQueue = 32
        /// Who may sign up (`--signup`); nil: the default, `open` while the server has no account
        /// anyone can sign in to (whose first account becomes the administrator), then `invite`.
        public var signUp: SignUpPolicy?
        /// How long an invite code made without a lifetime works (seconds; default 7 days).
        public var inviteCodeSeconds: Int64 = 7 * 86_400
        public init() {}
    }

    let store: any AccountStore & SignInRecordStore & AccountAdministrationStore
    let directory: any DirectoryStore
    public let policy: Policy
    let hasher: PasswordHasher
    let limits: any LimitCounters
    let signUps: WindowLimit
    let signInsByPair: WindowLimit
    let signInsByAddress: WindowLimit
    /// Where passwords are hashed (the server's threads).
    let hashing: any BlockingWorkRunner
    let dummyHash: String
    /// When each session's last use was last written (ms), so a busy session writes once a minute.
    let touched = Mutex<[SessionID: Int64]>([:])
    /// Writes of last use still running (awaited by `waitForRecordedUses`).
    let touches = Mutex<[Task<Void, Never>]>([])

    /// - Parameters:
    ///   - hashing: where passwords are hashed: threads of the server's, with a bounded queue
    ///     (`policy.hashingThreads`, `policy.hashingQueue` say how many).
    ///   - limits: where sign-ups and sign-ins are counted (the store's counters, so that every
    ///     node on a shared database counts alike).
    public init(store: any AccountStore & SignInRecordStore & AccountAdministrationStore, directory: any DirectoryStore, policy: Policy = Policy(),
                hashing: any BlockingWorkRunner, limits: any LimitCounters = LocalLimitCounters()) throws {
        self.store = store
        self.directory = directory
        self.policy = policy
        self.hasher = PasswordHasher(cost: policy.passwordCost)
        self.limits = limits
        self.signUps = WindowLimit(scope: "sign-ups", limit: policy.signUpsPerAddressPerHour, windowMilliseconds: 3_600_000)
        self.signInsByPair = WindowLimit(scope: "sign-ins-by-account-and-address", limit: policy.signInsPerAccountAndAddressPerMinute,
                                         windowMilliseconds: 60_000)
        self.signInsByAddress = WindowLimit(scope: "sign-ins-by-address", limit: policy.signInsPerAddressPerMinute, windowMilliseconds: 60_000)
        self.hashing = hashing
        self.dummyHash = try hasher.hash(Base64URL.encode(Secrets.randomBytes(16)))
    }

    /// Creates an account and signs it in, if the sign-up policy admits it (`SignUpPolicy`;
    /// `inviteCode` is an invite code an administrator made, used up by this account);
    /// `clientAddress` becomes known to it (`signIn`). The first account of a server on the
    /// default policy is its administrator.
    /// - Throws: invalid input (400), `signup_closed` (403) when the policy refuses it,
    ///   `email_taken` conflict (409), `rate_limited` (429) past the per-address limit, `busy`
    ///   (503) when too many hashes wait.
    public func signUp(email rawEmail: String, password: String, displayName rawName: String, inviteCode: String? = nil,
                       clientAddress: String = "", client: String? = nil) async throws -> SignedIn {
        let email = try Validate.email(rawEmail)
        try Validate.password(password)
        let displayName = try Validate.displayName(rawName)
        let admission: SignUpAdmission
        let codeHash = inviteCode.flatMap { $0.utf8.count < 200 ? Secrets.tokenHash($0) : nil }
        switch policy.signUp {
        case .closed?: throw TrackingError.signUpClosed(.closed)
        case .open?: admission = .anyone
        case .invite?: admission = .invited(inviteCodeHash: codeHash)
        case nil: admission = .firstOrInvited(inviteCodeHash: codeHash)
        }
        let now = Timestamp.nowMilliseconds()
        if let wait = try limits.attempt(signUps, key: clientAddress, now: now) { throw TrackingError.rateLimited(retryAfter: wait) }
        let hash = try await hashing.run { [hasher] in try hasher.hash(password) }
        let draft = User(id: UserID.generate(), email: email, displayName: displayName, createdAt: Timestamp(millisecondsSince1970: now))
        let (token, session) = Self.newSession(userID: draft.id, at: draft.createdAt, client: client)
        let user = try await store.createAccount(NewAccount(user: draft, passwordHash: hash, session: session,
                                                            sessionTokenHash: Secrets.tokenHash(token)),
                                                 admission: admission, now: now)
        // Signing up proves the password like a sign-in: the address becomes known to the account.
        // The account exists by now; should this fail, the address is merely not known yet.
        try? await store.recordSignInSuccess(accountKey: Self.signInAccountKey(email: email), userID: user.id,
                                            addressKey: Self.signInAddressKey(clientAddress, userID: user.id), now: now,
                                            keep: policy.signInThrottle.knownAddressesPerAccount)
        return SignedIn(user: user, token: token, session: session)
    }

    /// Creates an account nobody can sign in to (no password), for fleet devices that have no
    /// person behind them, such as the demo's vessels. Returns the existing one if the email is taken.
    public func ensureAccountWithoutPassword(email rawEmail: String, displayName rawName: String) async throws -> User {
        let email = try Validate.email(rawEmail)
        if let (existing, _) = try store.userWithPasswordHash(email: email) { return existing }
        let user = User(id: UserID.generate(), email: email, displayName: try Validate.displayName(rawName),
                        createdAt: .now)
        // "!" is never a valid Argon2 string, so verification always fails; the session's token
        // is thrown away at once.
        let (token, session) = Self.newSession(userID: user.id, at: user.createdAt, client: nil)
        try await store.createUser(user, passwordHash: "!no-password", session: session, tokenHash: Secrets.tokenHash("x_" + token))
        return user
    }

    /// The user with `email`, if any.
    public func user(email rawEmail: String) throws -> User? {
        try store.userWithPasswordHash(email: Validate.normalizedEmail(rawEmail))?.0
    }

    static func newSession(userID: UserID, at time: Timestamp, client: String?) -> (token: String, session: Session) {
        let token = Secrets.newToken(prefix: userTokenPrefix)
        return (token, Session(id: SessionID.generate(), userID: userID, createdAt: time, lastUsedAt: time,
                               client: client.flatMap(Self.clientLabel)))
    }

    /// A User-Agent as stored: printable ASCII, at most 120 characters (nil when nothing is left).
    static func clientLabel(_ raw: String) -> String? {
        let kept = String(String.UnicodeScalarView(raw.unicodeScalars.filter { (0x20...0x7e).contains($0.value) }).prefix(120))
        return kept.isEmpty ? nil : kept
    }

    /// Ends the session of `token`; it stops working at once.
    public func signOut(token: String) async throws {
        guard token.hasPrefix(Self.userTokenPrefix), try await store.deleteSession(tokenHash: Secrets.tokenHash(token)) else {
            throw TrackingError.unauthenticated
        }
    }

    /// The live session of a user token, or nil when the token is unknown, signed out or
    /// expired. Records the use (at most once a minute per session, after the reply).
    public func session(forUserToken token: String, now: Int64 = Timestamp.nowMilliseconds()) throws -> Session? {
        guard token.hasPrefix(Self.userTokenPrefix), token.utf8.count < 200,
              let session = try store.session(tokenHash: Secrets.tokenHash(token)) else { return nil }
        guard !isExpired(session, now: now) else { return nil }
        let due = touched.withLock { table -> Bool in
            let last = max(table[session.id] ?? 0, session.lastUsedAt.millisecondsSince1970)
            guard now - last >= Self.touchInterval else { return false }
            if table.count > 100_000 { table.removeAll() }
            table[session.id] = now
            return true
        }
        if due {
            let store = self.store
            let task = Task<Void, Never> { _ = try? await store.touchSession(id: session.id, at: now) }
            touches.withLock { running in
                if running.count >= 64 { running.removeAll { $0.isCancelled } }
                running.append(task)
                if running.count > 256 { running.removeFirst(running.count - 256) }
            }
        }
        return session
    }

    /// Waits until the last uses recorded so far are written (for tests and shutdown).
    public func waitForRecordedUses() async {
        let running = touches.withLock { running in defer { running = [] }; return running }
        for task in running { await task.value }
    }

    /// The user of a user token, or nil when the token is unknown, signed out or expired.
    public func userID(forUserToken token: String) throws -> UserID? {
        try session(forUserToken: token)?.userID
    }

    func isExpired(_ session: Session, now: Int64) -> Bool {
        let time = Timestamp(millisecondsSince1970: now)
        return time.milliseconds(since: session.lastUsedAt) > policy.sessionIdleMilliseconds
            || time.milliseconds(since: session.createdAt) > policy.sessionLifetimeMilliseconds
    }

    /// The user's sessions that still work, newest first.
    public func sessions(userID: UserID) throws -> [Session] {
        let now = Timestamp.nowMilliseconds()
        return try store.sessions(userID: userID).filter { !isExpired($0, now: now) }
    }

    /// Revokes one of the user's sessions (404 for anyone else's).
    public func revokeSession(id: SessionID, userID: UserID) async throws {
        guard try await store.deleteSession(id: id, userID: userID) else { throw TrackingError.notFound("session") }
    }

    /// Deletes expired sessions (a background job); returns how many.
    public func purgeExpiredSessions(now: Int64 = Timestamp.nowMilliseconds()) async throws -> Int {
        try await store.deleteExpiredSessions(createdBefore: now - policy.sessionLifetimeMilliseconds,
                                              usedBefore: now - policy.sessionIdleMilliseconds)
    }

    public func user(id: UserID) throws -> User {
        guard let user = try store.user(id: id) else { throw TrackingError.unauthenticated }
        return user
    }

    public func updateDisplayName(userID: UserID, to rawName: String) async throws -> User {
        let name = try Validate.displayName(rawName)
        guard let user = try await store.updateDisplayName(userID: userID, displayName: name) else {
            throw TrackingError.unauthenticated
        }
        return user
    }

    /// Deletes the account and everything it owns, in one transaction that first logs each of
    /// its memberships' departures: `deleted` for groups it owns, `left` elsewhere.
    public func deleteAccount(userID: UserID) async throws {
        // The store announces the events it logs (`CommitDoor`).
        try await directory.writeDirectory({ tx -> [GroupEvent] in
            let events = try GroupService.departureEvents(try tx.memberships(userID: userID), ownedBy: userID,
                                                          reason: .accountDeleted, in: tx)
            try tx.deleteUser(id: userID)
            return events
        }, onCommit: { _ in })
    }
}
