import Tracking
import JSONCore
import SQLCore
import Storage

/// `DirectoryTransaction` over one SQLite connection inside a transaction.
struct SQLiteDirectory: DirectoryTransaction {
    let db: Database
    /// The backend's mirror of unmerged fixes (deleting a device deletes its entries there too).
    let unmerged: UnmergedFixes
    /// What a write transaction logs, announced once it commits (nil in a read).
    var changes: CommittedChanges? = nil

    /// This transaction's connection, for the statements written once in `SQLCore`.
    var sql: SQLiteExecutor { SQLiteExecutor(db: db) }

    static let deviceColumns = "id, owner_id, name, platform_id, created_at, last_lon, last_lat, last_ts, receive_group_locations, "
        + "owntracks_secret IS NOT NULL, \(SQLiteDeviceReport.statusColumns)"

    static func device(_ row: Statement) -> Device {
        let last = row.isNull(7) ? nil : LastLocation(position: row.position(5), timestamp: row.time(7))
        return Device(id: row.id(0), ownerID: row.id(1), name: row.string(2), platformID: row.optionalString(3),
                      createdAt: row.time(4), lastLocation: last, receiveGroupLocations: row.bool(8),
                      status: SQLiteDeviceReport.status(row, at: 10), ownTracksEncryption: row.bool(9))
    }

    func user(id: UserID) throws -> User? { try SQLiteBackend.user(id: id, in: db) }

    func user(email: String) throws -> User? {
        try db.firstRow("SELECT \(AccountTables.userColumns) FROM users WHERE email = ?", [.text(email)], SQLiteBackend.user)
    }

    func device(id: DeviceID) throws -> Device? {
        try db.firstRow("SELECT \(Self.deviceColumns) FROM devices WHERE id = ?", [.id(id)], Self.device)
    }

    func devices(ownerID: UserID) throws -> [Device] {
        try db.rows("SELECT \(Self.deviceColumns) FROM devices WHERE owner_id = ? ORDER BY created_at, id", [.id(ownerID)], Self.device)
    }

