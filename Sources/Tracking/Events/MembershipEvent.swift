import JSONCore

/// A membership event's meaning: the change of one member's place in a group (API.md "Live
/// feed"). The log stores it as `{type, groupId, userId, …}`; this type is the only place that
/// spells those type names.
public enum MembershipChange: Sendable, Equatable {
    case joined(sharing: Bool)
    case sharing(Bool)
    case left
    case removed
    case owner
    case deleted
    /// The owner renamed the group (the payload's `name` is the new name).
    case renamed

    /// The `type` field of the logged payload.
    public var type: String {
        switch self {
        case .joined: "joined"
        case .sharing: "sharing"
        case .left: "left"
        case .removed: "removed"
        case .owner: "owner"
        case .deleted: "deleted"
        case .renamed: "renamed"
        }
    }

    /// The change `event` records; nil for other kinds of events or an unknown type.
    public init?(_ event: GroupEvent) {
        guard event.kind == .membership, let type = event.data["type"]?.stringValue else { return nil }
        let shares = event.data["shareLocation"]?.boolValue
        switch type {
        case "joined": self = .joined(sharing: shares ?? true)
        case "sharing": self = .sharing(shares == true)
        case "left": self = .left
        case "removed": self = .removed
        case "owner": self = .owner
        case "deleted": self = .deleted
        case "renamed": self = .renamed
        default: return nil
        }
    }
}

/// A membership event about to be logged: the change, the member it is about, and the facts its
/// payload names.
public struct MembershipEvent: Sendable, Equatable {
    public let change: MembershipChange
    /// The member the change is about (who joined, left, was removed, became owner; who deleted
    /// the group).
    public let userID: UserID
    /// `joined`: the device the member shares with the group.
    public var deviceID: DeviceID?
    /// `owner`: who owned the group before.
    public var formerOwnerID: UserID?
    /// `left`/`deleted` caused by deleting a device or an account.
    public var reason: DepartureReason?
    /// `renamed`: the group's new name.
    public var groupName: String?

    public init(_ change: MembershipChange, userID: UserID, deviceID: DeviceID? = nil,
                formerOwnerID: UserID? = nil, reason: DepartureReason? = nil) {
        self.change = change
        self.userID = userID
        self.deviceID = deviceID
        self.formerOwnerID = formerOwnerID
        self.reason = reason
    }

    /// The logged JSON: `{type, groupId, userId}` plus `deviceId`, `shareLocation`,
    /// `formerOwnerId`, `reason`, `name` (a rename) where they apply.
    public func payload(groupID: GroupID) -> JSONValue {
        var object: JSONObject = ["type": .string(change.type), "groupId": .string(groupID.rawValue),
                                  "userId": .string(userID.rawValue)]
        switch change {
        case .joined(let sharing): object["shareLocation"] = .bool(sharing)
        case .sharing(let on): object["shareLocation"] = .bool(on)
        case .renamed: if let groupName { object["name"] = .string(groupName) }
        case .left, .removed, .owner, .deleted: break
        }
        if let deviceID { object["deviceId"] = .string(deviceID.rawValue) }
        if let formerOwnerID { object["formerOwnerId"] = .string(formerOwnerID.rawValue) }
        if let reason { object["reason"] = .string(reason.rawValue) }
        return .object(object)
    }

    /// The log entry that records this event.
    public func entry(groupID: GroupID) -> EventLogEntry {
        EventLogEntry(kind: .membership, userID: userID, data: payload(groupID: groupID))
    }
}

/// Why a membership ended without the member asking: its device or its account was deleted.
public enum DepartureReason: String, Sendable, Equatable {
    case deviceRemoved = "device_removed"
    case accountDeleted = "account_deleted"
}
