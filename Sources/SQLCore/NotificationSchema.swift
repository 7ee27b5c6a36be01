/// The notification tables' schema, written once: each store's migration list runs it.
extension NotificationTables {
    public static func schema(_ dialect: SQLDialect) -> String {
        let sequence = dialect == .postgres ? "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY"
        return """
            -- A user's notification channels. token (ntfy, Gotify) and secret (webhook signing) are
            -- credentials: never returned after creation, never exported or logged.
            CREATE TABLE channels (
                id text PRIMARY KEY,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name text NOT NULL,
                type text NOT NULL,
                url text NOT NULL,
                token text,
                secret text,
                enabled boolean NOT NULL,
                disabled_reason text,
                failing_since bigint,
                created_at bigint NOT NULL
            );
            CREATE INDEX channels_by_user ON channels (user_id, created_at);
            -- A member's alerts: they go with the membership, the channel, the place and the device.
            -- since_event: the group's newest event id when made (only later events match).
            CREATE TABLE alerts (
                id text PRIMARY KEY,
                group_id text NOT NULL,
                user_id text NOT NULL,
                channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                place_id text REFERENCES places(id) ON DELETE CASCADE,
                device_id text REFERENCES devices(id) ON DELETE CASCADE,
                events text NOT NULL,
                since_event bigint NOT NULL,
                created_at bigint NOT NULL,
                FOREIGN KEY (group_id, user_id) REFERENCES memberships(group_id, user_id) ON DELETE CASCADE
            );
            CREATE INDEX alerts_by_group ON alerts (group_id, user_id);
            CREATE INDEX alerts_by_channel ON alerts (channel_id);
            CREATE INDEX alerts_by_place ON alerts (place_id);
            CREATE INDEX alerts_by_device ON alerts (device_id);
            -- The durable delivery queue and its log: one row per channel, group and event; seq is
            -- the order deliveries were made (each channel's are attempted in it).
            CREATE TABLE deliveries (
                seq \(sequence),
                id text NOT NULL UNIQUE,
                channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                group_id text NOT NULL,
                event_id bigint NOT NULL,
                event_type text NOT NULL,
                payload text NOT NULL,
                status text NOT NULL,
                attempts integer NOT NULL,
                next_attempt_at bigint NOT NULL,
                lease_until bigint,
                last_attempt_at bigint,
                http_status integer,
                error text,
                created_at bigint NOT NULL,
                UNIQUE (channel_id, group_id, event_id)
            );
            CREATE INDEX deliveries_pending_by_channel ON deliveries (channel_id, seq) WHERE status = 'pending';
            CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
            CREATE INDEX deliveries_by_age ON deliveries (created_at);
            -- How far each durable consumer of the group logs has read each group's log.
            CREATE TABLE consumer_cursors (
                consumer text NOT NULL,
                group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                last_id bigint NOT NULL,
                PRIMARY KEY (consumer, group_id)
            );
            """
    }
}
