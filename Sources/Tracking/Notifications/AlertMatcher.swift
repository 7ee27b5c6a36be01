/// Which `place` events reach which channels (API.md "Delivery"), as a pure function.
///
/// An event matches an alert of its group made before it (`sinceEvent`), at its place (or any),
/// about its device (or any), for its kind of crossing. Each channel gets an event once, however
/// many of its owner's alerts match. Visibility holds by construction: a `place` event is logged
/// only for a device whose member shared with the group at the fix's time, and an alert exists
/// only while its owner is a member (it goes with the membership).
public enum AlertMatcher {
    /// The deliveries `input` makes, in event order; `newID` names each and `body` writes what
    /// each carries (the server's webhook body: wire format is not the domain's).
    public static func deliveries(_ input: AlertMatchInput, newID: () -> DeliveryID = { .generate() },
                                  body: (PlaceNotice) -> String) -> [NewDelivery] {
        var out: [NewDelivery] = []
        for event in input.events {
            guard case .place(let place) = event.payload else { continue }
            var channels: Set<ChannelID> = []
            for alert in input.alerts where matches(alert, place, eventID: event.id) && !channels.contains(alert.channelID) {
                channels.insert(alert.channelID)
                let id = newID()
                let notice = PlaceNotice(deliveryID: id, event: place, groupID: input.groupID, groupName: input.groupName,
                                         deviceName: input.deviceNames[place.deviceID] ?? place.deviceID.rawValue,
                                         displayName: input.displayNames[place.userID] ?? "A member")
                out.append(NewDelivery(id: id, channelID: alert.channelID, eventID: event.id,
                                       eventType: "place." + place.crossing.rawValue, payload: body(notice)))
            }
        }
        return out
    }

    static func matches(_ alert: Alert, _ event: PlaceEvent, eventID: EventID) -> Bool {
        eventID > alert.sinceEvent
            && alert.events.contains(event.crossing)
            && (alert.placeID == nil || alert.placeID == event.placeID)
            && (alert.deviceID == nil || alert.deviceID == event.deviceID)
    }
}

/// What one delivery tells its channel: a place event, with the names people know its group,
/// device and member by when it was matched.
public struct PlaceNotice: Sendable, Equatable {
    public let deliveryID: DeliveryID
    public let event: PlaceEvent
    public let groupID: GroupID
    public let groupName: String
    /// The device's name, or its id when it has none.
    public let deviceName: String
    /// The member's display name ("A member" when unknown).
    public let displayName: String
}
