import SQLCore
import Storage
import Tracking

/// Administrators, invite codes, invitations by email and import tokens: `SQLCore.AccountTables`,
/// written once for both stores.
extension SQLiteBackend: AccountAdministrationStore, ImportTokenStore {}

/// Accounts and sessions: `SQLCore.SessionTables`, written once for both stores, but for the
/// unique violation of a taken email.
extension SQLiteBackend: AccountStore {
    public func createUser(_ user: User, passwordHash: String, session: Session, tokenHash: String) async throws {
        do {
            try await writeSQL { try SessionTables.createUser(user, passwordHash: passwordHash, session: session, tokenHash: tokenHash, on: $0) }
        } catch let error as StorageError where error.isUniqueViolation {
            throw TrackingError.conflict("an account with this email already exists", code: .emailTaken)
        }
    }
}
