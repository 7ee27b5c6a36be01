/// The administration's schema, written once: each store's migration list runs it.
extension AccountTables {
    /// The same statements for both stores.
    public static let schema = """
        -- Administrators, disabled accounts (no session, device token or import token of theirs
        -- works), and passwords an administrator set (the user should choose their own).
        ALTER TABLE users ADD COLUMN is_admin boolean NOT NULL DEFAULT false;
        ALTER TABLE users ADD COLUMN disabled_at bigint;
        ALTER TABLE users ADD COLUMN must_change_password boolean NOT NULL DEFAULT false;
        -- A server that had accounts before: its first account anyone can sign in to is the
        -- administrator, as on a new server.
        UPDATE users SET is_admin = true
            WHERE id = (SELECT id FROM users WHERE \(hasPassword) ORDER BY created_at, id LIMIT 1);
        -- Invite codes an administrator made: stored hashed, each used up by the account it admits.
        CREATE TABLE invite_codes (
            code_hash text PRIMARY KEY,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
        );
        CREATE INDEX invite_codes_by_expiry ON invite_codes (expires_at);
        -- Invitations to an email without an account (under an invite-only or closed sign-up):
        -- they become invitations of the account made with that email, in its transaction.
        CREATE TABLE email_invitations (
            group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            email text NOT NULL,
            sender_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            PRIMARY KEY (group_id, email)
        );
        CREATE INDEX email_invitations_by_email ON email_invitations (email);
        CREATE INDEX email_invitations_by_sender ON email_invitations (sender_id);
        CREATE INDEX email_invitations_by_expiry ON email_invitations (expires_at);
        -- Import tokens: stored hashed, each imports into its device once before it expires.
        CREATE TABLE import_tokens (
            token_hash text PRIMARY KEY,
            device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
        );
        CREATE INDEX import_tokens_by_device ON import_tokens (device_id, created_at);
        CREATE INDEX import_tokens_by_expiry ON import_tokens (expires_at);
        """
}
