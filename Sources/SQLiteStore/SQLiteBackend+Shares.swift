import Tracking
import Storage

/// `ShareTransaction` over one SQLite connection inside a transaction.
struct SQLiteShares: ShareTransaction {
    let db: Database
    /// What a write transaction changes, announced once it commits (nil in a read).
    var changes: CommittedChanges? = nil

    static let columns = "id, device_id, name, created_at, since, expires_at, views"

    static func share(_ row: Statement) -> ShareLink {
        ShareLink(id: row.id(0), deviceID: row.id(1), name: row.optionalString(2), createdAt: row.time(3),
                  since: row.time(4), expiresAt: row.time(5), views: row.int64(6))
    }

    func shareableDevice(id: DeviceID) throws -> (ownerID: UserID, name: String)? {
        try db.firstRow("SELECT owner_id, name FROM devices WHERE id = ?", [.id(id)]) { (ownerID: $0.id(0), name: $0.string(1)) }
    }

    func shares(deviceID: DeviceID) throws -> [ShareLink] {
        try db.rows("SELECT \(Self.columns) FROM shares WHERE device_id = ? ORDER BY created_at DESC, id", [.id(deviceID)], Self.share)
    }

    func share(tokenHash: String) throws -> ShareLink? {
        try db.firstRow("SELECT \(Self.columns) FROM shares WHERE token_hash = ?", [.text(tokenHash)], Self.share)
    }

    func insertShare(_ share: ShareLink, tokenHash: String) throws {
        try db.run("""
            INSERT INTO shares (id, device_id, token_hash, name, created_at, since, expires_at, views) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.id(share.id), .id(share.deviceID), .text(tokenHash), .optional(share.name), .time(share.createdAt),
                  .time(share.since), .time(share.expiresAt), .integer(share.views)])
    }

    func deleteShare(id: ShareID, deviceID: DeviceID) throws -> Bool {
        let deleted = try db.run("DELETE FROM shares WHERE id = ? AND device_id = ?", [.id(id), .id(deviceID)]) > 0
        if deleted { changes?.revoked(id) }
        return deleted
    }

    func deleteExpiredShares(deviceID: DeviceID, before: Int64) throws -> Int {
        try db.run("DELETE FROM shares WHERE device_id = ? AND expires_at < ?", [.id(deviceID), .integer(before)])
    }

    func updateShare(_ share: ShareLink) throws {
        try db.run("UPDATE shares SET since = ?, expires_at = ? WHERE id = ?", [.time(share.since), .time(share.expiresAt), .id(share.id)])
        changes?.renewed(share.id, expiresAt: share.expiresAt.millisecondsSince1970)
    }

    func addShareView(id: ShareID) throws {
        try db.run("UPDATE shares SET views = views + 1 WHERE id = ?", [.id(id)])
    }

    func latestFix(deviceID: DeviceID) throws -> SharedFix? {
        try db.firstRow("""
            SELECT l.lon, l.lat, l.ts, l.accuracy, l.seq FROM devices d JOIN locations l ON l.device_key = d.key AND l.ts = d.last_ts
            WHERE d.id = ? ORDER BY l.seq DESC LIMIT 1
            """, [.id(deviceID)], Self.fix)
    }

    func track(deviceID: DeviceID, since: Int64, limit: Int) throws -> [SharedFix] {
        let newestFirst = try db.rows("""
            SELECT l.lon, l.lat, l.ts, l.accuracy, l.seq FROM devices d JOIN locations l ON l.device_key = d.key
            WHERE d.id = ? AND l.ts >= ? ORDER BY l.ts DESC, l.seq DESC LIMIT ?
            """, [.id(deviceID), .integer(since), .int(limit)], Self.fix)
        return Array(newestFirst.reversed())
    }

    static func fix(_ row: Statement) -> SharedFix {
        SharedFix(position: row.position(0), timestamp: row.time(2), accuracy: row.optionalDouble(3),
                  sequence: row.int64(4))
    }
}

extension SQLiteBackend: ShareStore {
    public func readShares<T>(_ body: (any ShareTransaction) throws -> T) throws -> T {
        try read { try body(SQLiteShares(db: $0)) }
    }

    /// Runs `body` in a write; the links it revokes or renews are announced through `commits`
    /// right after the commit.
    public func writeShares<T: Sendable>(_ body: @escaping @Sendable (any ShareTransaction) throws -> T) async throws -> T {
        let door = commits
        return try await write({ db -> Announced<T> in
            let changes = CommittedChanges()
            return Announced(value: try body(SQLiteShares(db: db, changes: changes)), changes: changes)
        }, onCommit: { $0.changes.announce(through: door) }).value
    }
}

extension SQLiteBackend: FriendStore {
    public func friendsSnapshot(deviceID: DeviceID) throws -> FriendsSnapshot? {
        try read { db in
            guard let receives = try db.firstRow("SELECT receive_group_locations FROM devices WHERE id = ?", [.id(deviceID)], { $0.bool(0) })
            else { return nil }
            guard receives else { return FriendsSnapshot(receivesGroupLocations: false, candidates: []) }
            var periods: [String: [(start: Int64, end: Int64?)]] = [:]
            try db.forEachRow("""
                SELECT p.group_id, p.user_id, p.start_ts, p.end_ts FROM memberships mine
                JOIN sharing_periods p ON p.group_id = mine.group_id WHERE mine.device_id = ?
                """, [.id(deviceID)]) { row in
                periods[row.string(0) + " " + row.string(1), default: []].append((row.int64(2), row.optionalInt64(3)))
            }
            let candidates = try db.rows("""
                SELECT m.group_id, m.user_id, u.display_name, m.device_id, d.name, m.share_location, d.last_lon, d.last_lat, d.last_ts,
                       (SELECT l.accuracy FROM locations l WHERE l.device_key = d.key AND l.ts = d.last_ts ORDER BY l.seq DESC LIMIT 1),
                       d.battery, d.key, d.history_version
                FROM memberships mine JOIN memberships m ON m.group_id = mine.group_id
                JOIN users u ON u.id = m.user_id JOIN devices d ON d.id = m.device_id
                WHERE mine.device_id = ?
                """, [.id(deviceID)]) { row -> FriendCandidate in
                let windows = HistoryWindows(periods: periods[row.string(0) + " " + row.string(1)] ?? [])
                let last = row.isNull(8) ? nil : ShownFix(location: LastLocation(position: row.position(6), timestamp: row.time(8)),
                                                         accuracy: row.optionalDouble(9))
                let shown = row.bool(5) ? try Self.sharedLatest(deviceKey: row.int64(11), last: last, windows: windows,
                                                                     version: row.int64(12), in: db) : last
                return FriendCandidate(groupID: row.id(0), userID: row.id(1), displayName: row.string(2), deviceID: row.id(3),
                                       deviceName: row.string(4), sharing: row.bool(5), latest: shown?.location, accuracy: shown?.accuracy,
                                       windows: windows, battery: row.optionalDouble(10))
            }
            return FriendsSnapshot(receivesGroupLocations: true, candidates: candidates)
        }
    }
}
