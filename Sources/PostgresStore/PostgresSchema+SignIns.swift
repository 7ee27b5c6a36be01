extension PostgresSchema {
    /// SignInThrottle's records (the embedded store's migration 13 has the same tables).
    static let signInRecords = Migration(version: 9, name: "failed sign-ins per account and the addresses accounts signed in from", sql: """
        -- Keys are BLAKE2b digests (AccountService): of the normalised email, whether an account
        -- has it or not; of the user id and the client's address (IPv4, or IPv6 /64). A failure
        -- record goes with a correct password, or once its latest attempt is a day old; an
        -- account keeps its most recent addresses only. Logged tables: a crash or a failover
        -- forgets no failure and no known address.
        CREATE TABLE sign_in_failures (
            account_key text PRIMARY KEY,
            failures integer NOT NULL,
            last_attempt_at bigint NOT NULL
        );
        CREATE INDEX sign_in_failures_by_age ON sign_in_failures (last_attempt_at);
        CREATE TABLE sign_in_addresses (
            user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            address_key text NOT NULL,
            last_sign_in_at bigint NOT NULL,
            PRIMARY KEY (user_id, address_key)
        );
        """)
}
