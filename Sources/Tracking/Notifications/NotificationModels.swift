import Timestamps

/// How a channel delivers (API.md "Notifications: arrivals reach people").
public enum ChannelType: String, Sendable, CaseIterable {
    /// One signed JSON `POST` per event (Standard Webhooks).
    case webhook
    /// A `POST` of the message text to an ntfy topic URL.
    case ntfy
    /// A `POST` to a Gotify server's `/message`.
    case gotify
}

/// A user's channel. `token` (ntfy/Gotify) and `secret` (webhook signing) are credentials: never
/// in a reply after creation (the secret is shown once), an export or a log.
public struct Channel: Sendable, Equatable {
    public let id: ChannelID
    public let userID: UserID
    public var name: String
    public let type: ChannelType
    public var url: String
    public var token: String?
    /// `whsec_<base64 of 32 random bytes>` for webhooks.
    public let secret: String?
    public var enabled: Bool
    /// Why the server disabled it (nil when enabled, or disabled by its owner).
    public var disabledReason: String?
    /// Since when every attempt failed (ms; nil while the last attempt succeeded).
    public var failingSince: Int64?
    public let createdAt: Timestamp

    public init(id: ChannelID, userID: UserID, name: String, type: ChannelType, url: String, token: String?, secret: String?,
                enabled: Bool, disabledReason: String?, failingSince: Int64?, createdAt: Timestamp) {
        self.id = id
        self.userID = userID
        self.name = name
        self.type = type
        self.url = url
        self.token = token
        self.secret = secret
        self.enabled = enabled
        self.disabledReason = disabledReason
        self.failingSince = failingSince
        self.createdAt = createdAt
    }
}

/// A member's alert in a group: deliver through `channelID` when `deviceID` (any device when
/// nil) makes one of `events` at `placeID` (any of the group's places when nil).
public struct Alert: Sendable, Equatable {
    public let id: AlertID
    public let groupID: GroupID
    public let userID: UserID
    public let channelID: ChannelID
    public let placeID: PlaceID?
    public let deviceID: DeviceID?
    public let events: Set<PlaceCrossing>
    /// The group's newest event id when the alert was made: it answers only later events.
    public let sinceEvent: EventID
    public let createdAt: Timestamp

    public init(id: AlertID, groupID: GroupID, userID: UserID, channelID: ChannelID, placeID: PlaceID?, deviceID: DeviceID?,
                events: Set<PlaceCrossing>, sinceEvent: EventID, createdAt: Timestamp) {
        self.id = id
        self.groupID = groupID
        self.userID = userID
        self.channelID = channelID
        self.placeID = placeID
        self.deviceID = deviceID
        self.events = events
        self.sinceEvent = sinceEvent
        self.createdAt = createdAt
    }
}

public enum DeliveryStatus: String, Sendable {
    case pending, delivered, failed
}

/// One notification of one event to one channel, as the delivery log keeps it.
public struct Delivery: Sendable, Equatable {
    public let id: DeliveryID
    /// Commit order of deliveries (per channel, they are attempted in this order).
    public let sequence: Int64
    public let channelID: ChannelID
    public let groupID: GroupID
    public let eventID: EventID
    /// `place.enter` or `place.exit`.
    public let eventType: String
    /// The message as built when the event was matched (the same bytes on every retry).
    public let payload: String
    public var status: DeliveryStatus
    public var attempts: Int
    /// When the next attempt is due (ms).
    public var nextAttemptAt: Int64
    public var lastAttemptAt: Int64?
    public var httpStatus: Int?
    public var error: String?
    public let createdAt: Int64

    public init(id: DeliveryID, sequence: Int64, channelID: ChannelID, groupID: GroupID, eventID: EventID, eventType: String,
                payload: String, status: DeliveryStatus, attempts: Int, nextAttemptAt: Int64, lastAttemptAt: Int64?,
                httpStatus: Int?, error: String?, createdAt: Int64) {
        self.id = id
        self.sequence = sequence
        self.channelID = channelID
        self.groupID = groupID
        self.eventID = eventID
        self.eventType = eventType
        self.payload = payload
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.httpStatus = httpStatus
        self.error = error
        self.createdAt = createdAt
    }
}

/// A delivery to make, as the matcher creates it.
public struct NewDelivery: Sendable, Equatable {
    public let id: DeliveryID
    public let channelID: ChannelID
    public let eventID: EventID
    public let eventType: String
    public let payload: String

    public init(id: DeliveryID, channelID: ChannelID, eventID: EventID, eventType: String, payload: String) {
        self.id = id
        self.channelID = channelID
        self.eventID = eventID
        self.eventType = eventType
        self.payload = payload
    }
}

/// A leased delivery with its channel, for the sender.
public struct DeliveryJob: Sendable {
    public let delivery: Delivery
    public let channel: Channel

    public init(delivery: Delivery, channel: Channel) {
        self.delivery = delivery
        self.channel = channel
    }
}

/// What one attempt came to, to record.
public struct DeliveryAttempt: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case delivered
        /// Try again at `at` (ms).
        case retry(at: Int64)
        case failed
    }

    public let deliveryID: DeliveryID
    public let channelID: ChannelID
    public let outcome: Outcome
    public let at: Int64
    public let httpStatus: Int?
    public let error: String?
    /// Disable the channel with this reason (a day of failures, or 410 Gone).
    public let disableChannel: String?

    public init(deliveryID: DeliveryID, channelID: ChannelID, outcome: Outcome, at: Int64, httpStatus: Int?, error: String?,
                disableChannel: String?) {
        self.deliveryID = deliveryID
        self.channelID = channelID
        self.outcome = outcome
        self.at = at
        self.httpStatus = httpStatus
        self.error = error
        self.disableChannel = disableChannel
    }
}

/// What the matcher reads of a group in one transaction.
public struct AlertMatchInput: Sendable {
    public let groupID: GroupID
    public let groupName: String
    /// The group's `place` events after the cursor, oldest first.
    public let events: [GroupEvent]
    /// The group's alerts whose channel is enabled.
    public let alerts: [Alert]
    /// Names of the devices the events are about, by id.
    public let deviceNames: [DeviceID: String]
    /// Display names of the members the events are about, by id.
    public let displayNames: [UserID: String]

    public init(groupID: GroupID, groupName: String, events: [GroupEvent], alerts: [Alert], deviceNames: [DeviceID: String],
                displayNames: [UserID: String]) {
        self.groupID = groupID
        self.groupName = groupName
        self.events = events
        self.alerts = alerts
        self.deviceNames = deviceNames
        self.displayNames = displayNames
    }
}
