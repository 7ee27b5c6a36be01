import Storage
import Tracking

extension SQLiteBackend: SignInRecordStore {
    public func signInFailures(accountKey: String) throws -> SignInFailures? {
        try read { db in try Self.signInFailures(accountKey: accountKey, in: db) }
    }

    static func signInFailures(accountKey: String, in db: Database) throws -> SignInFailures? {
        try db.firstRow("SELECT failures, last_attempt_at FROM sign_in_failures WHERE account_key = ?", [.text(accountKey)]) { row in
            SignInFailures(count: row.int(0), lastAttemptAt: row.int64(1))
        }
    }

    public func isKnownSignInAddress(_ addressKey: String, userID: UserID) throws -> Bool {
        try read { db in
            try db.firstRow("SELECT 1 FROM sign_in_addresses WHERE user_id = ? AND address_key = ?",
                            [.id(userID), .text(addressKey)]) { _ in true } ?? false
        }
    }

    public func admitSignIn(accountKey: String, fromKnownAddress: Bool, throttle: SignInThrottle, now: Int64) async throws
        -> SignInThrottle.Decision {
        // The writer runs one job at a time: nothing changes the record between read and write.
        try await write { db in
            try db.run("""
                DELETE FROM sign_in_failures WHERE account_key IN
                  (SELECT account_key FROM sign_in_failures WHERE last_attempt_at <= ? LIMIT 8)
                """, [.integer(now - SignInThrottle.dayMilliseconds)])
            let decision = throttle.decide(try Self.signInFailures(accountKey: accountKey, in: db), fromKnownAddress: fromKnownAddress, now: now)
            if case .admit(let record) = decision {
                try db.run("""
                    INSERT INTO sign_in_failures (account_key, failures, last_attempt_at) VALUES (?, ?, ?)
                    ON CONFLICT (account_key) DO UPDATE SET failures = excluded.failures, last_attempt_at = excluded.last_attempt_at
                    """, [.text(accountKey), .int(record.count), .integer(record.lastAttemptAt)])
            }
            return decision
        }
    }

    public func withdrawSignIn(accountKey: String) async throws {
        try await write { db in
            try db.run("UPDATE sign_in_failures SET failures = failures - 1 WHERE account_key = ?", [.text(accountKey)])
            try db.run("DELETE FROM sign_in_failures WHERE account_key = ? AND failures <= 0", [.text(accountKey)])
        }
    }

    public func recordSignInSuccess(accountKey: String, userID: UserID, addressKey: String, now: Int64, keep: Int) async throws {
        try await write { db in
            try db.run("DELETE FROM sign_in_failures WHERE account_key = ?", [.text(accountKey)])
            try db.run("""
                INSERT INTO sign_in_addresses (user_id, address_key, last_sign_in_at) VALUES (?, ?, ?)
                ON CONFLICT (user_id, address_key) DO UPDATE SET last_sign_in_at = max(last_sign_in_at, excluded.last_sign_in_at)
                """, [.id(userID), .text(addressKey), .integer(now)])
            try db.run("""
                DELETE FROM sign_in_addresses WHERE user_id = ? AND address_key NOT IN
                  (SELECT address_key FROM sign_in_addresses WHERE user_id = ? ORDER BY last_sign_in_at DESC, address_key LIMIT ?)
                """, [.id(userID), .id(userID), .int(max(1, keep))])
        }
    }
}
