import JSONCore

/// One entry of a group's event log, as the live feed and the changes endpoint serve it.
///
/// Invariant: within a group, ids start at 1 and increase by exactly one per event, in commit
/// order (events are written in the transaction of the change they describe).
public struct GroupEvent: Sendable, Equatable {
    public enum Kind: String, Sendable { case location, membership }

    public let groupID: String
    public let id: Int64
    public let kind: Kind
    /// The member the event is about (whose location; who joined, left, …).
    public let userID: String?
    /// The event's JSON: for `location` `{deviceId, userId, location, timestamp, latest}`, for
    /// `membership` `{type, groupId, userId, …}`.
    public let data: JSONValue

    public init(groupID: String, id: Int64, kind: Kind, userID: String?, data: JSONValue) {
        self.groupID = groupID
        self.id = id
        self.kind = kind
        self.userID = userID
        self.data = data
    }

    /// The membership change type (`joined`, `left`, `removed`, `sharing`, `owner`, `deleted`).
    public var membershipType: String? { kind == .membership ? data["type"]?.stringValue : nil }
}

/// Receives committed events in commit order (the live hub).
public protocol GroupEventSink: Sendable {
    func publish(_ events: [GroupEvent])
}

/// Reading the event log.
public protocol EventLog: Sendable {
    /// Events of `groupID` with id > `after`, oldest first, at most `limit`.
    func events(groupID: String, after: Int64, limit: Int) throws -> [GroupEvent]
    /// The newest event id of the group (0 when none) and the oldest id still in the log
    /// (nil when the log holds none of the group's events).
    func eventBounds(groupID: String) throws -> (last: Int64, oldest: Int64?)
    /// Deletes events older than `before` (ms); returns how many.
    func pruneEvents(before: Int64) async throws -> Int
}

/// Builds the event payloads (shared by every writer of events).
public enum EventPayload {
    public static func location(deviceID: String, userID: String, longitude: Double, latitude: Double,
                                timestamp: String, latest: Bool) -> JSONValue {
        ["deviceId": .string(deviceID), "userId": .string(userID),
         "location": .array([.number(JSONNumber(longitude)), .number(JSONNumber(latitude))]),
         "timestamp": .string(timestamp), "latest": .bool(latest)]
    }

    public static func membership(_ type: String, groupID: String, userID: String, extra: JSONObject = [:]) -> JSONValue {
        var object: JSONObject = ["type": .string(type), "groupId": .string(groupID), "userId": .string(userID)]
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }
}
