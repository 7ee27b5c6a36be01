import Tracking

/// `SignInThrottle`'s records (`sign_in_failures`, `sign_in_addresses`), written once for both
/// stores: each runs inside the caller's transaction on `db`. Keys are digests the domain made
/// (`AccountService`).
public enum SignInTables {
    public static func failures(accountKey: String, on db: some SQLExecutor) throws -> SignInFailures? {
        try db.firstRow("SELECT failures, last_attempt_at FROM sign_in_failures WHERE account_key = ?", [.text(accountKey)]) { row in
            SignInFailures(count: try row.int(0), lastAttemptAt: try row.int64(1))
        }
    }

    public static func isKnownAddress(_ addressKey: String, userID: UserID, on db: some SQLExecutor) throws -> Bool {
        try db.firstRow("SELECT 1 FROM sign_in_addresses WHERE user_id = ? AND address_key = ?",
                        [.id(userID), .text(addressKey)]) { _ in true } ?? false
    }

    /// Decides an attempt by `throttle` and, when it is admitted, stores its record. The
    /// record's row is made (with no failures: `decide` reads it as no record) or kept, and
    /// locked until the commit: another node's admission of the same key waits there and then
    /// sees this one's count (on SQLite the single writer does the same). Up to 8 records a day
    /// old go on the way (on PostgreSQL, those no other transaction holds).
    public static func admit(accountKey: String, fromKnownAddress: Bool, throttle: SignInThrottle, now: Int64,
                             on db: some SQLExecutor) throws -> SignInThrottle.Decision {
        try db.run("""
            DELETE FROM sign_in_failures WHERE account_key IN
              (SELECT account_key FROM sign_in_failures WHERE last_attempt_at <= ? LIMIT 8\(db.dialect.lockSkippingLocked(table: "sign_in_failures")))
            """, [.integer(now - SignInThrottle.dayMilliseconds)])
        let stored = try db.firstRow("""
            INSERT INTO sign_in_failures AS f (account_key, failures, last_attempt_at) VALUES (?, 0, 0)
            ON CONFLICT (account_key) DO UPDATE SET failures = f.failures
            RETURNING failures, last_attempt_at
            """, [.text(accountKey)]) { row in SignInFailures(count: try row.int(0), lastAttemptAt: try row.int64(1)) }
        let decision = throttle.decide(stored, fromKnownAddress: fromKnownAddress, now: now)
        if case .admit(let record) = decision {
            try db.run("UPDATE sign_in_failures SET failures = ?, last_attempt_at = ? WHERE account_key = ?",
                       [.int(record.count), .integer(record.lastAttemptAt), .text(accountKey)])
        }
        // Only a stored record refuses; one just made (no failures) always admits.
        return decision
    }

    /// Takes back one failure of the key (its record goes at none).
    public static func withdraw(accountKey: String, on db: some SQLExecutor) throws {
        try db.run("UPDATE sign_in_failures SET failures = failures - 1 WHERE account_key = ?", [.text(accountKey)])
        try db.run("DELETE FROM sign_in_failures WHERE account_key = ? AND failures <= 0", [.text(accountKey)])
    }

    /// Forgets the key's failures and remembers the address, keeping the account's `keep`
    /// (at least 1) most recent addresses.
    public static func recordSuccess(accountKey: String, userID: UserID, addressKey: String, now: Int64, keep: Int,
                                     on db: some SQLExecutor) throws {
        let user = SQLParameter.id(userID)
        try db.run("DELETE FROM sign_in_failures WHERE account_key = ?", [.text(accountKey)])
        try db.run("""
            INSERT INTO sign_in_addresses AS a (user_id, address_key, last_sign_in_at) VALUES (?, ?, ?)
            ON CONFLICT (user_id, address_key) DO UPDATE SET last_sign_in_at = \(db.dialect.greatest)(a.last_sign_in_at, excluded.last_sign_in_at)
            """, [user, .text(addressKey), .integer(now)])
        try db.run("""
            DELETE FROM sign_in_addresses WHERE user_id = ? AND address_key NOT IN
              (SELECT address_key FROM sign_in_addresses WHERE user_id = ? ORDER BY last_sign_in_at DESC, address_key LIMIT ?)
            """, [user, user, .int(max(1, keep))])
    }
}

/// `SignInRecordStore` over `SignInTables`: a store gets it by declaring its conformance.
extension SQLTransactions {
    public func signInFailures(accountKey: String) throws -> SignInFailures? {
        try readSQL { try SignInTables.failures(accountKey: accountKey, on: $0) }
    }

    public func isKnownSignInAddress(_ addressKey: String, userID: UserID) throws -> Bool {
        try readSQL { try SignInTables.isKnownAddress(addressKey, userID: userID, on: $0) }
    }

    public func admitSignIn(accountKey: String, fromKnownAddress: Bool, throttle: SignInThrottle, now: Int64) async throws
        -> SignInThrottle.Decision {
        try await writeSQL {
            try SignInTables.admit(accountKey: accountKey, fromKnownAddress: fromKnownAddress, throttle: throttle, now: now, on: $0)
        }
    }

    public func withdrawSignIn(accountKey: String) async throws {
        try await writeSQL { try SignInTables.withdraw(accountKey: accountKey, on: $0) }
    }

    public func recordSignInSuccess(accountKey: String, userID: UserID, addressKey: String, now: Int64, keep: Int) async throws {
        try await writeSQL {
            try SignInTables.recordSuccess(accountKey: accountKey, userID: userID, addressKey: addressKey, now: now, keep: keep, on: $0)
        }
    }
}
