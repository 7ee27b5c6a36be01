import Crypto
import Timestamps

/// Groups, invitations and memberships: every change is a server action checked here, inside
/// the transaction that makes it, so two concurrent actions cannot both pass a stale check.
///
/// Visibility: a caller who is not a member gets 404 for a group (its existence stays hidden);
/// a member without the right gets 403. Accepting or declining without an invitation is 403.
public final class GroupService: Sendable {
    public static let maxGroupsPerUser = 100
    public static let maxMembersPerGroup = 1_000

    let store: any DirectoryStore
    let observer: (any MembershipObserver)?

    public init(store: any DirectoryStore, observer: (any MembershipObserver)? = nil) {
        self.store = store
        self.observer = observer
    }

    var rules: PartitionRules { PartitionRules(facts: store) }

    /// Creates a group owned by `userID`, who joins with one of their devices.
    public func create(userID: String, name rawName: String, deviceID: String) async throws -> Group {
        let name = try Validate.name(rawName, field: "name")
        let record = GroupRecord(id: Secrets.newID(prefix: "g_"), name: name, ownerID: userID, createdAt: Timestamp.nowMilliseconds())
        let group = try await store.writeDirectory { tx in
            _ = try DeviceService.owned(deviceID, by: userID, in: tx)
            guard try tx.membershipSummaries(userID: userID).count < Self.maxGroupsPerUser else {
                throw TrackingError.conflict("a user may belong to at most \(Self.maxGroupsPerUser) groups", code: "too_many_groups")
            }
            try tx.insertGroup(record)
            try tx.insertMembership(Membership(groupID: record.id, userID: userID, deviceID: deviceID, shareLocation: true),
                                    at: record.createdAt)
            return try Self.document(record.id, in: tx)
        }
        observer?.membershipChanged(.joined(groupID: record.id, userID: userID, deviceID: deviceID))
        return group
    }

    /// The group document, for members only (404 for everyone else).
    public func group(id: String, for credential: Credential) throws -> Group {
        try rules.requireRead(credential, .group(id), hiddenAs: "group")
        return try store.readDirectory { try Self.document(id, in: $0) }
    }

    /// Deletes the group (owner only).
    public func delete(groupID: String, by userID: String) async throws {
        let members = try await store.writeDirectory { tx -> [GroupMember] in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can delete group \(groupID)") }
            let members = try tx.members(groupID: groupID)
            try tx.deleteGroup(id: groupID)
            return members
        }
        observer?.membershipChanged(.groupDeleted(groupID: groupID, formerMembers: members.map(\.userID)))
    }

    /// Hands the group to another member; the former owner stays a member.
    public func transferOwnership(groupID: String, by userID: String, to newOwnerID: String) async throws -> Group {
        let group = try await store.writeDirectory { tx in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can hand over group \(groupID)") }
            guard try tx.membership(groupID: groupID, userID: newOwnerID) != nil else {
                throw TrackingError.conflict("the new owner must be a member of the group", code: "not_a_member")
            }
            try tx.setGroupOwner(groupID: groupID, ownerID: newOwnerID)
            return try Self.document(groupID, in: tx)
        }
        observer?.membershipChanged(.ownerChanged(groupID: groupID, userID: newOwnerID))
        return group
    }

    /// Invites the account with `email` (any member may invite).
    public func invite(groupID: String, by userID: String, email rawEmail: String) async throws {
        let email = try Validate.email(rawEmail)
        try await store.writeDirectory { tx in
            _ = try Self.visibleGroup(groupID, to: userID, in: tx)
            guard let invitee = try tx.user(email: email) else { throw TrackingError.notFound("user with this email") }
            if try tx.membership(groupID: groupID, userID: invitee.id) != nil {
                throw TrackingError.conflict("this user is already a member", code: "already_member")
            }
            if try tx.hasInvitation(groupID: groupID, inviteeID: invitee.id) {
                throw TrackingError.conflict("this user is already invited", code: "already_invited")
            }
            guard try tx.members(groupID: groupID).count < Self.maxMembersPerGroup else {
                throw TrackingError.conflict("a group may have at most \(Self.maxMembersPerGroup) members", code: "group_full")
            }
            try tx.insertInvitation(groupID: groupID, inviteeID: invitee.id, senderID: userID, at: Timestamp.nowMilliseconds())
        }
    }

