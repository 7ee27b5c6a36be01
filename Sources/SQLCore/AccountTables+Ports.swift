import Tracking

/// `AccountAdministrationStore` and `ImportTokenStore` over `AccountTables`: a store gets them by
/// declaring its conformance.
extension SQLTransactions {
    public func createAccount(_ account: NewAccount, admission: SignUpAdmission, now: Int64) async throws -> User {
        try await writeSQL { try AccountTables.createAccount(account, admission: admission, now: now, on: $0) }
    }

    public func hasAccounts() throws -> Bool {
        try readSQL { try AccountTables.hasAccounts(on: $0) }
    }

    public func accounts() throws -> [User] {
        try readSQL { try AccountTables.accounts(on: $0) }
    }

    public func setPassword(userID: UserID, passwordHash: String, mustChange: Bool, keepSession: SessionID?) async throws -> Bool {
        try await writeSQL {
            try AccountTables.setPassword(userID: userID, passwordHash: passwordHash, mustChange: mustChange, keepSession: keepSession, on: $0)
        }
    }

    public func setDisabled(userID: UserID, _ disabled: Bool, now: Int64) async throws -> Bool {
        try await writeSQL { try AccountTables.setDisabled(userID: userID, disabled, now: now, on: $0) }
    }

    public func setAdmin(userID: UserID, _ isAdmin: Bool) async throws -> Bool {
        try await writeSQL { try AccountTables.setAdmin(userID: userID, isAdmin, on: $0) }
    }

    public func insertInviteCode(codeHash: String, createdAt: Int64, expiresAt: Int64) async throws {
        try await writeSQL { try AccountTables.insertInviteCode(codeHash: codeHash, createdAt: createdAt, expiresAt: expiresAt, on: $0) }
    }

    public func deleteExpiredGrants(now: Int64) async throws -> Int {
        try await writeSQL { try AccountTables.deleteExpiredGrants(now: now, on: $0) }
    }

    public func insertImportToken(tokenHash: String, deviceID: DeviceID, ownerID: UserID, createdAt: Int64, expiresAt: Int64,
                                  keepPerDevice: Int) async throws -> Bool {
        try await writeSQL {
            try AccountTables.insertImportToken(tokenHash: tokenHash, deviceID: deviceID, ownerID: ownerID, createdAt: createdAt,
                                                expiresAt: expiresAt, keepPerDevice: keepPerDevice, on: $0)
        }
    }

    public func importTokenDevice(tokenHash: String, now: Int64) throws -> (DeviceID, UserID)? {
        try readSQL { try AccountTables.importTokenDevice(tokenHash: tokenHash, now: now, on: $0) }
    }

    public func redeemImportToken(tokenHash: String, deviceID: DeviceID, now: Int64) async throws -> UserID? {
        try await writeSQL { try AccountTables.redeemImportToken(tokenHash: tokenHash, deviceID: deviceID, now: now, on: $0) }
    }
}
