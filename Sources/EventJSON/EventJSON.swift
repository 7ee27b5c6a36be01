import JSONCore
import Timestamps
import Tracking

/// The JSON form of a group's events: the `data` of the live feed's and `/changes`' events
/// (API.md "Live feed"), which is also the form the event log stores — the log keeps what the
/// feed serves, so the API and both stores use this one encoding and its one decoding.
///
/// Times are RFC 3339 with milliseconds (`Timestamp.rfc3339`), positions `[longitude, latitude]`.
/// Objects keep the key order written here, so the stored text of an event never changes.
public enum EventJSON {
    /// `event`'s `data`.
    public static func data(_ event: GroupEvent) -> JSONValue { data(event.payload, groupID: event.groupID) }

    /// The `data` of an event of group `groupID` saying `payload`:
    /// - `location`: `{deviceId, userId, location, timestamp, latest}`
    /// - `locations`: `{deviceId, userId, count, from, to}`
    /// - `membership`: `{type, groupId, userId}` plus `shareLocation`, `name` (a rename),
    ///   `deviceId`, `formerOwnerId`, `reason` where they apply
    /// - `place`: `{type: "enter" | "exit", placeId, placeName, deviceId, userId, timestamp, location}`
    /// - `redacted`: `{}`
    public static func data(_ payload: EventPayload, groupID: GroupID) -> JSONValue {
        switch payload {
        case .location(let e):
            ["deviceId": .string(e.deviceID.rawValue), "userId": .string(e.userID.rawValue),
             "location": position(e.longitude, e.latitude), "timestamp": time(e.timestamp), "latest": .bool(e.latest)]
        case .locations(let e):
            ["deviceId": .string(e.deviceID.rawValue), "userId": .string(e.userID.rawValue), "count": JSONValue(e.count),
             "from": time(e.from), "to": time(e.to)]
        case .membership(let e):
            membership(e, groupID: groupID)
        case .place(let e):
            ["type": .string(e.crossing.rawValue), "placeId": .string(e.placeID.rawValue), "placeName": .string(e.placeName),
             "deviceId": .string(e.deviceID.rawValue), "userId": .string(e.userID.rawValue), "timestamp": time(e.timestamp),
             "location": position(e.longitude, e.latitude)]
        case .redacted:
            .object([:])
        }
    }

    /// What a log row of type `type` with data `text` says; `.redacted` for a type this release
    /// does not know or data that does not hold what its type needs (never served).
    public static func payload(type: String, text: String) -> EventPayload {
        guard let kind = GroupEvent.Kind(rawValue: type), kind != .redacted,
              let data = try? JSONParser.parse(Array(text.utf8)) else { return .redacted }
        return payload(kind: kind, data: data) ?? .redacted
    }

    static func payload(kind: GroupEvent.Kind, data: JSONValue) -> EventPayload? {
        guard let user = data["userId"]?.stringValue.map(UserID.init) else { return nil }
        let device = data["deviceId"]?.stringValue.map(DeviceID.init)
        switch kind {
        case .location:
            guard let device, let timestamp = time(data["timestamp"]), let (longitude, latitude) = position(data["location"]),
                  let latest = data["latest"]?.boolValue else { return nil }
            return .location(LocationEvent(deviceID: device, userID: user, longitude: longitude, latitude: latitude,
                                           timestamp: timestamp, latest: latest))
        case .locations:
            guard let device, let count = data["count"]?.intValue, let from = time(data["from"]), let to = time(data["to"]) else { return nil }
            return .locations(LocationBatchEvent(deviceID: device, userID: user, count: count, from: from, to: to))
        case .membership:
            guard let type = data["type"]?.stringValue,
                  let change = MembershipChange(type: type, shareLocation: data["shareLocation"]?.boolValue) else { return nil }
            var event = MembershipEvent(change, userID: user, deviceID: device,
                                        formerOwnerID: data["formerOwnerId"]?.stringValue.map(UserID.init),
                                        reason: data["reason"]?.stringValue.flatMap(DepartureReason.init(rawValue:)))
            event.groupName = data["name"]?.stringValue
            return .membership(event)
        case .place:
            guard let device, let crossing = data["type"]?.stringValue.flatMap(PlaceCrossing.init(rawValue:)),
                  let place = data["placeId"]?.stringValue, let placeName = data["placeName"]?.stringValue,
                  let timestamp = time(data["timestamp"]), let (longitude, latitude) = position(data["location"]) else { return nil }
            return .place(PlaceEvent(crossing: crossing, placeID: PlaceID(place), placeName: placeName, deviceID: device, userID: user,
                                     timestamp: timestamp, longitude: longitude, latitude: latitude))
        case .redacted:
            return .redacted
        }
    }

    private static func membership(_ event: MembershipEvent, groupID: GroupID) -> JSONValue {
        var object: JSONObject = ["type": .string(event.change.type), "groupId": .string(groupID.rawValue),
                                  "userId": .string(event.userID.rawValue)]
        switch event.change {
        case .joined(let sharing): object["shareLocation"] = .bool(sharing)
        case .sharing(let on): object["shareLocation"] = .bool(on)
        case .renamed: if let name = event.groupName { object["name"] = .string(name) }
        case .left, .removed, .owner, .deleted: break
        }
        if let device = event.deviceID { object["deviceId"] = .string(device.rawValue) }
        if let former = event.formerOwnerID { object["formerOwnerId"] = .string(former.rawValue) }
        if let reason = event.reason { object["reason"] = .string(reason.rawValue) }
        return .object(object)
    }

    private static func time(_ milliseconds: Int64) -> JSONValue { .string(Timestamp.rfc3339(millisecondsSince1970: milliseconds)) }

    private static func time(_ value: JSONValue?) -> Int64? { value?.stringValue.flatMap { Timestamp.parseRFC3339($0) } }

    private static func position(_ longitude: Double, _ latitude: Double) -> JSONValue {
        .array([.number(JSONNumber(longitude)), .number(JSONNumber(latitude))])
    }

    private static func position(_ value: JSONValue?) -> (Double, Double)? {
        guard let pair = value?.arrayValue, pair.count == 2, let longitude = pair[0].doubleValue, let latitude = pair[1].doubleValue
        else { return nil }
        return (longitude, latitude)
    }
}
