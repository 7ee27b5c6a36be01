import PostgresClient
import Tracking

extension PostgresStore: SignInRecordStore {
    public func signInFailures(accountKey: String) throws -> SignInFailures? {
        try read { c in
            try c.firstRow("SELECT failures, last_attempt_at FROM sign_in_failures WHERE account_key = $1", [.text(accountKey)]) { row in
                SignInFailures(count: Int(try row.int64(0)), lastAttemptAt: try row.int64(1))
            }
        }
    }

    public func isKnownSignInAddress(_ addressKey: String, userID: UserID) throws -> Bool {
        try read { c in
            try c.firstRow("SELECT 1 FROM sign_in_addresses WHERE user_id = $1 AND address_key = $2", [.id(userID), .text(addressKey)]) { _ in
                true
            } ?? false
        }
    }

    public func admitSignIn(accountKey: String, fromKnownAddress: Bool, throttle: SignInThrottle, now: Int64) async throws
        -> SignInThrottle.Decision {
        try await write { c in
            try c.run("""
                DELETE FROM sign_in_failures WHERE account_key IN
                  (SELECT account_key FROM sign_in_failures WHERE last_attempt_at <= $1 LIMIT 8 FOR UPDATE SKIP LOCKED)
                """, [.int64(now - SignInThrottle.dayMilliseconds)])
            // Takes the record's row lock (made if missing, with no failures) until the commit:
            // another node's admission of the same key waits here and then sees this one's count.
            let stored = try c.firstRow("""
                INSERT INTO sign_in_failures AS f (account_key, failures, last_attempt_at) VALUES ($1, 0, 0)
                ON CONFLICT (account_key) DO UPDATE SET failures = f.failures
                RETURNING failures, last_attempt_at
                """, [.text(accountKey)]) { row in SignInFailures(count: Int(try row.int64(0)), lastAttemptAt: try row.int64(1)) }
            let decision = throttle.decide(stored, fromKnownAddress: fromKnownAddress, now: now)
            switch decision {
            case .admit(let record):
                try c.run("UPDATE sign_in_failures SET failures = $2, last_attempt_at = $3 WHERE account_key = $1",
                          [.text(accountKey), .int(record.count), .int64(record.lastAttemptAt)])
            case .refuse:
                // Only a stored record refuses; one just made (no failures) always admits.
                break
            }
            return decision
        }
    }

    public func withdrawSignIn(accountKey: String) async throws {
        try await write { c in
            try c.run("UPDATE sign_in_failures SET failures = failures - 1 WHERE account_key = $1", [.text(accountKey)])
            try c.run("DELETE FROM sign_in_failures WHERE account_key = $1 AND failures <= 0", [.text(accountKey)])
        }
    }

    public func recordSignInSuccess(accountKey: String, userID: UserID, addressKey: String, now: Int64, keep: Int) async throws {
        try await write { c in
            try c.run("DELETE FROM sign_in_failures WHERE account_key = $1", [.text(accountKey)])
            try c.run("""
                INSERT INTO sign_in_addresses AS a (user_id, address_key, last_sign_in_at) VALUES ($1, $2, $3)
                ON CONFLICT (user_id, address_key) DO UPDATE SET last_sign_in_at = greatest(a.last_sign_in_at, excluded.last_sign_in_at)
                """, [.id(userID), .text(addressKey), .int64(now)])
            try c.run("""
                DELETE FROM sign_in_addresses WHERE user_id = $1 AND address_key NOT IN
                  (SELECT address_key FROM sign_in_addresses WHERE user_id = $1 ORDER BY last_sign_in_at DESC, address_key LIMIT $2)
                """, [.id(userID), .int(max(1, keep))])
        }
    }
}
