/// The records of `SignInThrottle`: consecutive failed sign-ins per account key, and the
/// addresses each account signed in from. Both stores keep them in the database, so every node
/// on a shared one counts the same attempts, and a restart forgets nothing.
///
/// Keys are digests made by `AccountService` (of the email; of the user and the client's
/// address): no email or address is stored here.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol SignInRecordStore: Sendable {
    /// The failure record of `accountKey`, if any (a read: to refuse before any other work).
    func signInFailures(accountKey: String) throws -> SignInFailures?
    /// Whether `userID` signed in from the address of `addressKey` (one of its
    /// `knownAddressesPerAccount` most recent).
    func isKnownSignInAddress(_ addressKey: String, userID: UserID) throws -> Bool
    /// Decides an attempt atomically with every other node: reads `accountKey`'s record, asks
    /// `throttle.decide`, and stores the record an admission carries, in one transaction under
    /// the record's lock, so that concurrent attempts are counted one after the other. Also
    /// deletes a few records that no longer count (their latest attempt is a day old), which
    /// keeps the table to about a day's attempts.
    func admitSignIn(accountKey: String, fromKnownAddress: Bool, throttle: SignInThrottle, now: Int64) async throws
        -> SignInThrottle.Decision
    /// Takes back one admitted attempt that was never made (its password was not checked):
    /// the count goes down by one, the record goes at zero.
    func withdrawSignIn(accountKey: String) async throws
    /// After a correct password: deletes `accountKey`'s failure record, and records
    /// `addressKey` as known to `userID` at `now` (ms), keeping its `keep` most recent addresses.
    /// The addresses go with the account.
    func recordSignInSuccess(accountKey: String, userID: UserID, addressKey: String, now: Int64, keep: Int) async throws
}
