import Tracking

/// A store's `DirectoryTransaction` over `DirectoryTables`: it gets every directory read and
/// write from here by giving its transaction's connection and what only it can do — delete a
/// device's fixes (they have no foreign key) and log a membership event
/// (`appendMembershipEvent`, each store's append).
public protocol DirectoryTablesTransaction: DirectoryTransaction {
    associatedtype Executor: SQLExecutor
    /// The transaction's connection.
    var sql: Executor { get }
    /// Deletes every fix of the device with key `deviceKey` (and whatever the store keeps of
    /// them), before the device's row goes.
    func deleteAllFixes(deviceKey: Int64) throws
}

// MARK: Users and devices

extension DirectoryTablesTransaction {
    public func user(id: UserID) throws -> User? { try DirectoryTables.user(id: id, on: sql) }

    public func user(email: String) throws -> User? {
        try sql.firstRow("SELECT \(AccountTables.userColumns) FROM users WHERE email = ?", [.text(email)], AccountTables.user)
    }

    public func device(id: DeviceID) throws -> Device? {
        try sql.firstRow("SELECT \(DirectoryTables.deviceColumns) FROM devices WHERE id = ?", [.id(id)], DirectoryTables.device)
    }

    public func devices(ownerID: UserID) throws -> [Device] {
        try sql.rows("SELECT \(DirectoryTables.deviceColumns) FROM devices WHERE owner_id = ? ORDER BY created_at, id", [.id(ownerID)],
                     DirectoryTables.device)
    }

    public func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)? {
        try DirectoryTables.deviceCredential(tokenHash: tokenHash, on: sql)
    }

    public func insertDevice(_ device: Device, tokenHash: String) throws {
        try sql.run("INSERT INTO devices (id, owner_id, name, platform_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [.id(device.id), .id(device.ownerID), .text(device.name), .optional(device.platformID),
                     .text(tokenHash), .time(device.createdAt)])
    }

    public func renameDevice(id: DeviceID, name: String) throws {
        try sql.run("UPDATE devices SET name = ? WHERE id = ?", [.text(name), .id(id)])
    }

    public func setReceiveGroupLocations(id: DeviceID, _ receive: Bool) throws {
        try sql.run("UPDATE devices SET receive_group_locations = ? WHERE id = ?", [.bool(receive), .id(id)])
    }

    public func setOwnTracksSecret(id: DeviceID, _ secret: String?) throws {
        try sql.run("UPDATE devices SET owntracks_secret = ? WHERE id = ?", [.optional(secret), .id(id)])
    }

    public func replaceDeviceToken(id: DeviceID, tokenHash: String) throws {
        try sql.run("UPDATE devices SET token_hash = ? WHERE id = ?", [.text(tokenHash), .id(id)])
    }

    public func deleteDevice(id: DeviceID) throws {
        if let key = try DirectoryTables.deviceKey(id: id, on: sql) { try deleteAllFixes(deviceKey: key) }
        try sql.run("DELETE FROM devices WHERE id = ?", [.id(id)])
    }

    public func deleteUser(id: UserID) throws {
        // Fixes have no foreign key (they are keyed for speed): delete them first.
        for key in try sql.rows("SELECT key FROM devices WHERE owner_id = ?", [.id(id)], { try $0.int64(0) }) {
            try deleteAllFixes(deviceKey: key)
        }
        try sql.run("DELETE FROM users WHERE id = ?", [.id(id)])
    }

    public func newestFix(deviceID: DeviceID, in range: ClosedRange<Int64>) throws -> LastLocation? {
        guard let key = try DirectoryTables.deviceKey(id: deviceID, on: sql) else { return nil }
        return try SharedLatestTables.newestFix(deviceKey: key, in: range, on: sql)?.location
    }
}

// MARK: Groups and memberships

