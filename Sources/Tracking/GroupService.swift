import Crypto
import JSONCore
import Timestamps

/// Groups, invitations and memberships: every change is a server action checked here, inside
/// the transaction that makes it, so two concurrent actions cannot both pass a stale check.
/// Each change also logs its membership event in that transaction, published after the commit.
///
/// Visibility: a caller who is not a member gets 404 for a group (its existence stays hidden);
/// a member without the right gets 403. Accepting or declining without an invitation is 403.
public final class GroupService: Sendable {
    public static let maxGroupsPerUser = 100
    public static let maxMembersPerGroup = 1_000

    /// The group rules that are settings.
    public struct Policy: Sendable {
        /// Invitations one user may send per hour (429 beyond).
        public var invitationsPerUserPerHour = 50
        /// Whether an invitation to an email without an account is kept for that email (when
        /// sign-up is not open to anyone, `SignUpPolicy.keepsInvitationsByEmail`) instead of
        /// being refused with 404.
        public var invitesEmailsWithoutAccount = false
        /// How long such an invitation waits for its account (ms; default 7 days): until then
        /// the email may sign up, and its account finds the invitation.
        public var emailInvitationMilliseconds: Int64 = 7 * 86_400_000
        public init() {}
    }

    let store: any DirectoryStore
    let limits: any LimitCounters
    let invitations: WindowLimit
    let policy: Policy

    /// - Parameter limits: where invitations are counted (the store's counters).
    public init(store: any DirectoryStore, policy: Policy = Policy(),
                limits: any LimitCounters = LocalLimitCounters()) {
        self.store = store
        self.limits = limits
        self.policy = policy
        self.invitations = WindowLimit(scope: "invitations", limit: policy.invitationsPerUserPerHour, windowMilliseconds: 3_600_000)
    }

    var rules: PartitionRules { PartitionRules(facts: store) }

