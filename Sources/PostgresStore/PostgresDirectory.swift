import PostgresClient
import SQLCore
import Tracking

/// `DirectoryTransaction` over one connection inside a transaction (the writer's, or a
/// reader's read-only snapshot).
struct PostgresDirectory: DirectoryTransaction {
    let c: Connection
    /// Parsed place shapes (places are edited inside directory transactions too).
    let shapes: PlaceShapeCache

    /// This transaction's connection, for the statements written once in `SQLCore`.
    var sql: PostgresExecutor { PostgresExecutor(c: c) }

    static let deviceColumns = "id, owner_id, name, platform_id, created_at, last_lon, last_lat, last_ts, receive_group_locations, "
        + "owntracks_secret IS NOT NULL, \(PostgresDeviceReport.statusColumns)"

    static func device(_ row: Row) throws -> Device {
        Device(id: try row.id(0), ownerID: try row.id(1), name: try row.text(2), platformID: try row.optionalText(3),
               createdAt: try row.time(4), lastLocation: try row.lastLocation(at: 5), receiveGroupLocations: try row.bool(8),
               status: try PostgresDeviceReport.status(row, at: 10), ownTracksEncryption: try row.bool(9))
    }

    static func membership(_ row: Row) throws -> Membership {
        Membership(groupID: try row.id(0), userID: try row.id(1), deviceID: try row.id(2), shareLocation: try row.bool(3))
    }

    func user(id: UserID) throws -> User? { try PostgresStore.user(id: id, on: c) }

    func user(email: String) throws -> User? {
        try c.firstRow("SELECT \(AccountTables.userColumns) FROM users WHERE email = $1", [.text(email)], PostgresStore.user)
    }

    func device(id: DeviceID) throws -> Device? {
        try c.firstRow("SELECT \(Self.deviceColumns) FROM devices WHERE id = $1", [.id(id)], Self.device)
    }

    func devices(ownerID: UserID) throws -> [Device] {
        try c.rows("SELECT \(Self.deviceColumns) FROM devices WHERE owner_id = $1 ORDER BY created_at, id", [.id(ownerID)], Self.device)
    }

