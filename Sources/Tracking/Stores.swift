/// Persistence the account flows need. SQLite implements it (`SQLiteBackend`); a server
/// database backend can implement it too. Reads are synchronous and cheap; writes are `async`
/// and return once durable.
public protocol AccountStore: Sendable {
    /// Inserts the user and a first session. Throws `TrackingError` conflict when the email is taken.
    func createUser(_ user: User, passwordHash: String, sessionTokenHash: String) async throws
    /// The user with `email` (normalised) and its stored password hash.
    func userWithPasswordHash(email: String) throws -> (User, String)?
    func user(id: String) throws -> User?
    func createSession(tokenHash: String, userID: String, at time: Int64) async throws
    /// Deletes the session; returns whether it existed.
    func deleteSession(tokenHash: String) async throws -> Bool
    /// The user id of the session with this token hash.
    func userID(sessionTokenHash: String) throws -> String?
    func updateDisplayName(userID: String, displayName: String) async throws -> User?
    /// Deletes the user and everything that belongs to it (sessions, devices, locations,
    /// memberships, invitations sent and received, owned groups), logging the membership events
    /// (`deleted` for owned groups, `left` elsewhere); `onCommit` gets them right after the commit.
    func deleteUser(id: String, onCommit: @escaping @Sendable ([GroupEvent]) -> Void) async throws
}
