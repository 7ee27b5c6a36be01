import GeoKit
import Timestamps

/// A device's newest fix (by fix timestamp).
public struct LastLocation: Sendable, Equatable {
    /// Degrees, exactly as the fix had them.
    public let position: GeoPosition
    public let timestamp: Timestamp

    public init(position: GeoPosition, timestamp: Timestamp) {
        self.position = position
        self.timestamp = timestamp
    }

    public init(longitude: Double, latitude: Double, timestamp: Timestamp) {
        self.init(position: GeoPosition(longitude: longitude, latitude: latitude), timestamp: timestamp)
    }

    /// Degrees east.
    public var longitude: Double { position.longitude }
    /// Degrees north.
    public var latitude: Double { position.latitude }
}

/// A device a user added (a phone, a tracker). Its token is never stored, only its hash.
public struct Device: Sendable, Equatable {
    public let id: DeviceID
    public let ownerID: UserID
    public var name: String
    public var platformID: String?
    public let createdAt: Timestamp
    public var lastLocation: LastLocation?
    /// The owner's choice: whether this device's OwnTracks replies carry its groups' sharing
    /// members as friends (API.md, "Phone apps: friends in OwnTracks"). Off by default.
    public var receiveGroupLocations: Bool
    /// When its apps last posted and its battery (API.md, "Phone apps never stall").
    public var status: DeviceStatus
    /// Whether the owner set an OwnTracks payload encryption secret (the secret itself is never
    /// part of this value: `DeviceLogStore.ownTracksSecret` reads it for the ingest alone).
    public var ownTracksEncryption: Bool

    public init(id: DeviceID, ownerID: UserID, name: String, platformID: String?, createdAt: Timestamp, lastLocation: LastLocation? = nil,
                receiveGroupLocations: Bool = false, status: DeviceStatus = DeviceStatus(), ownTracksEncryption: Bool = false) {
        self.id = id
        self.ownerID = ownerID
        self.name = name
        self.platformID = platformID
        self.createdAt = createdAt
        self.lastLocation = lastLocation
        self.receiveGroupLocations = receiveGroupLocations
        self.status = status
        self.ownTracksEncryption = ownTracksEncryption
    }
}

/// A group row, without members.
public struct GroupRecord: Sendable, Equatable {
    public let id: GroupID
    public var name: String
    public var ownerID: UserID
    public let createdAt: Timestamp

    public init(id: GroupID, name: String, ownerID: UserID, createdAt: Timestamp) {
        self.id = id
        self.name = name
        self.ownerID = ownerID
        self.createdAt = createdAt
    }
}

/// One member as the group document shows it; `location` is nil while the member does not share.
public struct GroupMember: Sendable, Equatable {
    public let userID: UserID
    public let displayName: String
    public let deviceID: DeviceID
    public let deviceName: String
    public let shareLocation: Bool
    public var location: LastLocation?

    public init(userID: UserID, displayName: String, deviceID: DeviceID, deviceName: String, shareLocation: Bool,
                location: LastLocation?) {
        self.userID = userID
        self.displayName = displayName
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.shareLocation = shareLocation
        self.location = location
    }
}

/// A group with its members, as members see it.
public struct Group: Sendable, Equatable {
    public let record: GroupRecord
    public let members: [GroupMember]

    public init(record: GroupRecord, members: [GroupMember]) {
        self.record = record
        self.members = members
    }
}

/// A membership row.
public struct Membership: Sendable, Equatable {
    public let groupID: GroupID
    public let userID: UserID
    public let deviceID: DeviceID
    public var shareLocation: Bool

    public init(groupID: GroupID, userID: UserID, deviceID: DeviceID, shareLocation: Bool) {
        self.groupID = groupID
        self.userID = userID
        self.deviceID = deviceID
        self.shareLocation = shareLocation
    }
}

/// A membership as the member's own profile lists it.
public struct MembershipSummary: Sendable, Equatable {
    public let groupID: GroupID
    public let groupName: String
    public let deviceID: DeviceID
    public let isOwner: Bool
    public let shareLocation: Bool

    public init(groupID: GroupID, groupName: String, deviceID: DeviceID, isOwner: Bool, shareLocation: Bool) {
        self.groupID = groupID
        self.groupName = groupName
        self.deviceID = deviceID
        self.isOwner = isOwner
        self.shareLocation = shareLocation
    }
}

/// A pending invitation as the invitee's profile lists it.
public struct InvitationSummary: Sendable, Equatable {
    public let groupID: GroupID
    public let groupName: String
    public let senderEmail: String

    public init(groupID: GroupID, groupName: String, senderEmail: String) {
        self.groupID = groupID
        self.groupName = groupName
        self.senderEmail = senderEmail
    }
}

/// Everything `GET /v1/me` shows.
public struct Profile: Sendable {
    public let user: User
    public let devices: [Device]
    public let memberships: [MembershipSummary]
    public let invitations: [InvitationSummary]

    public init(user: User, devices: [Device], memberships: [MembershipSummary], invitations: [InvitationSummary]) {
        self.user = user
        self.devices = devices
        self.memberships = memberships
        self.invitations = invitations
    }
}