    func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)? {
        // A disabled account's devices post no more (`AccountAdministrationStore`).
        try c.firstRow("""
            SELECT d.id, d.owner_id FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.token_hash = $1 AND u.disabled_at IS NULL
            """, [.text(tokenHash)]) { (try $0.id(0), try $0.id(1)) }
    }

    func insertDevice(_ device: Device, tokenHash: String) throws {
        try c.run("INSERT INTO devices (id, owner_id, name, platform_id, token_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
                  [.id(device.id), .id(device.ownerID), .text(device.name), .optional(device.platformID),
                   .text(tokenHash), .time(device.createdAt)])
    }

    func renameDevice(id: DeviceID, name: String) throws {
        try c.run("UPDATE devices SET name = $1 WHERE id = $2", [.text(name), .id(id)])
    }

    func setReceiveGroupLocations(id: DeviceID, _ receive: Bool) throws {
        try c.run("UPDATE devices SET receive_group_locations = $1 WHERE id = $2", [.bool(receive), .id(id)])
    }

    func setOwnTracksSecret(id: DeviceID, _ secret: String?) throws {
        try c.run("UPDATE devices SET owntracks_secret = $1 WHERE id = $2", [.optional(secret), .id(id)])
    }

    func replaceDeviceToken(id: DeviceID, tokenHash: String) throws {
        try c.run("UPDATE devices SET token_hash = $1 WHERE id = $2", [.text(tokenHash), .id(id)])
    }

    func deleteDevice(id: DeviceID) throws {
        if let key = try c.firstRow("SELECT key FROM devices WHERE id = $1", [.id(id)], { try $0.int64(0) }) {
            try PostgresStore.deleteAllFixes(deviceKey: key, on: c)
        }
        try c.run("DELETE FROM devices WHERE id = $1", [.id(id)])
    }

    func deleteUser(id: UserID) throws {
        // Fixes have no foreign key (they are keyed for speed): delete them first.
        for key in try c.rows("SELECT key FROM devices WHERE owner_id = $1", [.id(id)], { try $0.int64(0) }) {
            try PostgresStore.deleteAllFixes(deviceKey: key, on: c)
        }
        try c.run("DELETE FROM users WHERE id = $1", [.id(id)])
    }

    func memberships(userID: UserID) throws -> [Membership] {
        try c.rows("SELECT group_id, user_id, device_id, share_location FROM memberships WHERE user_id = $1",
                   [.id(userID)], Self.membership)
    }

    func group(id: GroupID) throws -> GroupRecord? {
        try c.firstRow("SELECT id, name, owner_id, created_at FROM groups WHERE id = $1", [.id(id)]) {
            GroupRecord(id: try $0.id(0), name: try $0.text(1), ownerID: try $0.id(2), createdAt: try $0.time(3))
        }
    }

    /// Members in join order; a sharing member's location is the newest fix of their device
    /// taken while shared with the group (`SharedLatest`).
    func members(groupID: GroupID) throws -> [GroupMember] {
        let windows = try PostgresStore.sharingWindows(groupID: groupID, on: c)
        let rows = try c.rows("""
            SELECT m.user_id, u.display_name, m.device_id, d.name, m.share_location, d.last_lon, d.last_lat, d.last_ts, d.key,
                   d.history_version
            FROM memberships m JOIN users u ON u.id = m.user_id JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = $1 ORDER BY m.joined_at, m.user_id
            """, [.id(groupID)]) { row in
            let sharing = try row.bool(4)
            return (member: GroupMember(userID: try row.id(0), displayName: try row.text(1), deviceID: try row.id(2),
                                        deviceName: try row.text(3), shareLocation: sharing, location: sharing ? try row.lastLocation(at: 5) : nil),
                    key: try row.int64(8), version: try row.int64(9))
        }
        return try rows.map { row in
            var member = row.member
            member.location = try PostgresStore.sharedLatest(deviceKey: row.key, last: member.location,
                                                             windows: windows[member.userID] ?? .none, version: row.version, on: c)
            return member
        }
    }

    func newestFix(deviceID: DeviceID, in range: ClosedRange<Int64>) throws -> LastLocation? {
        guard let key = try c.firstRow("SELECT key FROM devices WHERE id = $1", [.id(deviceID)], { try $0.int64(0) }) else { return nil }
        return try PostgresStore.newestFix(deviceKey: key, in: range, on: c)?.location
    }

    func insertGroup(_ group: GroupRecord) throws {
        try c.run("INSERT INTO groups (id, name, owner_id, created_at) VALUES ($1, $2, $3, $4)",
                  [.id(group.id), .text(group.name), .id(group.ownerID), .time(group.createdAt)])
    }

    func setGroupOwner(groupID: GroupID, ownerID: UserID) throws {
        try c.run("UPDATE groups SET owner_id = $1 WHERE id = $2", [.id(ownerID), .id(groupID)])
    }

    func setGroupName(groupID: GroupID, name: String) throws {
        try c.run("UPDATE groups SET name = $1 WHERE id = $2", [.text(name), .id(groupID)])
    }

    func deleteGroup(id: GroupID) throws {
        try c.run("DELETE FROM groups WHERE id = $1", [.id(id)])
    }

    func ownedGroupIDs(userID: UserID) throws -> [GroupID] {
        try c.rows("SELECT id FROM groups WHERE owner_id = $1 ORDER BY id", [.id(userID)]) { try $0.id(0) }
    }

    func membership(groupID: GroupID, userID: UserID) throws -> Membership? {
        try c.firstRow("SELECT group_id, user_id, device_id, share_location FROM memberships WHERE group_id = $1 AND user_id = $2",
                       [.id(groupID), .id(userID)], Self.membership)
    }

    func memberships(deviceID: DeviceID) throws -> [Membership] {
        try c.rows("SELECT group_id, user_id, device_id, share_location FROM memberships WHERE device_id = $1",
                   [.id(deviceID)], Self.membership)
    }

    func membershipSummaries(userID: UserID) throws -> [MembershipSummary] {
        try c.rows("""
            SELECT m.group_id, g.name, m.device_id, g.owner_id = m.user_id, m.share_location
            FROM memberships m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $1 ORDER BY m.joined_at, m.group_id
            """, [.id(userID)]) {
            MembershipSummary(groupID: try $0.id(0), groupName: try $0.text(1), deviceID: try $0.id(2),
                              isOwner: try $0.bool(3), shareLocation: try $0.bool(4))
        }
    }

    func insertMembership(_ membership: Membership, at time: Int64) throws {
        try c.run("INSERT INTO memberships (group_id, user_id, device_id, share_location, joined_at) VALUES ($1, $2, $3, $4, $5)",
                  [.id(membership.groupID), .id(membership.userID), .id(membership.deviceID),
                   .bool(membership.shareLocation), .int64(time)])
    }

    func deleteMembership(groupID: GroupID, userID: UserID) throws {
        try c.run("DELETE FROM memberships WHERE group_id = $1 AND user_id = $2", [.id(groupID), .id(userID)])
    }

    func setSharing(groupID: GroupID, userID: UserID, share: Bool) throws {
        try c.run("UPDATE memberships SET share_location = $1 WHERE group_id = $2 AND user_id = $3",
                  [.bool(share), .id(groupID), .id(userID)])
    }

    func openSharingPeriod(groupID: GroupID, userID: UserID, deviceID: DeviceID, at time: Int64) throws {
        try c.run("""
            INSERT INTO sharing_periods (group_id, user_id, device_id, start_ts, end_ts) VALUES ($1, $2, $3, $4, NULL)
            ON CONFLICT (group_id, user_id, start_ts) DO UPDATE SET end_ts = NULL
            """, [.id(groupID), .id(userID), .id(deviceID), .int64(time)])
    }

    func closeSharingPeriod(groupID: GroupID, userID: UserID, at time: Int64) throws {
        try c.run("""
            UPDATE sharing_periods SET end_ts = greatest(start_ts, $1) WHERE group_id = $2 AND user_id = $3 AND end_ts IS NULL
            """, [.int64(time), .id(groupID), .id(userID)])
    }

    func hasInvitation(groupID: GroupID, inviteeID: UserID) throws -> Bool {
        try c.firstRow("SELECT 1 FROM invitations WHERE group_id = $1 AND invitee_id = $2", [.id(groupID), .id(inviteeID)]) { _ in true } ?? false
    }

    func insertInvitation(groupID: GroupID, inviteeID: UserID, senderID: UserID, at time: Int64) throws {
        try c.run("INSERT INTO invitations (group_id, invitee_id, sender_id, created_at) VALUES ($1, $2, $3, $4)",
                  [.id(groupID), .id(inviteeID), .id(senderID), .int64(time)])
    }

    func deleteInvitation(groupID: GroupID, inviteeID: UserID) throws {
        try c.run("DELETE FROM invitations WHERE group_id = $1 AND invitee_id = $2", [.id(groupID), .id(inviteeID)])
    }

    func invitationSummaries(inviteeID: UserID) throws -> [InvitationSummary] {
        try c.rows("""
            SELECT i.group_id, g.name, u.email FROM invitations i
            JOIN groups g ON g.id = i.group_id JOIN users u ON u.id = i.sender_id
            WHERE i.invitee_id = $1 ORDER BY i.created_at, i.group_id
            """, [.id(inviteeID)]) {
            InvitationSummary(groupID: try $0.id(0), groupName: try $0.text(1), senderEmail: try $0.text(2))
        }
    }

    func hasEmailInvitation(groupID: GroupID, email: String, now: Int64) throws -> Bool {
        try AccountTables.hasEmailInvitation(groupID: groupID, email: email, now: now, on: PostgresExecutor(c: c))
    }

    func insertEmailInvitation(groupID: GroupID, email: String, senderID: UserID, at time: Int64, expiresAt: Int64) throws {
        try AccountTables.insertEmailInvitation(groupID: groupID, email: email, senderID: senderID, at: time, expiresAt: expiresAt,
                                                on: PostgresExecutor(c: c))
    }

    func appendMembershipEvent(groupID: GroupID, _ event: MembershipEvent) throws -> GroupEvent {
        let events = try PostgresStore.appendEvents(groupID: groupID, [event.entry(groupID: groupID)], on: c)
        guard let event = events.first else {
            throw PostgresError(sqlState: .internalError, origin: .client, message: "the membership event was not appended")
        }
        return event
    }
}

