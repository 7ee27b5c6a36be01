import Crypto
import Timestamps

extension AccountService {
    /// Checks email and password and opens a new session.
    ///
    /// Every refusal comes before any password hashing, in this order: the per-address and
    /// per-(address, email) windows; the account's `SignInThrottle` record, read; then its
    /// admission, decided atomically in the store (on PostgreSQL: for every node), which counts
    /// the attempt as failed until the password proves right. A correct password deletes the
    /// record and remembers the client's address (`clientAddress`: an IPv4 address or an IPv6
    /// /64) as known to the account, stored only as a digest of it with the user's id.
    ///
    /// An unknown email takes the same steps with a record of its own (and a dummy hash), so
    /// neither a status, a message nor a `Retry-After` tells whether an account has the email.
    /// A disabled account is told so (403 `account_disabled`), and only after a correct password.
    /// - Throws: `rate_limited` (429, `Retry-After`) past a window or the account's throttle,
    ///   `invalid_credentials` (401) for an unknown email or a wrong password alike, `busy` (503)
    ///   when too many hashes wait. `now` (ms) is for tests of the limits; callers leave it.
    public func signIn(email rawEmail: String, password: String, clientAddress: String, client: String? = nil,
                       now: Int64 = Timestamp.nowMilliseconds()) async throws -> SignedIn {
        let user = try await verifiedUser(email: Validate.normalizedEmail(rawEmail), password: password, clientAddress: clientAddress,
                                          now: now, wrong: "email or password is wrong")
        // Said only to whoever proved the password.
        guard !user.isDisabled else {
            throw TrackingError(.forbidden, code: .accountDisabled, message: "this account is disabled: ask the server's administrator")
        }
        let (token, session) = Self.newSession(userID: user.id, at: Timestamp(millisecondsSince1970: now), client: client)
        try await store.createSession(session, tokenHash: Secrets.tokenHash(token), keepAtMost: policy.sessionsPerUser)
        return SignedIn(user: user, token: token, session: session)
    }

    /// The user of `email` (normalised) when `password` is theirs, checked under every sign-in
    /// limit as `signIn` describes; a correct password starts the account's failure count
    /// afresh and makes `clientAddress` known to it.
    /// - Throws: `rate_limited` (429), `invalid_credentials` (401, saying `wrong`) for an unknown
    ///   email or a wrong password alike, `busy` (503).
    func verifiedUser(email: String, password: String, clientAddress: String, now: Int64, wrong: String) async throws -> User {
        if let wait = try limits.attempt(signInsByAddress, key: clientAddress, now: now) { throw TrackingError.rateLimited(retryAfter: wait) }
        if let wait = try limits.attempt(signInsByPair, key: clientAddress + " " + email, now: now) { throw TrackingError.rateLimited(retryAfter: wait) }
        let found = try store.userWithPasswordHash(email: email)
        let accountKey = Self.signInAccountKey(email: email)
        // An unknown email looks its address up too (for no user): the same reads for every email.
        let userID = found?.0.id ?? Self.noUser
        let addressKey = Self.signInAddressKey(clientAddress, userID: userID)
        let known = try store.isKnownSignInAddress(addressKey, userID: userID)
        let throttle = policy.signInThrottle
        if let wait = throttle.decide(try store.signInFailures(accountKey: accountKey), fromKnownAddress: known, now: now).retryAfterSeconds {
            throw TrackingError.rateLimited(retryAfter: wait)
        }
        // A full hashing queue refuses here, before the admission is written (and taken back).
        try hashing.requireRoom()
        if let wait = try await store.admitSignIn(accountKey: accountKey, fromKnownAddress: known, throttle: throttle, now: now).retryAfterSeconds {
            throw TrackingError.rateLimited(retryAfter: wait)
        }
        let storedHash = found?.1 ?? dummyHash
        let matches: Bool
        do {
            matches = try await hashing.run { [hasher] in hasher.verify(password, against: storedHash) }
        } catch {
            // The password was not checked: the attempt does not count. Should taking it back
            // fail, the count is one too high, which only makes the throttle stricter.
            try? await store.withdrawSignIn(accountKey: accountKey)
            throw error
        }
        guard matches, let user = found?.0 else {
            throw TrackingError(.unauthenticated, code: .invalidCredentials, message: wrong)
        }
        try await store.recordSignInSuccess(accountKey: accountKey, userID: user.id, addressKey: addressKey, now: now,
                                            keep: throttle.knownAddressesPerAccount)
        return user
    }

    /// No user has this id (ids the server makes are `u_` and 22 more characters).
    static let noUser = UserID(rawValue: "")

    /// The key of an email's failure record (a normalised email, known or not): a BLAKE2b digest.
    static func signInAccountKey(email: String) -> String {
        Secrets.tokenHash("sign-in account\u{0}" + email)
    }

    /// The key of a client address known to `userID`: a BLAKE2b digest of both, so the same
    /// address has unrelated keys in different accounts.
    static func signInAddressKey(_ clientAddress: String, userID: UserID) -> String {
        Secrets.tokenHash("sign-in address\u{0}" + userID.rawValue + "\u{0}" + clientAddress)
    }
}
