import JSONCore

/// One entry of a group's event log, as the live feed and the changes endpoint serve it.
///
/// Invariant: within a group, ids start at 1 and increase by exactly one per event, in commit
/// order (events are written in the transaction of the change they describe).
public struct GroupEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// One accepted fix of a sharing member.
        case location
        /// Many fixes of one device in one append (a backfill or an import): one summary
        /// `{deviceId, userId, count, from, to}` instead of an event per fix.
        case locations
        case membership
        /// A device of a sharing member entered or left a place of the group:
        /// `{type: "enter" | "exit", placeId, placeName, deviceId, userId, timestamp, location}`.
        case place
        /// An event whose fix was deleted: kept in the log (ids stay gapless), never served.
        case redacted
    }

    public let groupID: GroupID
    public let id: EventID
    public let kind: Kind
    /// The member the event is about (whose location; who joined, left, …).
    public let userID: UserID?
    /// The event's JSON: for `location` `{deviceId, userId, location, timestamp, latest}`, for
    /// `membership` `{type, groupId, userId, …}`.
    public let data: JSONValue

    public init(groupID: GroupID, id: EventID, kind: Kind, userID: UserID?, data: JSONValue) {
        self.groupID = groupID
        self.id = id
        self.kind = kind
        self.userID = userID
        self.data = data
    }

    /// Whether this event shows a member's positions (and so is served only while they share).
    public var showsLocation: Bool { kind == .location || kind == .locations || kind == .place }
}

/// An event about to be appended to a group's log, in the transaction of its change.
public struct EventLogEntry: Sendable {
    public let kind: GroupEvent.Kind
    public let userID: UserID?
    public let data: JSONValue
    /// For location events: the fix shown (store key of its device, its timestamp), so that
    /// deleting the fix redacts the event.
    public let fix: (deviceKey: DeviceKey, timestamp: Int64)?

    public init(kind: GroupEvent.Kind, userID: UserID?, data: JSONValue, fix: (deviceKey: DeviceKey, timestamp: Int64)? = nil) {
        self.kind = kind
        self.userID = userID
        self.data = data
        self.fix = fix
    }
}

/// A group's feed state at one point of its log.
public struct FeedSnapshot: Sendable {
    public let visibility: GroupVisibility
    /// The newest event id (0 when none).
    public let lastEventID: EventID
    /// The oldest id still in the log (nil when the log holds none of the group's events).
    public let oldestEventID: EventID?

    public init(visibility: GroupVisibility, lastEventID: EventID, oldestEventID: EventID?) {
        self.visibility = visibility
        self.lastEventID = lastEventID
        self.oldestEventID = oldestEventID
    }
}

/// Builds the event payloads (shared by every writer of events).
public enum EventPayload {
    public static func location(deviceID: DeviceID, userID: UserID, longitude: Double, latitude: Double,
                                timestamp: String, latest: Bool) -> JSONValue {
        ["deviceId": .string(deviceID.rawValue), "userId": .string(userID.rawValue),
         "location": .array([.number(JSONNumber(longitude)), .number(JSONNumber(latitude))]),
         "timestamp": .string(timestamp), "latest": .bool(latest)]
    }

    /// `count` fixes of a device timestamped from `from` to `to` (RFC 3339) arrived at once.
    public static func locations(deviceID: DeviceID, userID: UserID, count: Int, from: String, to: String) -> JSONValue {
        ["deviceId": .string(deviceID.rawValue), "userId": .string(userID.rawValue), "count": .number(JSONNumber(count)),
         "from": .string(from), "to": .string(to)]
    }

    /// A crossing of a place's edge by a device, at its fix's `timestamp` (RFC 3339) and position.
    public static func place(_ crossing: PlaceCrossing, placeID: PlaceID, placeName: String, deviceID: DeviceID, userID: UserID,
                             longitude: Double, latitude: Double, timestamp: String) -> JSONValue {
        ["type": .string(crossing.rawValue), "placeId": .string(placeID.rawValue), "placeName": .string(placeName),
         "deviceId": .string(deviceID.rawValue), "userId": .string(userID.rawValue), "timestamp": .string(timestamp),
         "location": .array([.number(JSONNumber(longitude)), .number(JSONNumber(latitude))])]
    }
}
