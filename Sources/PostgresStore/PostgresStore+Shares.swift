import PostgresClient
import Tracking

/// `ShareTransaction` over one connection inside a transaction.
struct PostgresShares: ShareTransaction {
    let c: Connection

    static let columns = "id, device_id, name, created_at, since, expires_at, views"

    static func share(_ row: Row) throws -> ShareLink {
        ShareLink(id: try row.id(0), deviceID: try row.id(1), name: try row.optionalText(2), createdAt: try row.time(3),
                  since: try row.time(4), expiresAt: try row.time(5), views: try row.int64(6))
    }

    func shareableDevice(id: DeviceID) throws -> (ownerID: UserID, name: String)? {
        try c.firstRow("SELECT owner_id, name FROM devices WHERE id = $1", [.id(id)]) { (ownerID: try $0.id(0), name: try $0.text(1)) }
    }

    func shares(deviceID: DeviceID) throws -> [ShareLink] {
        try c.rows("SELECT \(Self.columns) FROM shares WHERE device_id = $1 ORDER BY created_at DESC, id", [.id(deviceID)], Self.share)
    }

    func share(tokenHash: String) throws -> ShareLink? {
        try c.firstRow("SELECT \(Self.columns) FROM shares WHERE token_hash = $1", [.text(tokenHash)], Self.share)
    }

    func insertShare(_ share: ShareLink, tokenHash: String) throws {
        try c.run("""
            INSERT INTO shares (id, device_id, token_hash, name, created_at, since, expires_at, views) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """, [.id(share.id), .id(share.deviceID), .text(tokenHash), .optional(share.name), .time(share.createdAt),
                  .time(share.since), .time(share.expiresAt), .int64(share.views)])
    }

    func deleteShare(id: ShareID, deviceID: DeviceID) throws -> Bool {
        try c.run("DELETE FROM shares WHERE id = $1 AND device_id = $2", [.id(id), .id(deviceID)]) > 0
    }

    func deleteExpiredShares(deviceID: DeviceID, before: Int64) throws -> Int {
        try c.run("DELETE FROM shares WHERE device_id = $1 AND expires_at < $2", [.id(deviceID), .int64(before)])
    }

    func updateShare(_ share: ShareLink) throws {
        try c.run("UPDATE shares SET since = $1, expires_at = $2 WHERE id = $3", [.time(share.since), .time(share.expiresAt), .id(share.id)])
    }

    func addShareView(id: ShareID) throws {
        try c.run("UPDATE shares SET views = views + 1 WHERE id = $1", [.id(id)])
    }

    func latestFix(deviceID: DeviceID) throws -> SharedFix? {
        try c.firstRow("""
            SELECT f.lon, f.lat, f.ts, f.accuracy, f.seq FROM devices d JOIN fixes f ON f.device_key = d.key AND f.ts = d.last_ts
            WHERE d.id = $1 ORDER BY f.seq DESC LIMIT 1
            """, [.id(deviceID)], Self.fix)
    }

    func track(deviceID: DeviceID, since: Int64, limit: Int) throws -> [SharedFix] {
        let newestFirst = try c.rows("""
            SELECT f.lon, f.lat, f.ts, f.accuracy, f.seq FROM devices d JOIN fixes f ON f.device_key = d.key
            WHERE d.id = $1 AND f.ts >= $2 ORDER BY f.ts DESC, f.seq DESC LIMIT $3
            """, [.id(deviceID), .int64(since), .int(max(0, limit))], Self.fix)
        return Array(newestFirst.reversed())
    }

    static func fix(_ row: Row) throws -> SharedFix {
        SharedFix(position: try row.position(0), timestamp: try row.time(2),
                  accuracy: try row.optionalDouble(3), sequence: try row.int64(4))
    }
}

extension PostgresStore: ShareStore {
    public func readShares<T>(_ body: (any ShareTransaction) throws -> T) throws -> T {
        try readSnapshot { try body(PostgresShares(c: $0)) }
    }

    public func writeShares<T: Sendable>(_ body: @escaping @Sendable (any ShareTransaction) throws -> T) async throws -> T {
        try await write { try body(PostgresShares(c: $0)) }
    }
}

extension PostgresStore: FriendStore {
    public func friendsSnapshot(deviceID: DeviceID) throws -> FriendsSnapshot? {
        try readSnapshot { (c: Connection) throws -> FriendsSnapshot? in
            guard let receives = try c.firstRow("SELECT receive_group_locations FROM devices WHERE id = $1", [.id(deviceID)], {
                try $0.bool(0)
            }) else { return nil }
            guard receives else { return FriendsSnapshot(receivesGroupLocations: false, candidates: []) }
            var periods: [String: [(start: Int64, end: Int64?)]] = [:]
            for row in try c.queryPrepared("""
                SELECT p.group_id, p.user_id, p.start_ts, p.end_ts FROM memberships mine
                JOIN sharing_periods p ON p.group_id = mine.group_id WHERE mine.device_id = $1
                """, [.id(deviceID)]).rows {
                periods[try row.text(0) + " " + row.text(1), default: []].append((try row.int64(2), try row.optionalInt64(3)))
            }
            let candidates = try c.rows("""
                SELECT m.group_id, m.user_id, u.display_name, m.device_id, d.name, m.share_location, d.last_lon, d.last_lat, d.last_ts,
                       (SELECT f.accuracy FROM fixes f WHERE f.device_key = d.key AND f.ts = d.last_ts ORDER BY f.seq DESC LIMIT 1),
                       d.battery, d.key, d.history_version
                FROM memberships mine JOIN memberships m ON m.group_id = mine.group_id
                JOIN users u ON u.id = m.user_id JOIN devices d ON d.id = m.device_id
                WHERE mine.device_id = $1
                """, [.id(deviceID)]) { row -> (candidate: FriendCandidate, key: Int64, last: ShownFix?, version: Int64) in
                let key = try row.text(0) + " " + row.text(1)
                let last = try row.lastLocation(at: 6).map { ShownFix(location: $0, accuracy: try row.optionalDouble(9)) }
                return (candidate: FriendCandidate(groupID: try row.id(0), userID: try row.id(1), displayName: try row.text(2),
                                                   deviceID: try row.id(3), deviceName: try row.text(4), sharing: try row.bool(5),
                                                   latest: last?.location, accuracy: last?.accuracy,
                                                   windows: HistoryWindows(periods: periods[key] ?? []), battery: try row.optionalDouble(10)),
                        key: try row.int64(11), last: last, version: try row.int64(12))
            }.map { row -> FriendCandidate in
                let c0 = row.candidate
                guard c0.sharing else { return c0 }
                let shown = try Self.sharedLatest(deviceKey: row.key, last: row.last, windows: c0.windows, version: row.version, on: c)
                return FriendCandidate(groupID: c0.groupID, userID: c0.userID, displayName: c0.displayName, deviceID: c0.deviceID,
                                       deviceName: c0.deviceName, sharing: c0.sharing, latest: shown?.location, accuracy: shown?.accuracy,
                                       windows: c0.windows, battery: c0.battery)
            }
            return FriendsSnapshot(receivesGroupLocations: true, candidates: candidates)
        }
    }
}