extension DirectoryTablesTransaction {
    public func group(id: GroupID) throws -> GroupRecord? {
        try sql.firstRow("SELECT id, name, owner_id, created_at FROM groups WHERE id = ?", [.id(id)]) {
            GroupRecord(id: try $0.id(0), name: try $0.text(1), ownerID: try $0.id(2), createdAt: try $0.time(3))
        }
    }

    /// Members in join order; a sharing member's location is the newest fix of their device
    /// taken while shared with the group (`SharedLatest`).
    public func members(groupID: GroupID) throws -> [GroupMember] {
        let windows = try DirectoryTables.sharingWindows(groupID: groupID, on: sql)
        let rows = try sql.rows("""
            SELECT m.user_id, u.display_name, m.device_id, d.name, m.share_location, d.last_lon, d.last_lat, d.last_ts, d.key,
                   d.history_version
            FROM memberships m JOIN users u ON u.id = m.user_id JOIN devices d ON d.id = m.device_id
            WHERE m.group_id = ? ORDER BY m.joined_at, m.user_id
            """, [.id(groupID)]) { row in
            let sharing = try row.bool(4)
            let last = try sharing && !row.isNull(7) ? LastLocation(position: try row.position(5), timestamp: try row.time(7)) : nil
            return (member: GroupMember(userID: try row.id(0), displayName: try row.text(1), deviceID: try row.id(2),
                                        deviceName: try row.text(3), shareLocation: sharing, location: last),
                    key: try row.int64(8), version: try row.int64(9))
        }
        return try rows.map { row in
            var member = row.member
            member.location = try SharedLatestTables.sharedLatest(deviceKey: row.key, last: member.location,
                                                                  windows: windows[member.userID] ?? .none, version: row.version, on: sql)
            return member
        }
    }

    public func insertGroup(_ group: GroupRecord) throws {
        try sql.run("INSERT INTO groups (id, name, owner_id, created_at) VALUES (?, ?, ?, ?)",
                    [.id(group.id), .text(group.name), .id(group.ownerID), .time(group.createdAt)])
    }

    public func setGroupOwner(groupID: GroupID, ownerID: UserID) throws {
        try sql.run("UPDATE groups SET owner_id = ? WHERE id = ?", [.id(ownerID), .id(groupID)])
    }

    public func setGroupName(groupID: GroupID, name: String) throws {
        try sql.run("UPDATE groups SET name = ? WHERE id = ?", [.text(name), .id(groupID)])
    }

    public func deleteGroup(id: GroupID) throws {
        try sql.run("DELETE FROM groups WHERE id = ?", [.id(id)])
    }

    public func ownedGroupIDs(userID: UserID) throws -> [GroupID] {
        try sql.rows("SELECT id FROM groups WHERE owner_id = ? ORDER BY id", [.id(userID)]) { try $0.id(0) }
    }

    public func memberships(userID: UserID) throws -> [Membership] {
        try sql.rows("SELECT \(DirectoryTables.membershipColumns) FROM memberships WHERE user_id = ?", [.id(userID)], DirectoryTables.membership)
    }

    public func membership(groupID: GroupID, userID: UserID) throws -> Membership? {
        try sql.firstRow("SELECT \(DirectoryTables.membershipColumns) FROM memberships WHERE group_id = ? AND user_id = ?",
                         [.id(groupID), .id(userID)], DirectoryTables.membership)
    }

    public func memberships(deviceID: DeviceID) throws -> [Membership] {
        try sql.rows("SELECT \(DirectoryTables.membershipColumns) FROM memberships WHERE device_id = ?", [.id(deviceID)],
                     DirectoryTables.membership)
    }

    public func membershipSummaries(userID: UserID) throws -> [MembershipSummary] {
        try sql.rows("""
            SELECT m.group_id, g.name, m.device_id, g.owner_id = m.user_id, m.share_location
            FROM memberships m JOIN groups g ON g.id = m.group_id WHERE m.user_id = ? ORDER BY m.joined_at, m.group_id
            """, [.id(userID)]) {
            MembershipSummary(groupID: try $0.id(0), groupName: try $0.text(1), deviceID: try $0.id(2),
                              isOwner: try $0.bool(3), shareLocation: try $0.bool(4))
        }
    }

