import Crypto
import Dispatch
import Timestamps

/// Sign-up, sign-in, sign-out, profile and account deletion, and turning bearer tokens into
/// credentials.
///
/// Invariants: a password is never stored, only its Argon2id hash; a token is shown once and
/// stored only as a hash; unknown email and wrong password fail with the same error and take
/// the same time (a dummy hash is verified for unknown emails).
public final class AccountService: Sendable {
    /// User tokens start with this; device tokens with `DeviceTokens.prefix`.
    public static let userTokenPrefix = "fodu_"

    let store: any AccountStore
    let hasher: PasswordHasher
    let signInByEmail: RateLimiter
    let signInByAddress: RateLimiter
    let hashing = PasswordHashingQueue()
    let dummyHash: String
    let sink: (any GroupEventSink)?

    public init(store: any AccountStore, passwordCost: PasswordHasher.Cost = .interactive,
                signInAttemptsPerMinute: Int = 10, sink: (any GroupEventSink)? = nil) throws {
        self.store = store
        self.sink = sink
        self.hasher = PasswordHasher(cost: passwordCost)
        self.signInByEmail = RateLimiter(limit: signInAttemptsPerMinute)
        self.signInByAddress = RateLimiter(limit: signInAttemptsPerMinute)
        self.dummyHash = try hasher.hash(Base64URL.encode(Secrets.randomBytes(16)))
    }

    /// Creates an account and signs it in.
    /// - Throws: invalid input (400), `email_taken` conflict (409).
    public func signUp(email rawEmail: String, password: String, displayName rawName: String) async throws -> SignedIn {
        let email = try Validate.email(rawEmail)
        try Validate.password(password)
        let displayName = try Validate.displayName(rawName)
        let hash = try await hashing.run { [hasher] in try hasher.hash(password) }
        let user = User(id: Secrets.newID(prefix: "u_"), email: email, displayName: displayName,
                        createdAt: Timestamp.nowMilliseconds())
        let token = Secrets.newToken(prefix: Self.userTokenPrefix)
        try await store.createUser(user, passwordHash: hash, sessionTokenHash: Secrets.tokenHash(token))
        return SignedIn(user: user, token: token)
    }

    /// Creates an account nobody can sign in to (no password), for fleet devices that have no
    /// person behind them, such as the demo's vessels. Returns the existing one if the email is taken.
    public func ensureAccountWithoutPassword(email rawEmail: String, displayName rawName: String) async throws -> User {
        let email = try Validate.email(rawEmail)
        if let (existing, _) = try store.userWithPasswordHash(email: email) { return existing }
        let user = User(id: Secrets.newID(prefix: "u_"), email: email, displayName: try Validate.displayName(rawName),
                        createdAt: Timestamp.nowMilliseconds())
        // "!" is never a valid Argon2 string, so verification always fails.
        try await store.createUser(user, passwordHash: "!no-password", sessionTokenHash: Secrets.tokenHash(Secrets.newToken(prefix: "x_")))
        return user
    }

    /// The user with `email`, if any.
    public func user(email rawEmail: String) throws -> User? {
        try store.userWithPasswordHash(email: Validate.normalizedEmail(rawEmail))?.0
    }

    /// Checks email and password and opens a new session.
    /// - Throws: `rate_limited` (429) past the per-email or per-address limit,
    ///   `invalid_credentials` (401) for an unknown email or a wrong password alike.
    public func signIn(email rawEmail: String, password: String, clientAddress: String) async throws -> SignedIn {
        let email = Validate.normalizedEmail(rawEmail)
        let now = Timestamp.nowMilliseconds()
        if let wait = signInByAddress.attempt("ip:" + clientAddress, now: now) { throw TrackingError.rateLimited(retryAfter: wait) }
        if let wait = signInByEmail.attempt("email:" + email, now: now) { throw TrackingError.rateLimited(retryAfter: wait) }
        let found = try store.userWithPasswordHash(email: email)
        let storedHash = found?.1 ?? dummyHash
        let matches = await hashing.run { [hasher] in hasher.verify(password, against: storedHash) }
        guard matches, let user = found?.0 else {
            throw TrackingError(.unauthenticated, code: "invalid_credentials", message: "email or password is wrong")
        }
        let token = Secrets.newToken(prefix: Self.userTokenPrefix)
        try await store.createSession(tokenHash: Secrets.tokenHash(token), userID: user.id, at: now)
        return SignedIn(user: user, token: token)
    }

    /// Ends the session of `token`; it stops working at once.
    public func signOut(token: String) async throws {
        guard token.hasPrefix(Self.userTokenPrefix), try await store.deleteSession(tokenHash: Secrets.tokenHash(token)) else {
            throw TrackingError.unauthenticated
        }
    }

    /// The user of a user token, or nil when the token is unknown or signed out.
    public func userID(forUserToken token: String) throws -> String? {
        guard token.hasPrefix(Self.userTokenPrefix), token.utf8.count < 200 else { return nil }
        return try store.userID(sessionTokenHash: Secrets.tokenHash(token))
    }

    public func user(id: String) throws -> User {
        guard let user = try store.user(id: id) else { throw TrackingError.unauthenticated }
        return user
    }

    public func updateDisplayName(userID: String, to rawName: String) async throws -> User {
        let name = try Validate.displayName(rawName)
        guard let user = try await store.updateDisplayName(userID: userID, displayName: name) else {
            throw TrackingError.unauthenticated
        }
        return user
    }

    /// Deletes the account and everything it owns.
    public func deleteAccount(userID: String) async throws {
        let sink = self.sink
        try await store.deleteUser(id: userID) { events in if let sink, !events.isEmpty { sink.publish(events) } }
    }
}

/// Runs password hashing off the request threads, at most `width` at once (each Argon2id
/// hash at interactive cost takes 64 MiB and tens of milliseconds).
final class PasswordHashingQueue: Sendable {
    private let queue = DispatchQueue(label: "fod.password-hashing", attributes: .concurrent)
    private let slots: DispatchSemaphore

    init(width: Int = 2) { slots = DispatchSemaphore(value: width) }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [slots] in
                slots.wait()
                defer { slots.signal() }
                continuation.resume(with: Result { try work() })
            }
        }
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { [slots] in
                slots.wait()
                defer { slots.signal() }
                continuation.resume(returning: work())
            }
        }
    }
}
