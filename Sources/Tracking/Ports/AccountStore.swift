/// Persistence the account flows need. SQLite implements it (`SQLiteBackend`); a server
/// database backend can implement it too. Reads are synchronous and cheap; writes are `async`
/// and return once durable.
///
/// Reads are synchronous and each sees one committed snapshot (joined with the request's other
/// reads inside `TrackingStore.readingTogether`). `async` writes run on the store's single
/// writer in the next group commit, each in its own savepoint (one that throws leaves nothing
/// behind), and return once the commit is durable. Storage faults throw `StoreFailure`.
/// Times are milliseconds since 1970. Session tokens are never stored, only their hashes.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol AccountStore: Sendable {
    /// Inserts the user and a first session (token stored as `tokenHash` only). Throws
    /// `TrackingError` conflict when the email is taken.
    func createUser(_ user: User, passwordHash: String, session: Session, tokenHash: String) async throws
    /// The user with `email` (normalised) and its stored password hash.
    func userWithPasswordHash(email: String) throws -> (User, String)?
    func user(id: UserID) throws -> User?
    /// Adds a session; the user's oldest sessions beyond `keepAtMost` are deleted with it.
    func createSession(_ session: Session, tokenHash: String, keepAtMost: Int) async throws
    /// The session whose token hashes to `tokenHash`.
    func session(tokenHash: String) throws -> Session?
    /// The user's sessions, newest first.
    func sessions(userID: UserID) throws -> [Session]
    /// Records a use of session `id` at `time` (ms).
    func touchSession(id: SessionID, at time: Int64) async throws
    /// Deletes the session; returns whether it existed.
    func deleteSession(tokenHash: String) async throws -> Bool
    /// Deletes session `id` if it belongs to `userID`; returns whether it did.
    func deleteSession(id: SessionID, userID: UserID) async throws -> Bool
    /// Deletes every session created before `createdBefore` or last used before `usedBefore`
    /// (ms); returns how many.
    func deleteExpiredSessions(createdBefore: Int64, usedBefore: Int64) async throws -> Int
    func updateDisplayName(userID: UserID, displayName: String) async throws -> User?
}