    func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)? {
        // A disabled account's devices post no more (`AccountAdministrationStore`).
        try db.firstRow("""
            SELECT d.id, d.owner_id FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.token_hash = ? AND u.disabled_at IS NULL
            """, [.text(tokenHash)]) { ($0.id(0), $0.id(1)) }
    }

    func insertDevice(_ device: Device, tokenHash: String) throws {
        try db.run("INSERT INTO devices (id, owner_id, name, platform_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                   [.id(device.id), .id(device.ownerID), .text(device.name), .optional(device.platformID),
                    .text(tokenHash), .time(device.createdAt)])
    }

    func renameDevice(id: DeviceID, name: String) throws {
        try db.run("UPDATE devices SET name = ? WHERE id = ?", [.text(name), .id(id)])
    }

    func setReceiveGroupLocations(id: DeviceID, _ receive: Bool) throws {
        try db.run("UPDATE devices SET receive_group_locations = ? WHERE id = ?", [.bool(receive), .id(id)])
    }

    func setOwnTracksSecret(id: DeviceID, _ secret: String?) throws {
        try db.run("UPDATE devices SET owntracks_secret = ? WHERE id = ?", [.optional(secret), .id(id)])
    }

    func replaceDeviceToken(id: DeviceID, tokenHash: String) throws {
        try db.run("UPDATE devices SET token_hash = ? WHERE id = ?", [.text(tokenHash), .id(id)])
    }

    func deleteDevice(id: DeviceID) throws {
        if let key = try db.firstRow("SELECT key FROM devices WHERE id = ?", [.id(id)], { $0.int64(0) }) {
            try SQLiteBackend.deleteAllFixes(deviceKey: key, unmerged: unmerged, in: db)
        }
        try db.run("DELETE FROM devices WHERE id = ?", [.id(id)])
    }

    func deleteUser(id: UserID) throws {
        // Locations have no foreign key (they are keyed for speed): delete them first.
        for key in try db.rows("SELECT key FROM devices WHERE owner_id = ?", [.id(id)], { $0.int64(0) }) {
            try SQLiteBackend.deleteAllFixes(deviceKey: key, unmerged: unmerged, in: db)
        }
        try db.run("DELETE FROM users WHERE id = ?", [.id(id)])
    }

    func memberships(userID: UserID) throws -> [Membership] {
        try db.rows("SELECT group_id, user_id, device_id, share_location FROM memberships WHERE user_id = ?",
                    [.id(userID)], Self.membership)
    }

    func group(id: GroupID) throws -> GroupRecord? {
        try db.firstRow("SELECT id, name, owner_id, created_at FROM groups WHERE id = ?", [.id(id)]) {
            GroupRecord(id: $0.id(0), name: $0.string(1), ownerID: $0.id(2), createdAt: $0.time(3))
        }
    }

    /// Members in join order; a sharing member's location is the newest fix of their device
    /// taken while shared with the group (`SharedLatest`).
    func members(groupID: GroupID) throws -> [GroupMember] {
        let windows = try SQLiteBackend.sharingWindows(groupID: groupID, in: db)
        return try db.rows("""
            SELECT m.user_id, u.display_name, m.device_id, d.name, m.share_location, d.last_lon, d.last_lat, d.last_ts, d.key,
                   d.history_version
            FROM memberships m JOIN users u ON u.id = m.user_id JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = ? ORDER BY m.joined_at, m.user_id
            """, [.id(groupID)]) { row in
            let sharing = row.bool(4)
            let last = sharing && !row.isNull(7) ? LastLocation(position: row.position(5), timestamp: row.time(7)) : nil
            let location = try SQLiteBackend.sharedLatest(deviceKey: row.int64(8), last: last, windows: windows[row.id(0)] ?? .none,
                                                          version: row.int64(9), in: db)
            return GroupMember(userID: row.id(0), displayName: row.string(1), deviceID: row.id(2),
                               deviceName: row.string(3), shareLocation: sharing, location: location)
        }
    }

    func newestFix(deviceID: DeviceID, in range: ClosedRange<Int64>) throws -> LastLocation? {
        guard let key = try db.firstRow("SELECT key FROM devices WHERE id = ?", [.id(deviceID)], { $0.int64(0) }) else { return nil }
        return try SQLiteBackend.newestFix(deviceKey: key, in: range, in: db)?.location
    }

    func insertGroup(_ group: GroupRecord) throws {
        try db.run("INSERT INTO groups (id, name, owner_id, created_at) VALUES (?, ?, ?, ?)",
                   [.id(group.id), .text(group.name), .id(group.ownerID), .time(group.createdAt)])
    }

    func setGroupOwner(groupID: GroupID, ownerID: UserID) throws {
        try db.run("UPDATE groups SET owner_id = ? WHERE id = ?", [.id(ownerID), .id(groupID)])
    }

    func setGroupName(groupID: GroupID, name: String) throws {
        try db.run("UPDATE groups SET name = ? WHERE id = ?", [.text(name), .id(groupID)])
    }

    func deleteGroup(id: GroupID) throws {
        try db.run("DELETE FROM groups WHERE id = ?", [.id(id)])
    }

    func ownedGroupIDs(userID: UserID) throws -> [GroupID] {
        try db.rows("SELECT id FROM groups WHERE owner_id = ?", [.id(userID)]) { $0.id(0) }
    }

    func membership(groupID: GroupID, userID: UserID) throws -> Membership? {
        try db.firstRow("SELECT group_id, user_id, device_id, share_location FROM memberships WHERE group_id = ? AND user_id = ?",
                        [.id(groupID), .id(userID)], Self.membership)
    }

    func memberships(deviceID: DeviceID) throws -> [Membership] {
        try db.rows("SELECT group_id, user_id, device_id, share_location FROM memberships WHERE device_id = ?",
                    [.id(deviceID)], Self.membership)
    }

    static func membership(_ row: Statement) -> Membership {
        Membership(groupID: row.id(0), userID: row.id(1), deviceID: row.id(2), shareLocation: row.bool(3))
    }

    func membershipSummaries(userID: UserID) throws -> [MembershipSummary] {
        try db.rows("""
            SELECT m.group_id, g.name, m.device_id, g.owner_id = m.user_id, m.share_location
            FROM memberships m JOIN groups g ON g.id = m.group_id WHERE m.user_id = ? ORDER BY m.joined_at, m.group_id
            """, [.id(userID)]) {
            MembershipSummary(groupID: $0.id(0), groupName: $0.string(1), deviceID: $0.id(2),
                              isOwner: $0.bool(3), shareLocation: $0.bool(4))
        }
    }

    func insertMembership(_ membership: Membership, at time: Int64) throws {
        try db.run("INSERT INTO memberships (group_id, user_id, device_id, share_location, joined_at) VALUES (?, ?, ?, ?, ?)",
                   [.id(membership.groupID), .id(membership.userID), .id(membership.deviceID),
                    .bool(membership.shareLocation), .integer(time)])
    }

    func deleteMembership(groupID: GroupID, userID: UserID) throws {
        try db.run("DELETE FROM memberships WHERE group_id = ? AND user_id = ?", [.id(groupID), .id(userID)])
    }

    func setSharing(groupID: GroupID, userID: UserID, share: Bool) throws {
        try db.run("UPDATE memberships SET share_location = ? WHERE group_id = ? AND user_id = ?",
                   [.bool(share), .id(groupID), .id(userID)])
    }

    func openSharingPeriod(groupID: GroupID, userID: UserID, deviceID: DeviceID, at time: Int64) throws {
        try db.run("""
            INSERT INTO sharing_periods (group_id, user_id, device_id, start_ts, end_ts) VALUES (?, ?, ?, ?, NULL)
            ON CONFLICT (group_id, user_id, start_ts) DO UPDATE SET end_ts = NULL
            """, [.id(groupID), .id(userID), .id(deviceID), .integer(time)])
    }

    func closeSharingPeriod(groupID: GroupID, userID: UserID, at time: Int64) throws {
        try db.run("UPDATE sharing_periods SET end_ts = max(start_ts, ?) WHERE group_id = ? AND user_id = ? AND end_ts IS NULL",
                   [.integer(time), .id(groupID), .id(userID)])
    }

    func hasInvitation(groupID: GroupID, inviteeID: UserID) throws -> Bool {
        try db.firstRow("SELECT 1 FROM invitations WHERE group_id = ? AND invitee_id = ?", [.id(groupID), .id(inviteeID)]) { _ in true } ?? false
    }

    func insertInvitation(groupID: GroupID, inviteeID: UserID, senderID: UserID, at time: Int64) throws {
        try db.run("INSERT INTO invitations (group_id, invitee_id, sender_id, created_at) VALUES (?, ?, ?, ?)",
                   [.id(groupID), .id(inviteeID), .id(senderID), .integer(time)])
    }

    func deleteInvitation(groupID: GroupID, inviteeID: UserID) throws {
        try db.run("DELETE FROM invitations WHERE group_id = ? AND invitee_id = ?", [.id(groupID), .id(inviteeID)])
    }

    func invitationSummaries(inviteeID: UserID) throws -> [InvitationSummary] {
        try db.rows("""
            SELECT i.group_id, g.name, u.email FROM invitations i
            JOIN groups g ON g.id = i.group_id JOIN users u ON u.id = i.sender_id
            WHERE i.invitee_id = ? ORDER BY i.created_at, i.group_id
            """, [.id(inviteeID)]) {
            InvitationSummary(groupID: $0.id(0), groupName: $0.string(1), senderEmail: $0.string(2))
        }
    }

    func hasEmailInvitation(groupID: GroupID, email: String, now: Int64) throws -> Bool {
        try AccountTables.hasEmailInvitation(groupID: groupID, email: email, now: now, on: SQLiteExecutor(db: db))
    }

    func insertEmailInvitation(groupID: GroupID, email: String, senderID: UserID, at time: Int64, expiresAt: Int64) throws {
        try AccountTables.insertEmailInvitation(groupID: groupID, email: email, senderID: senderID, at: time, expiresAt: expiresAt,
                                                on: SQLiteExecutor(db: db))
    }
}