extension PostgresStore: DirectoryStore {
    public func readDirectory<T>(_ body: (any DirectoryTransaction) throws -> T) throws -> T {
        try readSnapshot { try body(PostgresDirectory(c: $0, shapes: placeShapes)) }
    }

    public func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T) async throws -> T {
        let shapes = placeShapes
        return try await write { try body(PostgresDirectory(c: $0, shapes: shapes)) }
    }

    public func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T,
                                            onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        let shapes = placeShapes
        return try await write({ try body(PostgresDirectory(c: $0, shapes: shapes)) }, onCommit: onCommit)
    }

    public func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)? {
        try read { try PostgresDirectory(c: $0, shapes: placeShapes).deviceCredential(tokenHash: tokenHash) }
    }

    public func deviceOwner(deviceID: DeviceID) throws -> UserID? {
        try read { try $0.firstRow("SELECT owner_id FROM devices WHERE id = $1", [.id(deviceID)]) { try $0.id(0) } }
    }

    public func isMember(userID: UserID, groupID: GroupID) throws -> Bool {
        try read {
            try $0.firstRow("SELECT 1 FROM memberships WHERE group_id = $1 AND user_id = $2", [.id(groupID), .id(userID)]) { _ in true } ?? false
        }
    }

    public func isSharedWith(deviceID: DeviceID, viewerID: UserID) throws -> Bool {
        try read {
            try $0.firstRow("""
                SELECT 1 FROM memberships shared JOIN memberships viewer ON viewer.group_id = shared.group_id
                WHERE shared.device_id = $1 AND shared.share_location AND viewer.user_id = $2 LIMIT 1
                """, [.id(deviceID), .id(viewerID)]) { _ in true } ?? false
        }
    }

    public func sharedHistoryWindows(deviceID: DeviceID, viewerID: UserID) throws -> HistoryWindows {
        try read { c in
            HistoryWindows(periods: try c.rows("""
                SELECT p.start_ts, p.end_ts FROM memberships shared
                JOIN memberships viewer ON viewer.group_id = shared.group_id AND viewer.user_id = $1
                JOIN sharing_periods p ON p.group_id = shared.group_id AND p.user_id = shared.user_id
                WHERE shared.device_id = $2 AND shared.share_location
                """, [.id(viewerID), .id(deviceID)]) { (start: try $0.int64(0), end: try $0.optionalInt64(1)) })
        }
    }

    /// The sharing periods of every member of `groupID` who shares now, by user id.
    static func sharingWindows(groupID: GroupID, on c: Connection) throws -> [UserID: HistoryWindows] {
        var periods: [UserID: [(start: Int64, end: Int64?)]] = [:]
        for row in try c.queryPrepared("""
            SELECT p.user_id, p.start_ts, p.end_ts FROM sharing_periods p
            JOIN memberships m ON m.group_id = p.group_id AND m.user_id = p.user_id
            WHERE p.group_id = $1 AND m.share_location
            """, [.id(groupID)]).rows {
            periods[try row.id(0), default: []].append((try row.int64(1), try row.optionalInt64(2)))
        }
        return periods.mapValues { HistoryWindows(periods: $0) }
    }
}
