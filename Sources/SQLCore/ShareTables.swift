import Tracking

/// What a share write revoked or renewed, for a store that announces its own commits (the
/// embedded store records it inside the transaction and announces it once it commits;
/// PostgreSQL's relays announce every node's commits and record nothing).
public protocol ShareChangeRecorder: Sendable {
    func revoked(_ id: ShareID)
    func renewed(_ id: ShareID, expiresAt: Int64)
}

/// `ShareTransaction` written once for both stores: the `shares` table and the device's fixes,
/// inside the store's transaction on `db` (valid only as long as it; its reads see its writes).
public struct ShareTables: ShareTransaction {
    let db: any SQLExecutor
    /// Told of every revocation and renewal (nil in a read, and on a store that records none).
    let changes: (any ShareChangeRecorder)?

    public init(db: any SQLExecutor, changes: (any ShareChangeRecorder)? = nil) {
        self.db = db
        self.changes = changes
    }

    /// The columns `share(_:)` decodes, in its order.
    static let columns = "id, device_id, name, created_at, since, expires_at, views"

    static func share(_ row: any SQLRow) throws -> ShareLink {
        ShareLink(id: try row.id(0), deviceID: try row.id(1), name: try row.optionalText(2), createdAt: try row.time(3),
                  since: try row.time(4), expiresAt: try row.time(5), views: try row.int64(6))
    }

    public func shareableDevice(id: DeviceID) throws -> (ownerID: UserID, name: String)? {
        try db.firstRow("SELECT owner_id, name FROM devices WHERE id = ?", [.id(id)]) { (ownerID: try $0.id(0), name: try $0.text(1)) }
    }

    public func shares(deviceID: DeviceID) throws -> [ShareLink] {
        try db.rows("SELECT \(Self.columns) FROM shares WHERE device_id = ? ORDER BY created_at DESC, id", [.id(deviceID)], Self.share)
    }

    public func share(tokenHash: String) throws -> ShareLink? {
        try db.firstRow("SELECT \(Self.columns) FROM shares WHERE token_hash = ?", [.text(tokenHash)], Self.share)
    }

    public func insertShare(_ share: ShareLink, tokenHash: String) throws {
        try db.run("""
            INSERT INTO shares (id, device_id, token_hash, name, created_at, since, expires_at, views) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.id(share.id), .id(share.deviceID), .text(tokenHash), .optional(share.name), .time(share.createdAt),
                  .time(share.since), .time(share.expiresAt), .integer(share.views)])
    }

    public func deleteShare(id: ShareID, deviceID: DeviceID) throws -> Bool {
        let deleted = try db.run("DELETE FROM shares WHERE id = ? AND device_id = ?", [.id(id), .id(deviceID)]) > 0
        if deleted { changes?.revoked(id) }
        return deleted
    }

    public func deleteExpiredShares(deviceID: DeviceID, before: Int64) throws -> Int {
        try db.run("DELETE FROM shares WHERE device_id = ? AND expires_at < ?", [.id(deviceID), .integer(before)])
    }

    public func updateShare(_ share: ShareLink) throws {
        try db.run("UPDATE shares SET since = ?, expires_at = ? WHERE id = ?", [.time(share.since), .time(share.expiresAt), .id(share.id)])
        changes?.renewed(share.id, expiresAt: share.expiresAt.millisecondsSince1970)
    }

    public func addShareView(id: ShareID) throws {
        try db.run("UPDATE shares SET views = views + 1 WHERE id = ?", [.id(id)])
    }

    public func latestFix(deviceID: DeviceID) throws -> SharedFix? {
        try db.firstRow("""
            SELECT f.lon, f.lat, f.ts, f.accuracy, f.seq FROM devices d JOIN \(db.dialect.fixesTable) f ON f.device_key = d.key AND f.ts = d.last_ts
            WHERE d.id = ? ORDER BY f.seq DESC LIMIT 1
            """, [.id(deviceID)], Self.fix)
    }

    public func track(deviceID: DeviceID, since: Int64, limit: Int) throws -> [SharedFix] {
        let newestFirst = try db.rows("""
            SELECT f.lon, f.lat, f.ts, f.accuracy, f.seq FROM devices d JOIN \(db.dialect.fixesTable) f ON f.device_key = d.key
            WHERE d.id = ? AND f.ts >= ? ORDER BY f.ts DESC, f.seq DESC LIMIT ?
            """, [.id(deviceID), .integer(since), .int(max(0, limit))], Self.fix)
        return Array(newestFirst.reversed())
    }

    static func fix(_ row: any SQLRow) throws -> SharedFix {
        SharedFix(position: try row.position(0), timestamp: try row.time(2), accuracy: try row.optionalDouble(3), sequence: try row.int64(4))
    }
}

/// `ShareStore.readShares` in one snapshot (each store writes them itself: SQLite announces
/// what a write changed).
extension SQLTransactions {
    public func readShares<T>(_ body: (any ShareTransaction) throws -> T) throws -> T {
        try readSQL { try body(ShareTables(db: $0)) }
    }
}
