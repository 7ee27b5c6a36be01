import GeoKit
import JSONCore
import Tracking

/// JSON documents of the API (field names and shapes as in API.md).
struct Documents: Sendable {
    let groups: GroupService

    /// The caller's own user: `isAdmin` (an administrator of the server) and
    /// `mustChangePassword` (an administrator set the password) included.
    static func user(_ user: User) -> JSONValue {
        ["id": .id(user.id), "email": .string(user.email), "displayName": .string(user.displayName),
         "createdAt": .string(Time.format(user.createdAt)), "isAdmin": .bool(user.isAdmin),
         "mustChangePassword": .bool(user.mustChangePassword)]
    }

    /// One session as `GET /v1/sessions` lists it; `expiresAt` is the earlier of its idle and
    /// absolute ends.
    static func session(_ session: Session, current: Bool, policy: AccountService.Policy) -> JSONValue {
        let expires = min(session.lastUsedAt.adding(milliseconds: policy.sessionIdleMilliseconds),
                          session.createdAt.adding(milliseconds: policy.sessionLifetimeMilliseconds))
        var object: JSONObject = ["id": .id(session.id), "createdAt": .string(Time.format(session.createdAt)),
                                  "lastUsedAt": .string(Time.format(session.lastUsedAt)), "expiresAt": .string(Time.format(expires)),
                                  "current": .bool(current)]
        if let client = session.client { object["client"] = .string(client) }
        return .object(object)
    }

    /// `GET /v1/me`.
    func me(userID: UserID) throws -> JSONValue {
        let profile = try groups.profile(userID: userID)
        guard case .object(var document) = Self.user(profile.user) else { return .null }
        document["devices"] = .array(profile.devices.map(Self.deviceSummary))
        document["groups"] = .array(profile.memberships.map { m in
            ["groupId": .id(m.groupID), "groupName": .string(m.groupName), "deviceId": .id(m.deviceID),
             "isOwner": .bool(m.isOwner), "shareLocation": .bool(m.shareLocation)]
        })
        document["invitations"] = .array(profile.invitations.map { i in
            ["groupId": .id(i.groupID), "groupName": .string(i.groupName), "senderEmail": .string(i.senderEmail)]
        })
        return .object(document)
    }

    /// A device; its `platformId` (the phone's own hardware id) and settings only for its
    /// owner. Its status (`lastSeenAt`, `battery`) for whoever may read it, like its location.
    static func device(_ device: Device, viewer: Credential? = nil) -> JSONValue {
        var object: JSONObject = ["id": .id(device.id), "name": .string(device.name), "ownerId": .id(device.ownerID),
                                  "createdAt": .string(Time.format(device.createdAt))]
        let isOwner = viewer == nil || viewer?.userID == device.ownerID
        if let platformID = device.platformID, isOwner {
            object["platformId"] = .string(platformID)
        }
        if isOwner {
            object["receiveGroupLocations"] = .bool(device.receiveGroupLocations)
            object["owntracksEncryption"] = .bool(device.ownTracksEncryption)
        }
        object["lastLocation"] = lastLocation(device.lastLocation)
        addStatus(device.status, to: &object)
        return .object(object)
    }

    /// A device in its owner's lists (`GET /v1/devices`, `GET /v1/me`).
    static func deviceSummary(_ device: Device) -> JSONValue {
        var object: JSONObject = ["id": .id(device.id), "name": .string(device.name), "lastLocation": lastLocation(device.lastLocation),
                                  "owntracksEncryption": .bool(device.ownTracksEncryption),
                                  "receiveGroupLocations": .bool(device.receiveGroupLocations)]
        addStatus(device.status, to: &object)
        return .object(object)
    }

    /// `lastSeenAt` (null before the first post) and `battery` (percent, null when never told).
    static func addStatus(_ status: DeviceStatus, to object: inout JSONObject) {
        object["lastSeenAt"] = status.lastSeenAt.map { .string(Time.format($0)) } ?? .null
        object["battery"] = status.battery.map { .number(JSONNumber($0.percent)) } ?? .null
    }

    static func lastLocation(_ last: LastLocation?) -> JSONValue {
        guard let last else { return .null }
        return ["location": position(last.position), "timestamp": .string(Time.format(last.timestamp))]
    }

    /// `[lon, lat]` — always GeoJSON order.
    static func position(_ longitude: Double, _ latitude: Double) -> JSONValue {
        .array([.number(JSONNumber(longitude)), .number(JSONNumber(latitude))])
    }

    /// `[lon, lat]` of a position, its degrees as stored.
    static func position(_ position: GeoPosition) -> JSONValue { Self.position(position.longitude, position.latitude) }

    /// `GET /v1/groups/{id}`: `location` is null while a member does not share.
    static func group(_ group: Group) -> JSONValue {
        ["id": .id(group.record.id), "name": .string(group.record.name), "ownerId": .id(group.record.ownerID),
         "createdAt": .string(Time.format(group.record.createdAt)),
         "members": .array(group.members.map { m in
             let location: JSONValue = m.location.map {
                 ["coordinates": position($0.position), "updatedAt": .string(Time.format($0.timestamp))]
             } ?? .null
             return ["userId": .id(m.userID), "displayName": .string(m.displayName), "deviceId": .id(m.deviceID),
                     "deviceName": .string(m.deviceName), "shareLocation": .bool(m.shareLocation), "location": location]
         })]
    }
}
