/// Primitive reads and writes over devices, groups, memberships and invitations, all inside
/// one transaction. The services express the rules with these; the store only persists.
///
/// Valid only inside the `DirectoryStore` call that gave it; its reads see its own writes.
/// Times are milliseconds since 1970. A method that finds nothing returns nil or false
/// rather than throwing; storage faults throw `StoreFailure`.
///
/// Implemented by `SQLiteDirectory` (SQLiteStore) and `PostgresDirectory` (PostgresStore), their rows
/// written once in SQLCore (`DirectoryTablesTransaction`).
public protocol DirectoryTransaction {
    func user(id: UserID) throws -> User?
    func user(email: String) throws -> User?
    func device(id: DeviceID) throws -> Device?
    func devices(ownerID: UserID) throws -> [Device]
    /// (deviceID, ownerID) of the device whose token hashes to `tokenHash`.
    func deviceCredential(tokenHash: String) throws -> (DeviceID, UserID)?
    func insertDevice(_ device: Device, tokenHash: String) throws
    func renameDevice(id: DeviceID, name: String) throws
    func setReceiveGroupLocations(id: DeviceID, _ receive: Bool) throws
    /// Sets (nil: removes) the device's OwnTracks payload encryption secret.
    func setOwnTracksSecret(id: DeviceID, _ secret: String?) throws
    func replaceDeviceToken(id: DeviceID, tokenHash: String) throws
    /// Deletes the device, its locations (redacting their events) and the memberships that use it.
    func deleteDevice(id: DeviceID) throws
    /// Deletes the user and everything that belongs to it: sessions, devices and their
    /// locations (redacting their events), memberships, invitations sent and received, owned
    /// groups. Logs nothing: the caller logs the departures first.
    func deleteUser(id: UserID) throws
    /// The user's memberships.
    func memberships(userID: UserID) throws -> [Membership]

    func group(id: GroupID) throws -> GroupRecord?
    /// Members in join order, with locations only for those who share: each the newest fix of
    /// the member's device taken while shared with the group (`SharedLatest`).
    func members(groupID: GroupID) throws -> [GroupMember]
    /// The newest fix of device `deviceID` timestamped in `range` (ms), nil when none.
    func newestFix(deviceID: DeviceID, in range: ClosedRange<Int64>) throws -> LastLocation?
    func insertGroup(_ group: GroupRecord) throws
    func setGroupOwner(groupID: GroupID, ownerID: UserID) throws
    /// Renames the group (`name` already validated).
    func setGroupName(groupID: GroupID, name: String) throws
    /// Deletes the group, its memberships and invitations.
    func deleteGroup(id: GroupID) throws
    /// Ids of the groups `userID` owns.
    func ownedGroupIDs(userID: UserID) throws -> [GroupID]

    func membership(groupID: GroupID, userID: UserID) throws -> Membership?
    /// Memberships that use device `deviceID`.
    func memberships(deviceID: DeviceID) throws -> [Membership]
    func membershipSummaries(userID: UserID) throws -> [MembershipSummary]
    func insertMembership(_ membership: Membership, at time: Int64) throws
    func deleteMembership(groupID: GroupID, userID: UserID) throws
    func setSharing(groupID: GroupID, userID: UserID, share: Bool) throws
    /// Starts a sharing period of the membership at `time` (ms); its history from then on is
    /// visible to the group (see `HistoryWindows`).
    func openSharingPeriod(groupID: GroupID, userID: UserID, deviceID: DeviceID, at time: Int64) throws
    /// Ends the membership's open sharing period, if any, at `time` (ms). Periods disappear
    /// with their membership.
    func closeSharingPeriod(groupID: GroupID, userID: UserID, at time: Int64) throws

    func hasInvitation(groupID: GroupID, inviteeID: UserID) throws -> Bool
    func insertInvitation(groupID: GroupID, inviteeID: UserID, senderID: UserID, at time: Int64) throws
    func deleteInvitation(groupID: GroupID, inviteeID: UserID) throws
    func invitationSummaries(inviteeID: UserID) throws -> [InvitationSummary]
    /// Whether `email` (an email without an account) holds an invitation to the group that
    /// expires after `now` (ms).
    func hasEmailInvitation(groupID: GroupID, email: String, now: Int64) throws -> Bool
    /// Keeps an invitation to the group for `email`, which has no account yet, until `expiresAt`
    /// (ms), replacing an expired one; it becomes an invitation of the account made with that
    /// email (`AccountAdministrationStore.createAccount`).
    func insertEmailInvitation(groupID: GroupID, email: String, senderID: UserID, at time: Int64, expiresAt: Int64) throws

    /// Appends a membership event to the group's log (same transaction); returns it with its id.
    func appendMembershipEvent(groupID: GroupID, _ event: MembershipEvent) throws -> GroupEvent
}
