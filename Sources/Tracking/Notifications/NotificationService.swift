import JSONCore
import Timestamps

/// Channels, alerts and the delivery log, for their owner (API.md "Notifications").
///
/// Permission rows: a channel and its deliveries are its user's alone (404 for everyone else,
/// hiding that it exists); an alert is its owner's, in a group the owner belongs to, through
/// one of the owner's channels, about a place of that group and any device (or one of the group's
/// members' devices); a member lists only their own alerts. Replies never carry a channel's
/// `token`, and its webhook `secret` only once, in the reply that made it.
public final class NotificationService: Sendable {
    public struct Limits: Sendable {
        public var channelsPerUser = 20
        public var alertsPerUserAndGroup = 100
        /// Longest token (bytes).
        public var tokenBytes = 512
        /// Deliveries a channel's log lists at most.
        public var deliveryLog = 1_000
        public init() {}
    }

    let store: any NotificationStore
    let transport: any NotificationTransport
    let rules: PartitionRules
    public let limits: Limits

    public init(store: any NotificationStore, transport: any NotificationTransport, facts: any PartitionFacts,
                limits: Limits = Limits()) {
        self.store = store
        self.transport = transport
        self.rules = PartitionRules(facts: facts)
        self.limits = limits
    }

    // MARK: Channels

    /// Makes a channel; the reply holds the webhook secret, this once.
    public func createChannel(userID: UserID, name rawName: String, type rawType: String, url: String, token: String?) async throws -> Channel {
        let name = try Validate.name(rawName, field: "name")
        guard let type = ChannelType(rawValue: rawType) else {
            throw TrackingError.invalid("type must be one of webhook, ntfy, gotify", code: .invalidRequest)
        }
        try checkDestination(url)
        let token = try checkToken(token)
        if type == .gotify && token == nil {
            throw TrackingError.invalid("a gotify channel needs the application's token", code: .missingField)
        }
        let channel = Channel(id: .generate(), userID: userID, name: name, type: type, url: url, token: token,
                              secret: type == .webhook ? StandardWebhooks.newSecret() : nil, enabled: true, disabledReason: nil,
                              failingSince: nil, createdAt: .now)
        try await store.insertChannel(channel, limit: limits.channelsPerUser)
        return channel
    }

    public func channels(userID: UserID) throws -> [Channel] { try store.channels(userID: userID) }

    /// The channel if it is `userID`'s (404 otherwise).
    public func channel(id: ChannelID, userID: UserID) throws -> Channel {
        guard let channel = try store.channel(id: id), channel.userID == userID else { throw TrackingError.notFound("channel") }
        return channel
    }

    /// Changes name, URL, token and/or `enabled` (turning a channel on clears why it was off).
    public func updateChannel(id: ChannelID, userID: UserID, name rawName: String?, url: String?, token: JSONValue?,
                              enabled: Bool?) async throws -> Channel {
        var channel = try self.channel(id: id, userID: userID)
        guard rawName != nil || url != nil || token != nil || enabled != nil else {
            throw TrackingError.invalid("give at least one of name, url, token, enabled", code: .emptyChange)
        }
        if let rawName { channel.name = try Validate.name(rawName, field: "name") }
        if let url {
            try checkDestination(url)
            channel.url = url
        }
        if let token {
            if token.isNull { channel.token = nil } else {
                guard let text = token.stringValue else { throw TrackingError.wrongType("token", expected: "a string or null") }
                channel.token = try checkToken(text)
            }
        }
        let turnedOff = enabled == false && channel.enabled
        if let enabled {
            channel.enabled = enabled
            if enabled { channel.disabledReason = nil; channel.failingSince = nil }
        }
        guard try await store.updateChannel(channel) else { throw TrackingError.notFound("channel") }
        if turnedOff {
            try await store.failPendingDeliveries(channelID: id, reason: "the channel was turned off", at: Timestamp.nowMilliseconds())
        }
        return channel
    }

    public func deleteChannel(id: ChannelID, userID: UserID) async throws {
        guard try await store.deleteChannel(id: id, userID: userID) else { throw TrackingError.notFound("channel") }
    }

    /// The channel's delivery log, newest first.
    public func deliveries(channelID: ChannelID, userID: UserID, limit: Int) throws -> [Delivery] {
        _ = try channel(id: channelID, userID: userID)
        guard (1...limits.deliveryLog).contains(limit) else {
            throw TrackingError.invalid("limit must be 1 to \(limits.deliveryLog)", code: .invalidLimit)
        }
        return try store.deliveries(channelID: channelID, limit: limit)
    }

    // MARK: Alerts

    public func createAlert(groupID: GroupID, userID: UserID, channelID: ChannelID, placeID: PlaceID?, deviceID: DeviceID?,
                            events rawEvents: [String]) async throws -> Alert {
        try rules.requireRead(.user(userID: userID), .group(groupID), hiddenAs: "group")
        var events: Set<PlaceCrossing> = []
        for raw in rawEvents {
            guard let crossing = PlaceCrossing(rawValue: raw) else {
                throw TrackingError.invalid("events holds \"enter\" and/or \"exit\"", code: .invalidRequest)
            }
            events.insert(crossing)
        }
        guard !events.isEmpty else { throw TrackingError.invalid("events holds \"enter\" and/or \"exit\"", code: .invalidRequest) }
        let alert = Alert(id: .generate(), groupID: groupID, userID: userID, channelID: channelID, placeID: placeID, deviceID: deviceID,
                          events: events, sinceEvent: .start, createdAt: .now)
        return try await store.insertAlert(alert, limit: limits.alertsPerUserAndGroup)
    }

    public func alerts(groupID: GroupID, userID: UserID) throws -> [Alert] {
        try rules.requireRead(.user(userID: userID), .group(groupID), hiddenAs: "group")
        return try store.alerts(groupID: groupID, userID: userID)
    }

    public func deleteAlert(id: AlertID, groupID: GroupID, userID: UserID) async throws {
        try rules.requireRead(.user(userID: userID), .group(groupID), hiddenAs: "group")
        guard try await store.deleteAlert(id: id, groupID: groupID, userID: userID) else { throw TrackingError.notFound("alert") }
    }

    // MARK: Checks

    func checkDestination(_ url: String) throws {
        switch transport.refusal(for: url) {
        case nil: return
        case .invalid(let why): throw TrackingError.invalid("url: \(why)", code: .invalidDestination)
        case .notAllowed(let why): throw TrackingError(.unprocessable, code: .destinationNotAllowed, message: why)
        }
    }

    func checkToken(_ token: String?) throws -> String? {
        guard let token else { return nil }
        guard !token.isEmpty, token.utf8.count <= limits.tokenBytes,
              token.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f }) else {
            throw TrackingError.invalid("token must be 1 to \(limits.tokenBytes) bytes without control characters", code: .invalidRequest)
        }
        return token
    }
}
