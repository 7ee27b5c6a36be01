import Storage

/// The database schema, as numbered migrations (append only; never edit an applied one).
///
/// Times are INTEGER milliseconds since 1970 UTC. Secrets are stored only as hashes.
public enum Schema {
    public static let migrator = Migrator([
        .init(version: 1, name: "accounts", sql: """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                display_name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE sessions (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX sessions_by_user ON sessions(user_id);
            """),
    ])
}
