import SQLCore
import Tracking
import Storage

/// The database schema, as numbered migrations (append only; never edit an applied one).
///
/// Times are INTEGER milliseconds since 1970 UTC. Secrets are stored only as hashes.
public enum Schema {
    /// A stored fix's position and measurements, as the history tables of migrations 3 (`fixes`)
    /// and 5 (`locations`) declare them; each line but the first starts at the column the
    /// interpolation does (four spaces into its table).
    static let fixColumns = """
        lon REAL NOT NULL,
            lat REAL NOT NULL,
            accuracy REAL,
            altitude REAL,
            speed REAL,
            heading REAL,
            battery REAL,
            client_id TEXT,
        """

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
        .init(version: 2, name: "devices, groups, memberships, invitations", sql: """
            CREATE TABLE devices (
                key INTEGER PRIMARY KEY,            -- compact internal key for location rows
                id TEXT NOT NULL UNIQUE,
                owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                platform_id TEXT,
                token_hash TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL,
                -- the newest fix by timestamp (not by arrival), denormalised for lists and groups
                last_lon REAL,
                last_lat REAL,
                last_ts INTEGER,
                last_cell INTEGER
            );
            CREATE INDEX devices_by_owner ON devices(owner_id);
            CREATE TABLE groups (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX groups_by_owner ON groups(owner_id);
            CREATE TABLE memberships (
                group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                share_location INTEGER NOT NULL DEFAULT 1,
                joined_at INTEGER NOT NULL,
                PRIMARY KEY (group_id, user_id)
            ) WITHOUT ROWID;
            CREATE INDEX memberships_by_user ON memberships(user_id);
            CREATE INDEX memberships_by_device ON memberships(device_id);
            CREATE TABLE invitations (
                group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                invitee_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                sender_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL,
                PRIMARY KEY (group_id, invitee_id)
            ) WITHOUT ROWID;
            CREATE INDEX invitations_by_invitee ON invitations(invitee_id);
            CREATE INDEX invitations_by_sender ON invitations(sender_id);
            """),
        .init(version: 3, name: "location history keyed by leaf cell", sql: """
            -- One row per stored fix, clustered on the S2 leaf cell id (signed 64-bit, as MongoDB
            -- stores it), so a covering's cell ranges are contiguous B-tree scans that yield
            -- position, device and time with no second lookup. `seq` is the global arrival
            -- order (unique), which also breaks ties between fixes with equal timestamps.
            CREATE TABLE fixes (
                cell INTEGER NOT NULL,
                device_key INTEGER NOT NULL,
                ts INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                \(fixColumns)
                PRIMARY KEY (cell, device_key, ts, seq)
            ) WITHOUT ROWID;
            -- History pages, duplicate-by-timestamp checks and retention, per device in time order.
            CREATE INDEX fixes_by_device_time ON fixes(device_key, ts, seq);
            -- A client id is stored at most once per device.
            CREATE UNIQUE INDEX fixes_by_client_id ON fixes(device_key, client_id) WHERE client_id IS NOT NULL;
            CREATE INDEX devices_by_last_cell ON devices(last_cell) WHERE last_cell IS NOT NULL;
            """),
        .init(version: 4, name: "group event log", sql: """
            -- The live feed's log: per group, ids increase by one with every event, written in the
            -- same transaction as the change they describe. Old rows are pruned after a window;
            -- `event_heads` remembers the last id even when every row of a group was pruned.
            CREATE TABLE events (
                group_id TEXT NOT NULL,
                id INTEGER NOT NULL,
                type TEXT NOT NULL,          -- 'location' or 'membership'
                user_id TEXT,                -- whose location / whose membership
                data TEXT NOT NULL,          -- the event's JSON
                created_at INTEGER NOT NULL,
                PRIMARY KEY (group_id, id)
            ) WITHOUT ROWID;
            CREATE INDEX events_by_time ON events(created_at);
            CREATE TABLE event_heads (
                group_id TEXT PRIMARY KEY,
                last_id INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        .init(version: 5, name: "history clustered by device and time, cell index merged behind", sql: """
            -- Ingest writes only `locations` (clustered by device and time: a device's new fixes
            -- append to its own range) and `index_queue` (rowid order: pure appends). A background
            -- merge moves queued fixes into `cell_index` and `client_ids` in large cell-sorted
            -- batches, which is what makes random-key B-tree inserts affordable; until then the
            -- server keeps the queue in memory and queries consult it (see UnmergedFixes).
            CREATE TABLE locations (
                device_key INTEGER NOT NULL,
                ts INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                cell INTEGER NOT NULL,
                \(fixColumns)
                PRIMARY KEY (device_key, ts, seq)
            ) WITHOUT ROWID;
            -- The 2dsphere index: signed leaf cell id first, position and time included, so a
            -- covering's ranges are contiguous scans with no second lookup.
            CREATE TABLE cell_index (
                cell INTEGER NOT NULL,
                device_key INTEGER NOT NULL,
                ts INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                lon REAL NOT NULL,
                lat REAL NOT NULL,
                PRIMARY KEY (cell, device_key, ts, seq)
            ) WITHOUT ROWID;
            -- A client id is stored at most once per device.
            CREATE TABLE client_ids (
                device_key INTEGER NOT NULL,
                client_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                PRIMARY KEY (device_key, client_id)
            ) WITHOUT ROWID;
            -- Fixes in `locations` not yet in `cell_index` / `client_ids`, in arrival order: one
            -- row per append, its fixes (sequences seq, seq+1, …) in one blob (IndexQueueRecord).
            -- A fix deleted before its merge is skipped by the merge.
            CREATE TABLE index_queue (
                seq INTEGER PRIMARY KEY,
                device_key INTEGER NOT NULL,
                fixes BLOB NOT NULL
            );
            -- How far merging has come (MergePoint): every fix with seq ≤ merged_through is in
            -- cell_index, and so is every fix with seq ≤ cycle_through whose cell < cycle_cell
            -- (a merge cycle goes through cells in order, one commit per chunk); progress counts
            -- merge commits. ids_merged_through: the same for client_ids. last_seq: the highest
            -- sequence ever handed out. deletions: counts commits that deleted fixes (a merge
            -- checks its fixes are still stored only if it changed since it read them).
            CREATE TABLE index_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                merged_through INTEGER NOT NULL,
                cycle_through INTEGER NOT NULL,
                cycle_cell INTEGER NOT NULL,
                progress INTEGER NOT NULL,
                ids_merged_through INTEGER NOT NULL,
                last_seq INTEGER NOT NULL,
                deletions INTEGER NOT NULL DEFAULT 0
            );
            INSERT INTO locations SELECT device_key, ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id
                FROM fixes ORDER BY device_key, ts, seq;
            INSERT INTO cell_index SELECT cell, device_key, ts, seq, lon, lat FROM fixes;
            INSERT INTO client_ids SELECT device_key, client_id, seq FROM fixes WHERE client_id IS NOT NULL ORDER BY device_key, client_id;
            INSERT INTO index_state SELECT 1, coalesce(max(seq), 0), coalesce(max(seq), 0), -9223372036854775808, 0,
                coalesce(max(seq), 0), coalesce(max(seq), 0), 0 FROM fixes;
            DROP TABLE fixes;
            """),
        .init(version: 6, name: "sharing periods (history visibility)", sql: """
            -- When a member's device was shared with a group: from joining (or turning sharing on)
            -- until turning it off (end_ts) or leaving (the rows go with the membership). A member
            -- reads another device's history only inside these periods (HistoryWindows).
            CREATE TABLE sharing_periods (
                group_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                start_ts INTEGER NOT NULL,
                end_ts INTEGER,               -- NULL while sharing is on
                PRIMARY KEY (group_id, user_id, start_ts),
                FOREIGN KEY (group_id, user_id) REFERENCES memberships(group_id, user_id) ON DELETE CASCADE
            ) WITHOUT ROWID;
            CREATE INDEX sharing_periods_by_device ON sharing_periods(device_id);
            -- Members sharing now have shared since they joined; the history of members not
            -- sharing now is unknown, so nothing of it is visible until they share again.
            INSERT INTO sharing_periods (group_id, user_id, device_id, start_ts, end_ts)
                SELECT group_id, user_id, device_id, joined_at, NULL FROM memberships WHERE share_location = 1;
            """),
        .init(version: 7, name: "location events name their fix (redaction on delete)", sql: """
            -- A location event records which fix it shows, so deleting fixes (owner range delete,
            -- device or account deletion, retention) redacts their events: replay and /changes
            -- never serve a deleted position. Redacted rows keep their id (no gaps) with type
            -- 'redacted' and empty data; readers skip them.
            ALTER TABLE events ADD COLUMN device_key INTEGER;
            ALTER TABLE events ADD COLUMN fix_ts INTEGER;
            UPDATE events SET
                device_key = (SELECT key FROM devices WHERE id = json_extract(events.data, '$.deviceId')),
                fix_ts = CAST(round((julianday(json_extract(events.data, '$.timestamp')) - 2440587.5) * 86400000) AS INTEGER)
                WHERE type = 'location';
            UPDATE events SET type = 'redacted', data = '{}' WHERE type = 'location' AND (device_key IS NULL OR fix_ts IS NULL);
            CREATE INDEX events_by_fix ON events(device_key, fix_ts) WHERE device_key IS NOT NULL;
            """),
        .init(version: 8, name: "sessions: public ids, last use, client", sql: """
            -- A session has a public id (to list and revoke it without its token), the time it
            -- was last used (idle expiry; updated at most once a minute) and what signed it in.
            ALTER TABLE sessions ADD COLUMN id TEXT;
            ALTER TABLE sessions ADD COLUMN last_used_at INTEGER;
            ALTER TABLE sessions ADD COLUMN client TEXT;
            UPDATE sessions SET id = 's_' || lower(hex(randomblob(12))), last_used_at = created_at;
            CREATE UNIQUE INDEX sessions_by_id ON sessions(id);
            """),
        .init(version: 9, name: "share links; devices that receive their groups' locations", sql: """
            -- A share link shows one device to whoever holds its token (stored only hashed) until
            -- expires_at; `since` is where its track starts. Revoking deletes the row.
            CREATE TABLE shares (
                id TEXT PRIMARY KEY,
                device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                token_hash TEXT NOT NULL UNIQUE,
                name TEXT,
                created_at INTEGER NOT NULL,
                since INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                views INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX shares_by_device ON shares(device_id, created_at);
            -- The owner's choice: the device's OwnTracks replies carry its groups' locations.
            ALTER TABLE devices ADD COLUMN receive_group_locations INTEGER NOT NULL DEFAULT 0;
            """),
        .init(version: 10, name: "places (geofences), their cell index and presence", sql: """
            -- A group's places: a circle (GeoJSON Point + radius, meters) or a Polygon, stored as
            -- the client sent it. `key` is the compact internal key of the rows below.
            CREATE TABLE places (
                key INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                geometry TEXT NOT NULL,
                radius REAL,
                created_by TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                revision INTEGER NOT NULL DEFAULT 1   -- +1 whenever the geometry changes
            );
            CREATE INDEX places_by_group ON places(group_id, created_at);
            -- The place index: each place's covering cells (PlaceShape: levels 4, 6, ..., 22,
            -- signed cell ids as in cell_index), per group, so the places of a group that may
            -- contain a fix are found by probing the fix's ancestors at those levels.
            CREATE TABLE place_cells (
                group_id TEXT NOT NULL,
                cell INTEGER NOT NULL,
                place_key INTEGER NOT NULL REFERENCES places(key) ON DELETE CASCADE,
                PRIMARY KEY (group_id, cell, place_key)
            ) WITHOUT ROWID;
            CREATE INDEX place_cells_by_place ON place_cells(place_key);
            -- Whose presence the server knows in a group's places: a row once the device's state
            -- was set (silently) by its first evaluated fix. With a row, a place without a
            -- presence row is one the device is outside of.
            CREATE TABLE place_baselines (
                group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                device_key INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                PRIMARY KEY (group_id, device_key)
            ) WITHOUT ROWID;
            CREATE INDEX place_baselines_by_device ON place_baselines(device_key);
            -- Remembered presence: inside = 1, or 0 for "not known yet" (a fix too inaccurate
            -- for the place set nothing). Outside is the absence of a row (under a baseline).
            CREATE TABLE place_presence (
                device_key INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                group_id TEXT NOT NULL,
                place_key INTEGER NOT NULL REFERENCES places(key) ON DELETE CASCADE,
                inside INTEGER NOT NULL,
                PRIMARY KEY (device_key, group_id, place_key)
            ) WITHOUT ROWID;
            CREATE INDEX place_presence_by_place ON place_presence(place_key);
            -- A member who stops sharing or leaves is no longer followed: their presence is
            -- forgotten, and set again silently once they share again.
            CREATE TRIGGER place_state_ends_with_sharing AFTER UPDATE OF share_location ON memberships
            WHEN NEW.share_location = 0 BEGIN
                DELETE FROM place_baselines WHERE group_id = NEW.group_id
                    AND device_key = (SELECT key FROM devices WHERE id = NEW.device_id);
                DELETE FROM place_presence WHERE group_id = NEW.group_id
                    AND device_key = (SELECT key FROM devices WHERE id = NEW.device_id);
            END;
            CREATE TRIGGER place_state_ends_with_membership AFTER DELETE ON memberships BEGIN
                DELETE FROM place_baselines WHERE group_id = OLD.group_id
                    AND device_key = (SELECT key FROM devices WHERE id = OLD.device_id);
                DELETE FROM place_presence WHERE group_id = OLD.group_id
                    AND device_key = (SELECT key FROM devices WHERE id = OLD.device_id);
            END;
            """),
        .init(version: 11, name: "visibility version (cache invalidation)", sql: """
            -- Counts every change of who sees whose positions in a group: memberships (join, leave,
            -- removal, sharing switch, and the cascades of device, account and group deletion)
            -- and sharing periods. Bumped by triggers inside the changing transaction, so a reader
            -- that finds the version its cache entry was read at knows the entry is current
            -- (VisibilityCache).
            CREATE TABLE visibility_version (only INTEGER PRIMARY KEY CHECK (only = 1), version INTEGER NOT NULL);
            INSERT INTO visibility_version VALUES (1, 0);
            CREATE TRIGGER memberships_inserted AFTER INSERT ON memberships BEGIN UPDATE visibility_version SET version = version + 1; END;
            CREATE TRIGGER memberships_updated AFTER UPDATE ON memberships BEGIN UPDATE visibility_version SET version = version + 1; END;
            CREATE TRIGGER memberships_deleted AFTER DELETE ON memberships BEGIN UPDATE visibility_version SET version = version + 1; END;
            CREATE TRIGGER sharing_periods_inserted AFTER INSERT ON sharing_periods BEGIN UPDATE visibility_version SET version = version + 1; END;
            CREATE TRIGGER sharing_periods_updated AFTER UPDATE ON sharing_periods BEGIN UPDATE visibility_version SET version = version + 1; END;
            CREATE TRIGGER sharing_periods_deleted AFTER DELETE ON sharing_periods BEGIN UPDATE visibility_version SET version = version + 1; END;
            """),
        .init(version: 12, name: "place versions (cache invalidation)", sql: """
            -- Per group: counts every change of its places or their index cells (create, rename,
            -- reshape, delete, and the cascades of group deletion). Bumped by triggers inside the
            -- changing transaction, so an append that finds the version its cached copy of the
            -- group's places was read at knows the copy is current (PlaceIndexCache). A group
            -- that never had a place has no row (version 0).
            CREATE TABLE place_versions (group_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO place_versions SELECT group_id, 1 FROM places GROUP BY group_id;
            CREATE TRIGGER places_inserted AFTER INSERT ON places BEGIN
                INSERT INTO place_versions VALUES (NEW.group_id, 1) ON CONFLICT (group_id) DO UPDATE SET version = version + 1;
            END;
            CREATE TRIGGER places_updated AFTER UPDATE ON places BEGIN
                INSERT INTO place_versions VALUES (OLD.group_id, 1) ON CONFLICT (group_id) DO UPDATE SET version = version + 1;
                INSERT INTO place_versions VALUES (NEW.group_id, 1) ON CONFLICT (group_id) DO UPDATE SET version = version + 1;
            END;
            CREATE TRIGGER places_deleted AFTER DELETE ON places BEGIN
                INSERT INTO place_versions VALUES (OLD.group_id, 1) ON CONFLICT (group_id) DO UPDATE SET version = version + 1;
            END;
            CREATE TRIGGER place_cells_inserted AFTER INSERT ON place_cells BEGIN
                INSERT INTO place_versions VALUES (NEW.group_id, 1) ON CONFLICT (group_id) DO UPDATE SET version = version + 1;
            END;
            CREATE TRIGGER place_cells_deleted AFTER DELETE ON place_cells BEGIN
                INSERT INTO place_versions VALUES (OLD.group_id, 1) ON CONFLICT (group_id) DO UPDATE SET version = version + 1;
            END;
            """),
        .init(version: 13, name: "failed sign-ins per account and the addresses accounts signed in from", sql: """
            -- SignInThrottle's records. Keys are BLAKE2b digests (AccountService): of the
            -- normalised email, whether an account has it or not; of the user id and the client's
            -- address (IPv4, or IPv6 /64). A failure record goes with a correct password, or once
            -- its latest attempt is a day old; an account keeps its most recent addresses only.
            CREATE TABLE sign_in_failures (
                account_key TEXT PRIMARY KEY,
                failures INTEGER NOT NULL,
                last_attempt_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX sign_in_failures_by_age ON sign_in_failures(last_attempt_at);
            CREATE TABLE sign_in_addresses (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                address_key TEXT NOT NULL,
                last_sign_in_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, address_key)
            ) WITHOUT ROWID;
            """),
        .init(version: 14, name: "what phone apps say besides fixes: status, rejections, region events, OwnTracks secret", sql: """
            -- The device's status (API.md, "Phone apps never stall"): when it last posted (written
            -- at most once a minute) and its newest battery level with the time it was read.
            ALTER TABLE devices ADD COLUMN last_seen_at INTEGER;
            ALTER TABLE devices ADD COLUMN battery REAL;
            ALTER TABLE devices ADD COLUMN battery_at INTEGER;
            -- The owner's OwnTracks payload encryption passphrase. Unlike a token it must be kept as
            -- given (it opens and seals the device's messages); like a token it is a credential the
            -- phone holds. Only the OwnTracks endpoint reads it; no reply, export or log carries it.
            ALTER TABLE devices ADD COLUMN owntracks_secret TEXT;
            -- Messages that could not be stored, one row per reason and request, the newest 100
            -- per device kept (ids increase with arrival).
            CREATE TABLE device_rejections (
                id INTEGER PRIMARY KEY,
                device_key INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                at INTEGER NOT NULL,
                source TEXT NOT NULL,
                reason TEXT NOT NULL,
                message TEXT NOT NULL,
                sample TEXT NOT NULL,
                count INTEGER NOT NULL
            );
            CREATE INDEX device_rejections_by_device ON device_rejections(device_key, id);
            -- Region events the phone reported (OwnTracks transitions), the newest 1,000 per device
            -- kept; the same event sent again (same time, kind and region) is kept once.
            CREATE TABLE device_events (
                id INTEGER PRIMARY KEY,
                device_key INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
                received_at INTEGER NOT NULL,
                ts INTEGER NOT NULL,
                event TEXT NOT NULL,
                region TEXT NOT NULL,
                lon REAL,
                lat REAL,
                accuracy REAL,
                detected_by TEXT
            );
            CREATE UNIQUE INDEX device_events_once ON device_events(device_key, ts, event, region);
            CREATE INDEX device_events_by_device ON device_events(device_key, id);
            """),
        .init(version: 15, name: "notification channels, alerts, the delivery queue and consumer cursors",
              sql: NotificationTables.schema(.sqlite)),
        .init(version: 16, name: "administrators, disabled accounts, invite codes, invitations by email, import tokens",
              sql: AccountTables.schema),
        .init(version: 17, name: "a history version per device (what groups see of hidden latest positions is cached by it)", sql: """
            -- Moved by every append and deletion of the device's fixes, in their transaction:
            -- SharedLatestCache keys by it, so a cached answer is always one of this snapshot.
            ALTER TABLE devices ADD COLUMN history_version INTEGER NOT NULL DEFAULT 0;
            """),
    ])
}