    /// Accepts a pending invitation, joining with one of the caller's own devices. The only way
    /// into a group besides creating it.
    public func accept(groupID: String, userID: String, deviceID: String) async throws -> Group {
        let group = try await store.writeDirectory { tx in
            guard try tx.hasInvitation(groupID: groupID, inviteeID: userID) else {
                throw TrackingError.forbidden("no invitation to group \(groupID); cannot write partition group=\(groupID)")
            }
            _ = try DeviceService.owned(deviceID, by: userID, in: tx)
            try tx.deleteInvitation(groupID: groupID, inviteeID: userID)
            try tx.insertMembership(Membership(groupID: groupID, userID: userID, deviceID: deviceID, shareLocation: true),
                                    at: Timestamp.nowMilliseconds())
            return try Self.document(groupID, in: tx)
        }
        observer?.membershipChanged(.joined(groupID: groupID, userID: userID, deviceID: deviceID))
        return group
    }

    public func decline(groupID: String, userID: String) async throws {
        try await store.writeDirectory { tx in
            guard try tx.hasInvitation(groupID: groupID, inviteeID: userID) else {
                throw TrackingError.forbidden("no invitation to group \(groupID)")
            }
            try tx.deleteInvitation(groupID: groupID, inviteeID: userID)
        }
    }

    /// A member leaves (`memberID == userID`) or the owner removes a member. The owner cannot
    /// leave (409): hand the group over or delete it.
    public func removeMember(groupID: String, memberID: String, by userID: String) async throws {
        try await store.writeDirectory { tx in
            let group = try Self.visibleGroup(groupID, to: userID, in: tx)
            if memberID == userID {
                guard group.ownerID != userID else {
                    throw TrackingError.conflict("the owner cannot leave; hand the group over or delete it", code: "owner_cannot_leave")
                }
            } else {
                guard group.ownerID == userID else { throw TrackingError.forbidden("only the owner can remove members of group \(groupID)") }
                guard try tx.membership(groupID: groupID, userID: memberID) != nil else { throw TrackingError.notFound("member") }
            }
            try tx.deleteMembership(groupID: groupID, userID: memberID)
        }
        observer?.membershipChanged(memberID == userID ? .left(groupID: groupID, userID: memberID)
                                                       : .removed(groupID: groupID, userID: memberID))
    }

    /// Turns the caller's own sharing on or off; off hides their location from the group at once.
    public func setSharing(groupID: String, userID: String, share: Bool) async throws -> Group {
        let group = try await store.writeDirectory { tx in
            _ = try Self.visibleGroup(groupID, to: userID, in: tx)
            try tx.setSharing(groupID: groupID, userID: userID, share: share)
            return try Self.document(groupID, in: tx)
        }
        observer?.membershipChanged(.sharingChanged(groupID: groupID, userID: userID, shareLocation: share))
        return group
    }

    /// The caller's profile: user, devices, memberships and invitations, from one snapshot.
    public func profile(userID: String) throws -> Profile {
        try store.readDirectory { tx in
            guard let user = try tx.user(id: userID) else { throw TrackingError.unauthenticated }
            return Profile(user: user, devices: try tx.devices(ownerID: userID),
                           memberships: try tx.membershipSummaries(userID: userID),
                           invitations: try tx.invitationSummaries(inviteeID: userID))
        }
    }

    /// The group, when `userID` is a member; else 404.
    static func visibleGroup(_ groupID: String, to userID: String, in tx: any DirectoryTransaction) throws -> GroupRecord {
        guard let group = try tx.group(id: groupID), try tx.membership(groupID: groupID, userID: userID) != nil else {
            throw TrackingError.notFound("group")
        }
        return group
    }

    static func document(_ groupID: String, in tx: any DirectoryTransaction) throws -> Group {
        guard let record = try tx.group(id: groupID) else { throw TrackingError.notFound("group") }
        return Group(record: record, members: try tx.members(groupID: groupID))
    }
}

/// A change of who is in a group or what they share; published after the commit.
public enum MembershipChange: Sendable, Equatable {
    case joined(groupID: String, userID: String, deviceID: String)
    case left(groupID: String, userID: String)
    case removed(groupID: String, userID: String)
    case sharingChanged(groupID: String, userID: String, shareLocation: Bool)
    case ownerChanged(groupID: String, userID: String)
    case groupDeleted(groupID: String, formerMembers: [String])

    public var groupID: String {
        switch self {
        case .joined(let g, _, _), .left(let g, _), .removed(let g, _), .sharingChanged(let g, _, _),
             .ownerChanged(let g, _), .groupDeleted(let g, _): g
        }
    }
}

/// Receives membership changes after they are committed (the live feed subscribes).
public protocol MembershipObserver: Sendable {
    func membershipChanged(_ change: MembershipChange)
}
