/// One entry of a group's event log, as the live feed and the changes endpoint serve it.
///
/// Invariant: within a group, ids start at 1 and increase by exactly one per event, in commit
/// order (events are written in the transaction of the change they describe).
///
/// What an event says is a typed value (`EventPayload`); its JSON form (the feed's `data`, and
/// what the log stores) belongs to the `EventJSON` module, not to the domain.
public struct GroupEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// One accepted fix of a sharing member.
        case location
        /// Many fixes of one device in one append (a backfill or an import): one summary
        /// instead of an event per fix.
        case locations
        case membership
        /// A device of a sharing member entered or left a place of the group.
        case place
        /// An event whose fix was deleted: kept in the log (ids stay gapless), never served.
        case redacted
    }

    public let groupID: GroupID
    public let id: EventID
    public let payload: EventPayload

    public init(groupID: GroupID, id: EventID, payload: EventPayload) {
        self.groupID = groupID
        self.id = id
        self.payload = payload
    }

    public var kind: Kind { payload.kind }
    /// The member the event is about (whose location; who joined, left, …); nil when redacted.
    public var userID: UserID? { payload.userID }

    /// Whether this event shows a member's positions (and so is served only while they share).
    public var showsLocation: Bool { kind == .location || kind == .locations || kind == .place }
}

/// What one event of a group's log says.
public enum EventPayload: Sendable, Equatable {
    case location(LocationEvent)
    case locations(LocationBatchEvent)
    case membership(MembershipEvent)
    case place(PlaceEvent)
    /// Its fix was deleted: nothing is left of what it said.
    case redacted

    public var kind: GroupEvent.Kind {
        switch self {
        case .location: .location
        case .locations: .locations
        case .membership: .membership
        case .place: .place
        case .redacted: .redacted
        }
    }

    /// The member the event is about; nil when redacted.
    public var userID: UserID? {
        switch self {
        case .location(let event): event.userID
        case .locations(let event): event.userID
        case .membership(let event): event.userID
        case .place(let event): event.userID
        case .redacted: nil
        }
    }

    /// The device whose positions the event shows (nil for membership and redacted events).
    public var deviceID: DeviceID? {
        switch self {
        case .location(let event): event.deviceID
        case .locations(let event): event.deviceID
        case .place(let event): event.deviceID
        case .membership, .redacted: nil
        }
    }

    /// The fix times the event shows (ms since 1970): one for `location` and `place`, the
    /// oldest and newest for `locations`, none otherwise.
    public var fixTimes: [Int64] {
        switch self {
        case .location(let event): [event.timestamp]
        case .locations(let event): [event.from, event.to]
        case .place(let event): [event.timestamp]
        case .membership, .redacted: []
        }
    }
}

/// One accepted fix of a sharing member.
public struct LocationEvent: Sendable, Equatable {
    public let deviceID: DeviceID
    public let userID: UserID
    /// Degrees (WGS 84).
    public let longitude: Double
    public let latitude: Double
    /// The fix's time, ms since 1970.
    public let timestamp: Int64
    /// Whether this fix became the device's latest location.
    public let latest: Bool

    public init(deviceID: DeviceID, userID: UserID, longitude: Double, latitude: Double, timestamp: Int64, latest: Bool) {
        self.deviceID = deviceID
        self.userID = userID
        self.longitude = longitude
        self.latitude = latitude
        self.timestamp = timestamp
        self.latest = latest
    }
}

/// `count` fixes of one device timestamped from `from` to `to` (ms since 1970) that arrived at
/// once (a backfill or an import).
public struct LocationBatchEvent: Sendable, Equatable {
    public let deviceID: DeviceID
    public let userID: UserID
    public let count: Int
    public let from: Int64
    public let to: Int64

    public init(deviceID: DeviceID, userID: UserID, count: Int, from: Int64, to: Int64) {
        self.deviceID = deviceID
        self.userID = userID
        self.count = count
        self.from = from
        self.to = to
    }
}

/// A crossing of a place's edge by a device, at its fix's time and position.
public struct PlaceEvent: Sendable, Equatable {
    public let crossing: PlaceCrossing
    public let placeID: PlaceID
    /// The place's name when the event was logged.
    public let placeName: String
    public let deviceID: DeviceID
    public let userID: UserID
    /// The fix's time, ms since 1970.
    public let timestamp: Int64
    /// Degrees (WGS 84), the fix's position.
    public let longitude: Double
    public let latitude: Double

    public init(crossing: PlaceCrossing, placeID: PlaceID, placeName: String, deviceID: DeviceID, userID: UserID,
                timestamp: Int64, longitude: Double, latitude: Double) {
        self.crossing = crossing
        self.placeID = placeID
        self.placeName = placeName
        self.deviceID = deviceID
        self.userID = userID
        self.timestamp = timestamp
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// An event about to be appended to a group's log, in the transaction of its change.
public struct EventLogEntry: Sendable {
    public let payload: EventPayload
    /// For position events: the fix shown (store key of its device, its timestamp), so that
    /// deleting the fix redacts the event.
    public let fix: (deviceKey: DeviceKey, timestamp: Int64)?

    public init(_ payload: EventPayload, fix: (deviceKey: DeviceKey, timestamp: Int64)? = nil) {
        self.payload = payload
        self.fix = fix
    }

    public var kind: GroupEvent.Kind { payload.kind }
    public var userID: UserID? { payload.userID }
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