    /// Runs a directory change (the store announces the events it logs, `CommitDoor`).
    @discardableResult
    func change<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> (T, [GroupEvent])) async throws -> T {
        try await store.writeDirectory(body).0
    }

    /// Creates a group owned by `userID`, who joins with one of their devices.
    public func create(userID: UserID, name rawName: String, deviceID: DeviceID) async throws -> Group {
        let name = try Validate.name(rawName, field: "name")
        let record = GroupRecord(id: GroupID.generate(), name: name, ownerID: userID, createdAt: .now)
        return try await change { tx in
            _ = try DeviceService.owned(deviceID, by: userID, in: tx)
            guard try tx.membershipSummaries(userID: userID).count < Self.maxGroupsPerUser else {
                throw TrackingError.conflict("a user may belong to at most \(Self.maxGroupsPerUser) groups", code: .tooManyGroups)
            }
            try tx.insertGroup(record)
            try Self.join(Membership(groupID: record.id, userID: userID, deviceID: deviceID, shareLocation: true),
                          at: record.createdAt.millisecondsSince1970, in: tx)
            let event = try tx.appendMembershipEvent(groupID: record.id, MembershipEvent(.joined(sharing: true), userID: userID, deviceID: deviceID))
            return (try Self.document(record.id, in: tx), [event])
        }
    }

    /// The group document, for members only (404 for everyone else).
    public func group(id: GroupID, for credential: Credential) throws -> Group {
        try rules.requireRead(credential, .group(id), hiddenAs: "group")
        return try store.readDirectory { try Self.document(id, in: $0) }
    }

    /// Deletes the group (owner only).
    public func delete(groupID: GroupID, by userID: UserID) async throws {
        try await change { tx -> (Bool, [GroupEvent]) in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can delete group \(groupID); cannot write partition group=\(groupID)") }
            let event = try tx.appendMembershipEvent(groupID: groupID, MembershipEvent(.deleted, userID: userID))
            try tx.deleteGroup(id: groupID)
            return (true, [event])
        }
    }

    /// Hands the group to another member; the former owner stays a member.
    public func transferOwnership(groupID: GroupID, by userID: UserID, to newOwnerID: UserID) async throws -> Group {
        try await change { tx in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can hand over group \(groupID); cannot write partition group=\(groupID)") }
            guard try tx.membership(groupID: groupID, userID: newOwnerID) != nil else {
                throw TrackingError.conflict("the new owner must be a member of the group", code: .notAMember)
            }
            try tx.setGroupOwner(groupID: groupID, ownerID: newOwnerID)
            let event = try tx.appendMembershipEvent(groupID: groupID, MembershipEvent(.owner, userID: newOwnerID, formerOwnerID: userID))
            return (try Self.document(groupID, in: tx), [event])
        }
    }

    /// Renames the group (owner only); members see a `renamed` membership event.
    public func rename(groupID: GroupID, by userID: UserID, name rawName: String) async throws -> Group {
        let name = try Validate.name(rawName, field: "name")
        return try await change { tx in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can rename group \(groupID); cannot write partition group=\(groupID)") }
            try tx.setGroupName(groupID: groupID, name: name)
            var renamed = MembershipEvent(.renamed, userID: userID)
            renamed.groupName = name
            let event = try tx.appendMembershipEvent(groupID: groupID, renamed)
            return (try Self.document(groupID, in: tx), [event])
        }
    }

    /// Invites the account with `email` (any member may invite); returns the normalised email.
    /// An email without an account is 404 — unless `Policy.invitesEmailsWithoutAccount`: the
    /// invitation is then kept for that email (`Policy.emailInvitationMilliseconds`), which may
    /// sign up with it and finds it once its account exists.
    /// `countsAgainstLimit` is false only for local tools (`fod demo`), which are not clients.
    @discardableResult
    public func invite(groupID: GroupID, by userID: UserID, email rawEmail: String, countsAgainstLimit: Bool = true) async throws -> String {
        let email = try Validate.email(rawEmail)
        if countsAgainstLimit, let wait = try limits.attempt(invitations, key: userID.rawValue, now: Timestamp.nowMilliseconds()) {
            throw TrackingError.rateLimited(retryAfter: wait)
        }
        let policy = self.policy
        try await store.writeDirectory { tx in
            _ = try Self.visibleGroup(groupID, to: userID, in: tx)
            let now = Timestamp.nowMilliseconds()
            let invitee = try tx.user(email: email)
            if invitee == nil && !policy.invitesEmailsWithoutAccount { throw TrackingError.notFound("user with this email") }
            if let invitee, try tx.membership(groupID: groupID, userID: invitee.id) != nil {
                throw TrackingError.conflict("this user is already a member", code: .alreadyMember)
            }
            let invited = try invitee.map { try tx.hasInvitation(groupID: groupID, inviteeID: $0.id) }
                ?? tx.hasEmailInvitation(groupID: groupID, email: email, now: now)
            if invited { throw TrackingError.conflict("this user is already invited", code: .alreadyInvited) }
            guard try tx.members(groupID: groupID).count < Self.maxMembersPerGroup else {
                throw TrackingError.conflict("a group may have at most \(Self.maxMembersPerGroup) members", code: .groupFull)
            }
            if let invitee {
                try tx.insertInvitation(groupID: groupID, inviteeID: invitee.id, senderID: userID, at: now)
            } else {
                try tx.insertEmailInvitation(groupID: groupID, email: email, senderID: userID, at: now,
                                             expiresAt: now + policy.emailInvitationMilliseconds)
            }
        }
        return email
    }

    /// Accepts a pending invitation, joining with one of the caller's own devices. The only way
    /// into a group besides creating it.
    public func accept(groupID: GroupID, userID: UserID, deviceID: DeviceID) async throws -> Group {
        try await change { tx in
            guard try tx.hasInvitation(groupID: groupID, inviteeID: userID) else {
                throw TrackingError.forbidden("no invitation to group \(groupID); cannot write partition group=\(groupID)")
            }
            _ = try DeviceService.owned(deviceID, by: userID, in: tx)
            guard try tx.members(groupID: groupID).count < Self.maxMembersPerGroup else {
                throw TrackingError.conflict("a group may have at most \(Self.maxMembersPerGroup) members", code: .groupFull)
            }
            guard try tx.membershipSummaries(userID: userID).count < Self.maxGroupsPerUser else {
                throw TrackingError.conflict("a user may belong to at most \(Self.maxGroupsPerUser) groups", code: .tooManyGroups)
            }
            try tx.deleteInvitation(groupID: groupID, inviteeID: userID)
            try Self.join(Membership(groupID: groupID, userID: userID, deviceID: deviceID, shareLocation: true),
                          at: Timestamp.nowMilliseconds(), in: tx)
            let event = try tx.appendMembershipEvent(groupID: groupID, MembershipEvent(.joined(sharing: true), userID: userID, deviceID: deviceID))
            return (try Self.document(groupID, in: tx), [event])
        }
    }

    public func decline(groupID: GroupID, userID: UserID) async throws {
        try await store.writeDirectory { tx in
            guard try tx.hasInvitation(groupID: groupID, inviteeID: userID) else {
                throw TrackingError.forbidden("no invitation to group \(groupID); cannot write partition group=\(groupID)")
            }
            try tx.deleteInvitation(groupID: groupID, inviteeID: userID)
        }
    }

    /// A member leaves (`memberID == userID`) or the owner removes a member. The owner cannot
    /// leave (409): hand the group over or delete it.
    public func removeMember(groupID: GroupID, memberID: UserID, by userID: UserID) async throws {
        try await change { tx -> (Bool, [GroupEvent]) in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            if memberID == userID {
                guard group.ownerID != userID else {
                    throw TrackingError.conflict("the owner cannot leave; hand the group over or delete it", code: .ownerCannotLeave)
                }
            } else {
                guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can remove members of group \(groupID); cannot write partition group=\(groupID)") }
                guard try tx.membership(groupID: groupID, userID: memberID) != nil else { throw TrackingError.notFound("member") }
            }
            try tx.deleteMembership(groupID: groupID, userID: memberID)
            let event = try tx.appendMembershipEvent(groupID: groupID, MembershipEvent(memberID == userID ? .left : .removed, userID: memberID))
            return (true, [event])
        }
    }

    /// Turns the caller's own sharing on or off; off hides their location from the group at once.
    public func setSharing(groupID: GroupID, userID: UserID, share: Bool) async throws -> Group {
        try await change { tx in
            _ = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard let membership = try tx.membership(groupID: groupID, userID: userID) else { throw TrackingError.notFound("group") }
            let now = Timestamp.nowMilliseconds()
            if share && !membership.shareLocation {
                try tx.openSharingPeriod(groupID: groupID, userID: userID, deviceID: membership.deviceID, at: now)
            } else if !share && membership.shareLocation {
                try tx.closeSharingPeriod(groupID: groupID, userID: userID, at: now)
            }
            try tx.setSharing(groupID: groupID, userID: userID, share: share)
            let event = try tx.appendMembershipEvent(groupID: groupID, MembershipEvent(.sharing(share), userID: userID))
            return (try Self.document(groupID, in: tx), [event])
        }
    }

    /// The caller's profile: user, devices, memberships and invitations, from one snapshot.
    public func profile(userID: UserID) throws -> Profile {
        try store.readDirectory { tx in
            guard let user = try tx.user(id: userID) else { throw TrackingError.unauthenticated }
            return Profile(user: user, devices: try tx.devices(ownerID: userID),
                           memberships: try tx.membershipSummaries(userID: userID),
                           invitations: try tx.invitationSummaries(inviteeID: userID))
        }
    }

    /// Adds a membership; a sharing one starts its first sharing period at `time`, so the
    /// group sees the device's history from joining on, never before.
    static func join(_ membership: Membership, at time: Int64, in tx: any DirectoryTransaction) throws {
        try tx.insertMembership(membership, at: time)
        if membership.shareLocation {
            try tx.openSharingPeriod(groupID: membership.groupID, userID: membership.userID, deviceID: membership.deviceID, at: time)
        }
    }

    /// The group, when `userID` is a member; else 404.
    static func visibleGroup(_ groupID: GroupID, to userID: UserID, in tx: any DirectoryTransaction) throws -> GroupRecord {
        guard let group = try tx.group(id: groupID), try tx.membership(groupID: groupID, userID: userID) != nil else {
            throw TrackingError.notFound("group")
        }
        return group
    }

    static func document(_ groupID: GroupID, in tx: any DirectoryTransaction) throws -> Group {
        guard let record = try tx.group(id: groupID) else { throw TrackingError.notFound("group") }
        return Group(record: record, members: try tx.members(groupID: groupID))
    }

    /// Membership events for memberships that are about to disappear with a device or an
    /// account: `deleted` for groups `ownerID` owns, `left` (with a reason) for the others.
    static func departureEvents(_ memberships: [Membership], ownedBy ownerID: UserID?, reason: DepartureReason,
                                in tx: any DirectoryTransaction) throws -> [GroupEvent] {
        var events: [GroupEvent] = []
        for m in memberships {
            let owned = try ownerID.map { try tx.group(id: m.groupID)?.ownerID == $0 } ?? false
            events.append(try tx.appendMembershipEvent(groupID: m.groupID, MembershipEvent(owned ? .deleted : .left, userID: m.userID, reason: reason)))
        }
        return events
    }
}