extension SQLiteDirectory {
    func appendMembershipEvent(groupID: GroupID, _ event: MembershipEvent) throws -> GroupEvent {
        let events = try SQLiteBackend.appendEvents(groupID: groupID, [event.entry(groupID: groupID)], in: db)
        guard let event = events.first else { throw StorageError(code: 1, message: "event not appended") }
        changes?.logged([event])
        return event
    }
}

extension SQLiteBackend: DirectoryStore {
    /// Runs `body` in a write; the events it logs are announced through `commits` right after
    /// the commit, before `onCommit`.
    public func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T,
                                            onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        let door = commits, unmerged = self.unmerged
        return try await write({ db -> Announced<T> in
            let changes = CommittedChanges()
            return Announced(value: try body(SQLiteDirectory(db: db, unmerged: unmerged, changes: changes)), changes: changes)
        }, onCommit: { committed in
            committed.changes.announce(through: door)
            onCommit(committed.value)
        }).value
    }

    public func readDirectory<T>(_ body: (any DirectoryTransaction) throws -> T) throws -> T {
        try read { try body(SQLiteDirectory(db: $0, unmerged: self.unmerged)) }
    }

    public func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T) async throws -> T {
        try await writeDirectory(body, onCommit: { _ in })
    }

    public func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)? {
        try read { try SQLiteDirectory(db: $0, unmerged: self.unmerged).deviceCredential(tokenHash: tokenHash) }
    }

    public func deviceOwner(deviceID: DeviceID) throws -> UserID? {
        try read { try $0.firstRow("SELECT owner_id FROM devices WHERE id = ?", [.id(deviceID)]) { $0.id(0) } }
    }

    public func isMember(userID: UserID, groupID: GroupID) throws -> Bool {
        try read {
            try $0.firstRow("SELECT 1 FROM memberships WHERE group_id = ? AND user_id = ?", [.id(groupID), .id(userID)]) { _ in true } ?? false
        }
    }

    public func isSharedWith(deviceID: DeviceID, viewerID: UserID) throws -> Bool {
        try read {
            try $0.firstRow("""
                SELECT 1 FROM memberships shared JOIN memberships viewer ON viewer.group_id = shared.group_id
                WHERE shared.device_id = ? AND shared.share_location = 1 AND viewer.user_id = ? LIMIT 1
                """, [.id(deviceID), .id(viewerID)]) { _ in true } ?? false
        }
    }

    public func sharedHistoryWindows(deviceID: DeviceID, viewerID: UserID) throws -> HistoryWindows {
        try read { db in
            HistoryWindows(periods: try db.rows("""
                SELECT p.start_ts, p.end_ts FROM memberships shared
                JOIN memberships viewer ON viewer.group_id = shared.group_id AND viewer.user_id = ?
                JOIN sharing_periods p ON p.group_id = shared.group_id AND p.user_id = shared.user_id
                WHERE shared.device_id = ? AND shared.share_location = 1
                """, [.id(viewerID), .id(deviceID)]) { (start: $0.int64(0), end: $0.optionalInt64(1)) })
        }
    }

    /// The sharing periods of every member of `groupID` who shares now, by user id.
    static func sharingWindows(groupID: GroupID, in db: Database) throws -> [UserID: HistoryWindows] {
        var periods: [UserID: [(start: Int64, end: Int64?)]] = [:]
        try db.forEachRow("""
            SELECT p.user_id, p.start_ts, p.end_ts FROM sharing_periods p
            JOIN memberships m ON m.group_id = p.group_id AND m.user_id = p.user_id
            WHERE p.group_id = ? AND m.share_location = 1
            """, [.id(groupID)]) { row in
            periods[row.id(0), default: []].append((row.int64(1), row.optionalInt64(2)))
        }
        return periods.mapValues { HistoryWindows(periods: $0) }
    }
}
