// Why one file of ~470 lines: the schema is one append-only list of numbered migrations, read
// top to bottom as the history of the database; splitting it would hide the order that matters.

import SQLCore
import PostgresClient
import Tracking

/// The PostgreSQL schema, as numbered migrations (append only; never edit an applied one).
///
/// Times are `bigint` milliseconds since 1970 UTC; secrets are stored only as hashes. The
/// 2dsphere index is ours, not PostGIS: every fix carries its S2 leaf cell id as a signed
/// `bigint` (`CellID.int64Key`), and a covering's cell ranges are B-tree range scans.
///
/// `migrate` is safe when several nodes start at once: it runs under a transaction-level
/// advisory lock, so one node applies the pending migrations and the others wait, then find
/// nothing left to do.
enum PostgresSchema {
    struct Migration {
        let version: Int64
        let name: String
        let sql: String
    }

    /// A trigger function that moves group `group_id`'s row of `table` (`group_id`, `version`)
    /// forward for the old and the new row of any change (migrations 6 and 8: one text, two
    /// tables). Its lines start at the column a migration's SQL starts at.
    static func groupVersionBump(function: String, table: String) -> String {
        """
        CREATE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                INSERT INTO \(table) AS v (group_id, version) VALUES (OLD.group_id, 1)
                    ON CONFLICT (group_id) DO UPDATE SET version = v.version + 1;
            END IF;
            IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.group_id IS DISTINCT FROM OLD.group_id) THEN
                INSERT INTO \(table) AS v (group_id, version) VALUES (NEW.group_id, 1)
                    ON CONFLICT (group_id) DO UPDATE SET version = v.version + 1;
            END IF;
            RETURN NULL;
        END $$;
        """
    }

    /// The start of both token-bucket functions (migrations 4 and 7): drop a few full buckets,
    /// take the key's row (made full when missing) and refill it to `p_now`, into `held`. Its
    /// lines after the first start at the column of the function body they are interpolated in.
    static let tokenBucketRefill = """
        PERFORM set_config('synchronous_commit', 'off', true);
            DELETE FROM limit_buckets WHERE ctid IN (
                SELECT ctid FROM limit_buckets WHERE full_at <= p_now LIMIT 8 FOR UPDATE SKIP LOCKED);
            INSERT INTO limit_buckets AS b (scope, key_digest, tokens, at, full_at) VALUES (p_scope, digest, p_burst, p_now, p_now)
                ON CONFLICT (scope, key_digest) DO UPDATE SET tokens = b.tokens RETURNING b.tokens, b.at INTO held, held_at;
            held := least(p_burst, held + greatest(0, p_now - held_at) / 1000.0 * p_per_second);
        """

    /// The key of the migration lock (FNV-1a of its name, the same on every node).
    static let lockKey = AdvisoryLockKey(name: "fod.schema-migrations")

