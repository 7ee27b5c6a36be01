import Timestamps

/// A person with an account. `email` is normalised (trimmed, lower-cased) and unique.
public struct User: Sendable, Equatable {
    public let id: UserID
    public var email: String
    public var displayName: String
    public let createdAt: Timestamp
    /// An administrator of the server (`AccountService`, "Administration"): makes invite codes.
    /// It reads nobody's locations: the partition rules know no administrator.
    public var isAdmin: Bool
    /// A disabled account signs in to nothing: no session, device token or import token of it works.
    public var isDisabled: Bool
    /// Its password was set by an administrator (`fod user add`, `fod user reset-password`); the
    /// user should choose their own (`PUT /v1/me/password` clears it).
    public var mustChangePassword: Bool

    public init(id: UserID, email: String, displayName: String, createdAt: Timestamp, isAdmin: Bool = false,
                isDisabled: Bool = false, mustChangePassword: Bool = false) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
        self.isAdmin = isAdmin
        self.isDisabled = isDisabled
        self.mustChangePassword = mustChangePassword
    }
}

/// What sign-up and sign-in return: the user and a fresh user token, shown once.
public struct SignedIn: Sendable {
    public let user: User
    public let token: String
    public let session: Session
}

/// A signed-in session of a user token: listed and revoked by its public `id` (the token
/// itself is stored only hashed).
public struct Session: Sendable, Equatable {
    public let id: SessionID
    public let userID: UserID
    public let createdAt: Timestamp
    /// Updated at most once a minute (`AccountService.touchInterval`).
    public var lastUsedAt: Timestamp
    /// What signed in (the User-Agent, shortened, printable ASCII), if anything said.
    public let client: String?

    public init(id: SessionID, userID: UserID, createdAt: Timestamp, lastUsedAt: Timestamp, client: String?) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.client = client
    }
}

/// Limits on what clients send to account endpoints.
public enum AccountLimits {
    /// Characters of a new password (what people count).
    public static let passwordCharacters = 8...256
    /// UTF-8 bytes of a new password at most (256 characters of combining marks stay bounded).
    public static let maxPasswordBytes = 1024
    public static let emailBytes = 3...254
    public static let displayNameCharacters = 1...100
}
