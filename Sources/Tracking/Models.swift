/// A person with an account. `email` is normalised (trimmed, lower-cased) and unique.
public struct User: Sendable, Equatable {
    public let id: String
    public var email: String
    public var displayName: String
    /// Milliseconds since 1970 (UTC).
    public let createdAt: Int64

    public init(id: String, email: String, displayName: String, createdAt: Int64) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// What sign-up and sign-in return: the user and a fresh user token, shown once.
public struct SignedIn: Sendable {
    public let user: User
    public let token: String
}

/// Limits on what clients send to account endpoints.
public enum AccountLimits {
    public static let passwordBytes = 8...1024
    public static let emailBytes = 3...254
    public static let displayNameCharacters = 1...100
}
