/// A device's newest fix (by fix timestamp). Degrees; milliseconds since 1970 UTC.
public struct LastLocation: Sendable, Equatable {
    public let longitude: Double
    public let latitude: Double
    public let timestamp: Int64
    public init(longitude: Double, latitude: Double, timestamp: Int64) {
        self.longitude = longitude
        self.latitude = latitude
        self.timestamp = timestamp
    }
}

/// A device a user added (a phone, a tracker). Its token is never stored, only its hash.
public struct Device: Sendable, Equatable {
    public let id: String
    public let ownerID: String
    public var name: String
    public var platformID: String?
    public let createdAt: Int64
    public var lastLocation: LastLocation?

    public init(id: String, ownerID: String, name: String, platformID: String?, createdAt: Int64, lastLocation: LastLocation? = nil) {
        self.id = id
        self.ownerID = ownerID
        self.name = name
        self.platformID = platformID
        self.createdAt = createdAt
        self.lastLocation = lastLocation
    }
}

/// A group row, without members.
public struct GroupRecord: Sendable, Equatable {
    public let id: String
    public var name: String
    public var ownerID: String
    public let createdAt: Int64
}

/// One member as the group document shows it; `location` is nil while the member does not share.
public struct GroupMember: Sendable, Equatable {
    public let userID: String
    public let displayName: String
    public let deviceID: String
    public let deviceName: String
    public let shareLocation: Bool
    public let location: LastLocation?
}

/// A group with its members, as members see it.
public struct Group: Sendable, Equatable {
    public let record: GroupRecord
    public let members: [GroupMember]
}

/// A membership row.
public struct Membership: Sendable, Equatable {
    public let groupID: String
    public let userID: String
    public let deviceID: String
    public var shareLocation: Bool
}

/// A membership as the member's own profile lists it.
public struct MembershipSummary: Sendable, Equatable {
    public let groupID: String
    public let groupName: String
    public let deviceID: String
    public let isOwner: Bool
    public let shareLocation: Bool
}

/// A pending invitation as the invitee's profile lists it.
public struct InvitationSummary: Sendable, Equatable {
    public let groupID: String
    public let groupName: String
    public let senderEmail: String
}

/// Everything `GET /v1/me` shows.
public struct Profile: Sendable {
    public let user: User
    public let devices: [Device]
    public let memberships: [MembershipSummary]
    public let invitations: [InvitationSummary]
}