    static let migrations: [Migration] = [
        Migration(version: 1, name: "accounts, directory, history keyed by leaf cell, event log", sql: """
            CREATE TABLE users (
                id text PRIMARY KEY,
                email text NOT NULL UNIQUE,
                display_name text NOT NULL,
                password_hash text NOT NULL,
                created_at bigint NOT NULL
            );
            CREATE TABLE sessions (
                token_hash text PRIMARY KEY,
                id text NOT NULL UNIQUE,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at bigint NOT NULL,
                last_used_at bigint NOT NULL,
                client text
            );
            CREATE INDEX sessions_by_user ON sessions (user_id, created_at DESC, id);
            CREATE TABLE devices (
                key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id text NOT NULL UNIQUE,
                owner_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name text NOT NULL,
                platform_id text,
                token_hash text NOT NULL UNIQUE,
                created_at bigint NOT NULL,
                -- The newest fix by (timestamp, arrival): written only by an UPDATE whose WHERE
                -- requires a newer fix, so concurrent writers on any node never move it back.
                last_lon double precision,
                last_lat double precision,
                last_ts bigint,
                last_seq bigint,
                last_cell bigint
            );
            CREATE INDEX devices_by_owner ON devices (owner_id, created_at, id);
            CREATE TABLE groups (
                id text PRIMARY KEY,
                name text NOT NULL,
                owner_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at bigint NOT NULL
            );
            CREATE INDEX groups_by_owner ON groups (owner_id);
            CREATE TABLE memberships (
                group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                share_location boolean NOT NULL DEFAULT true,
                joined_at bigint NOT NULL,
                PRIMARY KEY (group_id, user_id)
            );
            CREATE INDEX memberships_by_user ON memberships (user_id);
            CREATE INDEX memberships_by_device ON memberships (device_id);
            CREATE TABLE invitations (
                group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                invitee_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                sender_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at bigint NOT NULL,
                PRIMARY KEY (group_id, invitee_id)
            );
            CREATE INDEX invitations_by_invitee ON invitations (invitee_id);
            CREATE INDEX invitations_by_sender ON invitations (sender_id);
            CREATE TABLE sharing_periods (
                group_id text NOT NULL,
                user_id text NOT NULL,
                device_id text NOT NULL,
                start_ts bigint NOT NULL,
                end_ts bigint,
                PRIMARY KEY (group_id, user_id, start_ts),
                FOREIGN KEY (group_id, user_id) REFERENCES memberships (group_id, user_id) ON DELETE CASCADE
            );
            CREATE INDEX sharing_periods_by_device ON sharing_periods (device_id);
            -- One row per stored fix, clustered by device and time (history pages, retention).
            -- `seq` is the global arrival order (unique, from fix_seq). No foreign key: fixes
            -- are deleted explicitly with their device.
            CREATE SEQUENCE fix_seq AS bigint CACHE 1;
            CREATE TABLE fixes (
                device_key bigint NOT NULL,
                ts bigint NOT NULL,
                seq bigint NOT NULL,
                cell bigint NOT NULL,
                lon double precision NOT NULL,
                lat double precision NOT NULL,
                accuracy double precision,
                altitude double precision,
                speed double precision,
                heading double precision,
                battery double precision,
                client_id text,
                PRIMARY KEY (device_key, ts, seq)
            );
            -- The 2dsphere index: the leaf cell first, position and time included, so a covering's
            -- ranges are index-only range scans, read in keyset pages.
            CREATE INDEX fixes_by_cell ON fixes (cell, device_key, ts, seq) INCLUDE (lon, lat);
            -- Duplicates, decided by constraints and so correct across nodes: a client id at most
            -- once per device; a fix without id at most once per device and timestamp.
            CREATE UNIQUE INDEX fixes_by_client_id ON fixes (device_key, client_id) WHERE client_id IS NOT NULL;
            CREATE UNIQUE INDEX fixes_without_id_by_time ON fixes (device_key, ts) WHERE client_id IS NULL;
            -- The live feed's log: per group, ids increase by one with every event, allocated from
            -- event_heads inside the transaction of the change (its row lock orders commits per
            -- group), NOTIFY'd in that transaction.
            CREATE TABLE events (
                group_id text NOT NULL,
                id bigint NOT NULL,
                type text NOT NULL,
                user_id text,
                data text NOT NULL,
                created_at bigint NOT NULL,
                device_key bigint,
                fix_ts bigint,
                PRIMARY KEY (group_id, id)
            );
            CREATE INDEX events_by_time ON events (created_at);
            CREATE INDEX events_by_fix ON events (device_key, fix_ts) WHERE device_key IS NOT NULL;
            CREATE TABLE event_heads (
                group_id text PRIMARY KEY,
                last_id bigint NOT NULL
            );
            """),
        Migration(version: 2, name: "share links; devices that receive their groups' locations", sql: """
            -- A share link shows one device to whoever holds its token (stored only hashed) until
            -- expires_at; `since` is where its track starts. Revoking deletes the row.
            CREATE TABLE shares (
                id text PRIMARY KEY,
                device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                token_hash text NOT NULL UNIQUE,
                name text,
                created_at bigint NOT NULL,
                since bigint NOT NULL,
                expires_at bigint NOT NULL,
                views bigint NOT NULL DEFAULT 0
            );
            CREATE INDEX shares_by_device ON shares (device_id, created_at);
            -- The owner's choice: the device's OwnTracks replies carry its groups' locations.
            ALTER TABLE devices ADD COLUMN receive_group_locations boolean NOT NULL DEFAULT false;
            """),
        Migration(version: 3, name: "places (geofences), their cell index and presence", sql: """
            -- A group's places: a circle (GeoJSON Point + radius, meters) or a Polygon, stored as
            -- the client sent it; `revision` grows whenever the geometry changes.
            CREATE TABLE places (
                key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id text NOT NULL UNIQUE,
                group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                name text NOT NULL,
                geometry text NOT NULL,
                radius double precision,
                created_by text NOT NULL,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                revision bigint NOT NULL DEFAULT 1
            );
            CREATE INDEX places_by_group ON places (group_id, created_at);
            -- The place index: each place's covering cells (PlaceShape levels 4, 6, ..., 22, signed
            -- cell ids as in fixes_by_cell), per group.
            CREATE TABLE place_cells (
                group_id text NOT NULL,
                cell bigint NOT NULL,
                place_key bigint NOT NULL REFERENCES places(key) ON DELETE CASCADE,
                PRIMARY KEY (group_id, cell, place_key)
            );
            CREATE INDEX place_cells_by_place ON place_cells (place_key);
            -- Whose presence the server knows in a group's places (a row once the device's state
            -- was set, silently, by its first evaluated fix); under it, no presence row is outside.
            CREATE TABLE place_baselines (
                group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                device_key bigint NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                PRIMARY KEY (group_id, device_key)
            );
            CREATE INDEX place_baselines_by_device ON place_baselines (device_key);
            -- Remembered presence: inside, or false for "not known yet" (a fix too inaccurate).
            CREATE TABLE place_presence (
                device_key bigint NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                group_id text NOT NULL,
                place_key bigint NOT NULL REFERENCES places(key) ON DELETE CASCADE,
                inside boolean NOT NULL,
                PRIMARY KEY (device_key, group_id, place_key)
            );
            CREATE INDEX place_presence_by_place ON place_presence (place_key);
            -- A member who stops sharing or leaves is no longer followed: their presence is
            -- forgotten, and set again silently once they share again.
            CREATE FUNCTION fod_forget_place_state() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM place_baselines WHERE group_id = OLD.group_id
                    AND device_key = (SELECT key FROM devices WHERE id = OLD.device_id);
                DELETE FROM place_presence WHERE group_id = OLD.group_id
                    AND device_key = (SELECT key FROM devices WHERE id = OLD.device_id);
                RETURN NULL;
            END $$;
            CREATE TRIGGER place_state_ends_with_sharing AFTER UPDATE OF share_location ON memberships
                FOR EACH ROW WHEN (NOT NEW.share_location) EXECUTE FUNCTION fod_forget_place_state();
            CREATE TRIGGER place_state_ends_with_membership AFTER DELETE ON memberships
                FOR EACH ROW EXECUTE FUNCTION fod_forget_place_state();
            """),
        Migration(version: 4, name: "abuse limits counted for every node", sql: """
            -- The abuse limits' counters (sign-ups, sign-ins, invitations, failed share-link
            -- lookups, device requests), shared by every node so that N nodes allow what one
            -- does. Keys are kept only as SHA-256 digests, and only while they count: each call
            -- deletes a few rows that stopped counting. UNLOGGED: no WAL, not replicated; a crash
            -- or a failover starts the counts afresh, which only ever lets more through.
            CREATE UNLOGGED TABLE limit_windows (
                scope text NOT NULL,
                key_digest bytea NOT NULL,
                times bigint[] NOT NULL,
                expires_at bigint NOT NULL,
                PRIMARY KEY (scope, key_digest)
            );
            CREATE INDEX limit_windows_by_expiry ON limit_windows (expires_at);
            CREATE UNLOGGED TABLE limit_buckets (
                scope text NOT NULL,
                key_digest bytea NOT NULL,
                tokens double precision NOT NULL,
                at bigint NOT NULL,
                full_at bigint NOT NULL,
                PRIMARY KEY (scope, key_digest)
            );
            CREATE INDEX limit_buckets_by_full ON limit_buckets (full_at);
            -- A sliding window: records an attempt at p_now unless p_limit attempts are within
            -- p_window ms; returns NULL when recorded, else the ms until the oldest leaves the
            -- window. The row lock of INSERT ... ON CONFLICT DO UPDATE serialises one key's callers.
            CREATE FUNCTION fod_limit_attempt(p_scope text, p_key text, p_now bigint, p_window bigint, p_limit bigint)
            RETURNS bigint LANGUAGE plpgsql AS $$
            DECLARE
                digest bytea := sha256(convert_to(p_key, 'UTF8'));
                stored bigint[];
                recent bigint[];
            BEGIN
                PERFORM set_config('synchronous_commit', 'off', true);
                DELETE FROM limit_windows WHERE ctid IN (
                    SELECT ctid FROM limit_windows WHERE expires_at <= p_now LIMIT 8 FOR UPDATE SKIP LOCKED);
                INSERT INTO limit_windows AS w (scope, key_digest, times, expires_at) VALUES (p_scope, digest, '{}', p_now)
                    ON CONFLICT (scope, key_digest) DO UPDATE SET times = w.times RETURNING w.times INTO stored;
                recent := ARRAY(SELECT t FROM unnest(stored) AS t WHERE t > p_now - p_window ORDER BY t);
                IF cardinality(recent) >= p_limit THEN
                    UPDATE limit_windows SET times = recent, expires_at = recent[cardinality(recent)] + p_window
                        WHERE scope = p_scope AND key_digest = digest;
                    RETURN recent[1] + p_window - p_now;
                END IF;
                UPDATE limit_windows SET times = recent || p_now, expires_at = greatest(p_now, coalesce(recent[cardinality(recent)], p_now)) + p_window
                    WHERE scope = p_scope AND key_digest = digest;
                RETURN NULL;
            END $$;
            -- The same window, read only: the ms until an attempt would be recorded, or NULL.
            CREATE FUNCTION fod_limit_wait(p_scope text, p_key text, p_now bigint, p_window bigint, p_limit bigint)
            RETURNS bigint LANGUAGE sql STABLE AS $$
                SELECT CASE WHEN count(*) >= p_limit THEN min(t) + p_window - p_now END
                FROM limit_windows w, unnest(w.times) AS t
                WHERE w.scope = p_scope AND w.key_digest = sha256(convert_to(p_key, 'UTF8')) AND t > p_now - p_window
            $$;
            -- A token bucket of p_burst tokens refilled at p_per_second: takes one and returns
            -- NULL, or returns the ms until one is there.
            CREATE FUNCTION fod_limit_take(p_scope text, p_key text, p_now bigint, p_per_second double precision, p_burst double precision)
            RETURNS bigint LANGUAGE plpgsql AS $$
            DECLARE
                digest bytea := sha256(convert_to(p_key, 'UTF8'));
                held double precision;
                held_at bigint;
                wait bigint;
            BEGIN
                \(tokenBucketRefill)
                IF held >= 1 THEN
                    held := held - 1;
                ELSE
                    wait := ceil((1 - held) / p_per_second * 1000);
                END IF;
                UPDATE limit_buckets SET tokens = held, at = p_now, full_at = p_now + ceil((p_burst - held) / p_per_second * 1000)::bigint
                    WHERE scope = p_scope AND key_digest = digest;
                RETURN wait;
            END $$;
            """),
        Migration(version: 5, name: "share-link changes announced to every node", sql: """
            -- Every node's share streams hear of a link deleted (revoked, or with its device or
            -- account) or given a new expiry, in the transaction of the change (ShareChangeNotice).
            CREATE FUNCTION fod_announce_share_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('fod_share_changes', 'revoked ' || OLD.id);
                ELSIF NEW.expires_at IS DISTINCT FROM OLD.expires_at THEN
                    PERFORM pg_notify('fod_share_changes', 'renewed ' || NEW.id || ' ' || NEW.expires_at);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER shares_announce_changes AFTER DELETE OR UPDATE OF expires_at ON shares
                FOR EACH ROW EXECUTE FUNCTION fod_announce_share_change();
            """),
        Migration(version: 6, name: "a visibility version per group, for the nodes' caches of sharing devices", sql: """
            -- Moves forward in the transaction of every change of a group's memberships or
            -- sharing periods, on any node: a node may answer from its cache of the group's
            -- sharing devices only while the version is the one it read them at.
            CREATE TABLE group_visibility (
                group_id text PRIMARY KEY,
                version bigint NOT NULL
            );
            \(groupVersionBump(function: "fod_bump_group_visibility", table: "group_visibility"))
            CREATE TRIGGER memberships_move_visibility AFTER INSERT OR UPDATE OR DELETE ON memberships
                FOR EACH ROW EXECUTE FUNCTION fod_bump_group_visibility();
            CREATE TRIGGER sharing_periods_move_visibility AFTER INSERT OR UPDATE OR DELETE ON sharing_periods
                FOR EACH ROW EXECUTE FUNCTION fod_bump_group_visibility();
            """),
        Migration(version: 7, name: "token buckets hand out several tokens at once", sql: """
            -- A token bucket of p_burst tokens refilled at p_per_second: takes up to p_want whole
            -- tokens (a node spends them itself, without a round trip each); granted 0 and the ms
            -- until one is there when none is. Replaces fod_limit_take (one token a call).
            CREATE FUNCTION fod_limit_take_many(p_scope text, p_key text, p_now bigint, p_per_second double precision,
                                                p_burst double precision, p_want bigint, OUT granted bigint, OUT wait bigint)
            LANGUAGE plpgsql AS $$
            DECLARE
                digest bytea := sha256(convert_to(p_key, 'UTF8'));
                held double precision;
                held_at bigint;
            BEGIN
                \(tokenBucketRefill)
                granted := least(greatest(p_want, 1), floor(held))::bigint;
                IF granted >= 1 THEN
                    held := held - granted;
                ELSE
                    granted := 0;
                    wait := ceil((1 - held) / p_per_second * 1000);
                END IF;
                UPDATE limit_buckets SET tokens = held, at = p_now, full_at = p_now + ceil((p_burst - held) / p_per_second * 1000)::bigint
                    WHERE scope = p_scope AND key_digest = digest;
            END $$;
            DROP FUNCTION fod_limit_take(text, text, bigint, double precision, double precision);
            """),
        Migration(version: 8, name: "a version of each group's places, for the nodes' copies of them", sql: """
            -- Moves forward in the transaction of every change of a group's places or their index
            -- cells, on any node: a node's in-memory copy of the group's places (PlaceIndexCache)
            -- is used only while the version is the one it was read at. No row: version 0.
            CREATE TABLE place_versions (
                group_id text PRIMARY KEY,
                version bigint NOT NULL
            );
            INSERT INTO place_versions (group_id, version) SELECT DISTINCT group_id, 1 FROM places;
            \(groupVersionBump(function: "fod_bump_place_version", table: "place_versions"))
            CREATE TRIGGER places_move_version AFTER INSERT OR UPDATE OR DELETE ON places
                FOR EACH ROW EXECUTE FUNCTION fod_bump_place_version();
            CREATE TRIGGER place_cells_move_version AFTER INSERT OR UPDATE OR DELETE ON place_cells
                FOR EACH ROW EXECUTE FUNCTION fod_bump_place_version();
            """),
        signInRecords,
        Migration(version: 10, name: "what phone apps say besides fixes: status, rejections, region events, OwnTracks secret", sql: """
            -- The device's status (API.md, "Phone apps never stall"): when it last posted (written
            -- at most once a minute, only forward) and its newest battery level with the time it
            -- was read (replaced only by a later reading, whichever node writes).
            ALTER TABLE devices ADD COLUMN last_seen_at bigint, ADD COLUMN battery double precision,
                ADD COLUMN battery_at bigint,
            -- The owner's OwnTracks payload encryption passphrase. Unlike a token it must be kept as
            -- given (it opens and seals the device's messages); like a token it is a credential the
            -- phone holds. Only the OwnTracks endpoint reads it; no reply, export or log carries it.
                ADD COLUMN owntracks_secret text;
            -- Messages that could not be stored, one row per reason and request, the newest 100
            -- per device kept (ids increase with arrival).
            CREATE TABLE device_rejections (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                device_key bigint NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                at bigint NOT NULL,
                source text NOT NULL,
                reason text NOT NULL,
                message text NOT NULL,
                sample text NOT NULL,
                count integer NOT NULL
            );
            CREATE INDEX device_rejections_by_device ON device_rejections (device_key, id);
            -- Region events the phone reported (OwnTracks transitions), the newest 1,000 per device
            -- kept; the same event sent again (same time, kind and region) is kept once.
            CREATE TABLE device_events (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                device_key bigint NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                received_at bigint NOT NULL,
                ts bigint NOT NULL,
                event text NOT NULL,
                region text NOT NULL,
                lon double precision,
                lat double precision,
                accuracy double precision,
                detected_by text
            );
            CREATE UNIQUE INDEX device_events_once ON device_events (device_key, ts, event, region);
            CREATE INDEX device_events_by_device ON device_events (device_key, id);
            """),
        Migration(version: 11, name: "notification channels, alerts, the delivery queue and consumer cursors",
                  sql: NotificationTables.schema(.postgres)),
        Migration(version: 12, name: "administrators, disabled accounts, invite codes, invitations by email, import tokens",
                  sql: AccountTables.schema),
        Migration(version: 13, name: "a history version per device (what groups see of hidden latest positions is cached by it)", sql: """
            -- Moved by every append and deletion of the device's fixes, in their transaction:
            -- SharedLatestCache keys by it, so a cached answer is always one of this snapshot.
            ALTER TABLE devices ADD COLUMN history_version bigint NOT NULL DEFAULT 0;
            """),
    ]

    /// Applies the pending migrations in one transaction, under the migration lock;
    /// throws `SchemaTooNew`, changing nothing, when a newer release has migrated the database.
    static func migrate(_ connection: Connection) throws {
        try connection.transaction { c in
            try c.queryPrepared("SELECT pg_advisory_xact_lock($1)", [.int64(lockKey.rawValue)])
            try c.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let applied = Set(try c.query("SELECT version FROM schema_migrations").rows.map { try $0.int64(0) })
            // A database a newer release migrated: refused before any migration runs (the
            // transaction then rolls back, so nothing is changed).
            let known = migrations.last?.version ?? 0
            if let newest = applied.max(), newest > known {
                throw SchemaTooNew(database: "the PostgreSQL database", found: newest, known: known)
            }
            for migration in migrations where !applied.contains(migration.version) {
                try c.execute(migration.sql)
                try c.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                            [.int64(migration.version), .text(migration.name)])
            }
        }
    }

    /// The newest version applied (0 for an empty database).
    static func version(_ connection: Connection) throws -> Int64 {
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL").row(0).bool(0)
        guard exists else { return 0 }
        return try connection.query("SELECT coalesce(max(version), 0) FROM schema_migrations").row(0).int64(0)
    }
}
