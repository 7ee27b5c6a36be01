/// A membership event's meaning: the change of one member's place in a group (API.md "Live
/// feed"). `type` is the name the feed and the log give it.
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

    /// The change named `type`, with the `shareLocation` flag of its payload (nil when absent);
    /// nil for an unknown name.
    public init?(type: String, shareLocation: Bool?) {
        switch type {
        case "joined": self = .joined(sharing: shareLocation ?? true)
        case "sharing": self = .sharing(shareLocation == true)
        case "left": self = .left
        case "removed": self = .removed
        case "owner": self = .owner
        case "deleted": self = .deleted
        case "renamed": self = .renamed
        default: return nil
        }
    }

    /// The change `event` records; nil for other kinds of events.
    public init?(_ event: GroupEvent) {
        guard case .membership(let membership) = event.payload else { return nil }
        self = membership.change
    }
}

/// A membership event: the change, the member it is about, and the facts it names.
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

    /// The log entry that records this event.
    public var entry: EventLogEntry { EventLogEntry(.membership(self)) }
}

/// Why a membership ended without the member asking: its device or its account was deleted.
public enum DepartureReason: String, Sendable, Equatable {
    case deviceRemoved = "device_removed"
    case accountDeleted = "account_deleted"
}
