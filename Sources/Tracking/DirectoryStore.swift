import JSONCore

/// Primitive reads and writes over devices, groups, memberships and invitations, all inside
/// one transaction. The services express the rules with these; the store only persists.
public protocol DirectoryTransaction {
    func user(id: String) throws -> User?
    func user(email: String) throws -> User?
    func device(id: String) throws -> Device?
    func devices(ownerID: String) throws -> [Device]
    /// (deviceID, ownerID) of the device whose token hashes to `tokenHash`.
    func deviceCredential(tokenHash: String) throws -> (String, String)?
    func insertDevice(_ device: Device, tokenHash: String) throws
    func renameDevice(id: String, name: String) throws
    func replaceDeviceToken(id: String, tokenHash: String) throws
    /// Deletes the device, its locations (redacting their events) and the memberships that use it.
    func deleteDevice(id: String) throws
    /// Deletes the user and everything that belongs to it: sessions, devices and their
    /// locations (redacting their events), memberships, invitations sent and received, owned
    /// groups. Logs nothing: the caller logs the departures first.
    func deleteUser(id: String) throws
    /// The user's memberships.
    func memberships(userID: String) throws -> [Membership]

    func group(id: String) throws -> GroupRecord?
    /// Members in join order, with locations only for those who share.
    func members(groupID: String) throws -> [GroupMember]
    func insertGroup(_ group: GroupRecord) throws
    func setGroupOwner(groupID: String, ownerID: String) throws
    /// Deletes the group, its memberships and invitations.
    func deleteGroup(id: String) throws
    /// Ids of the groups `userID` owns.
    func ownedGroupIDs(userID: String) throws -> [String]

    func membership(groupID: String, userID: String) throws -> Membership?
    /// Memberships that use device `deviceID`.
    func memberships(deviceID: String) throws -> [Membership]
    func membershipSummaries(userID: String) throws -> [MembershipSummary]
    func insertMembership(_ membership: Membership, at time: Int64) throws
    func deleteMembership(groupID: String, userID: String) throws
    func setSharing(groupID: String, userID: String, share: Bool) throws
    /// Starts a sharing period of the membership at `time` (ms); its history from then on is
    /// visible to the group (see `HistoryWindows`).
    func openSharingPeriod(groupID: String, userID: String, deviceID: String, at time: Int64) throws
    /// Ends the membership's open sharing period, if any, at `time` (ms). Periods disappear
    /// with their membership.
    func closeSharingPeriod(groupID: String, userID: String, at time: Int64) throws

    func hasInvitation(groupID: String, inviteeID: String) throws -> Bool
    func insertInvitation(groupID: String, inviteeID: String, senderID: String, at time: Int64) throws
    func deleteInvitation(groupID: String, inviteeID: String) throws
    func invitationSummaries(inviteeID: String) throws -> [InvitationSummary]

    /// Appends a membership event to the group's log (same transaction); returns it with its id.
    func appendMembershipEvent(groupID: String, type: String, userID: String, extra: JSONObject) throws -> GroupEvent
}

/// Runs directory transactions: reads on a snapshot, writes in the next durable group commit.
public protocol DirectoryStore: PartitionFacts {
    func readDirectory<T>(_ body: (any DirectoryTransaction) throws -> T) throws -> T
    @discardableResult
    func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T) async throws -> T
    /// Like `writeDirectory`; `onCommit` runs right after the commit, in commit order.
    @discardableResult
    func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T,
                                     onCommit: @escaping @Sendable (T) -> Void) async throws -> T
}