    public func insertMembership(_ membership: Membership, at time: Int64) throws {
        try sql.run("INSERT INTO memberships (group_id, user_id, device_id, share_location, joined_at) VALUES (?, ?, ?, ?, ?)",
                    [.id(membership.groupID), .id(membership.userID), .id(membership.deviceID),
                     .bool(membership.shareLocation), .integer(time)])
    }

    public func deleteMembership(groupID: GroupID, userID: UserID) throws {
        try sql.run("DELETE FROM memberships WHERE group_id = ? AND user_id = ?", [.id(groupID), .id(userID)])
    }

    public func setSharing(groupID: GroupID, userID: UserID, share: Bool) throws {
        try sql.run("UPDATE memberships SET share_location = ? WHERE group_id = ? AND user_id = ?",
                    [.bool(share), .id(groupID), .id(userID)])
    }

    /// Opens a period at `time`, or opens again the one that started then.
    public func openSharingPeriod(groupID: GroupID, userID: UserID, deviceID: DeviceID, at time: Int64) throws {
        try sql.run("""
            INSERT INTO sharing_periods (group_id, user_id, device_id, start_ts, end_ts) VALUES (?, ?, ?, ?, NULL)
            ON CONFLICT (group_id, user_id, start_ts) DO UPDATE SET end_ts = NULL
            """, [.id(groupID), .id(userID), .id(deviceID), .integer(time)])
    }

    /// Ends the open period at `time`, never before it started.
    public func closeSharingPeriod(groupID: GroupID, userID: UserID, at time: Int64) throws {
        try sql.run("""
            UPDATE sharing_periods SET end_ts = \(sql.dialect.greatest)(start_ts, ?) WHERE group_id = ? AND user_id = ? AND end_ts IS NULL
            """, [.integer(time), .id(groupID), .id(userID)])
    }
}

// MARK: Invitations

extension DirectoryTablesTransaction {
    public func hasInvitation(groupID: GroupID, inviteeID: UserID) throws -> Bool {
        try sql.firstRow("SELECT 1 FROM invitations WHERE group_id = ? AND invitee_id = ?", [.id(groupID), .id(inviteeID)]) { _ in true } ?? false
    }

    public func insertInvitation(groupID: GroupID, inviteeID: UserID, senderID: UserID, at time: Int64) throws {
        try sql.run("INSERT INTO invitations (group_id, invitee_id, sender_id, created_at) VALUES (?, ?, ?, ?)",
                    [.id(groupID), .id(inviteeID), .id(senderID), .integer(time)])
    }

    public func deleteInvitation(groupID: GroupID, inviteeID: UserID) throws {
        try sql.run("DELETE FROM invitations WHERE group_id = ? AND invitee_id = ?", [.id(groupID), .id(inviteeID)])
    }

    public func invitationSummaries(inviteeID: UserID) throws -> [InvitationSummary] {
        try sql.rows("""
            SELECT i.group_id, g.name, u.email FROM invitations i
            JOIN groups g ON g.id = i.group_id JOIN users u ON u.id = i.sender_id
            WHERE i.invitee_id = ? ORDER BY i.created_at, i.group_id
            """, [.id(inviteeID)]) {
            InvitationSummary(groupID: try $0.id(0), groupName: try $0.text(1), senderEmail: try $0.text(2))
        }
    }

    public func hasEmailInvitation(groupID: GroupID, email: String, now: Int64) throws -> Bool {
        try AccountTables.hasEmailInvitation(groupID: groupID, email: email, now: now, on: sql)
    }

    public func insertEmailInvitation(groupID: GroupID, email: String, senderID: UserID, at time: Int64, expiresAt: Int64) throws {
        try AccountTables.insertEmailInvitation(groupID: groupID, email: email, senderID: senderID, at: time, expiresAt: expiresAt, on: sql)
    }
}
