import Crypto
import JSONCore
import Timestamps
import Tracking

/// What a notification says and how each channel type carries it (API.md "Channels").
enum NotificationMessage {
    /// The webhook body, kept as the delivery's payload (the same bytes on every retry):
    /// `{id, type, occurredAt, group, place, device, member, location}`.
    static func webhookBody(_ notice: PlaceNotice) -> String {
        let event = notice.event
        let body: JSONValue = [
            "id": .string(notice.deliveryID.rawValue),
            "type": .string("place." + event.crossing.rawValue),
            "occurredAt": .string(Timestamp.rfc3339(millisecondsSince1970: event.timestamp)),
            "group": ["id": .string(notice.groupID.rawValue), "name": .string(notice.groupName)],
            "place": ["id": .string(event.placeID.rawValue), "name": .string(event.placeName)],
            "device": ["id": .string(event.deviceID.rawValue), "name": .string(notice.deviceName)],
            "member": ["userId": .string(event.userID.rawValue), "displayName": .string(notice.displayName)],
            "location": .array([.number(JSONNumber(event.longitude)), .number(JSONNumber(event.latitude))]),
        ]
        return body.serializedString()
    }

    /// The sentence people read: "Ann arrived at School", "Ann left School".
    static func sentence(payload: JSONValue) -> String {
        let who = payload["member"]?["displayName"]?.stringValue ?? "A member"
        let place = payload["place"]?["name"]?.stringValue ?? "a place"
        return payload["type"]?.stringValue == "place.exit" ? "\(who) left \(place)" : "\(who) arrived at \(place)"
    }

    /// A test notification's payload.
    static func testPayload(deliveryID: DeliveryID, at timestamp: String) -> String {
        let body: JSONValue = ["id": .string(deliveryID.rawValue), "type": "test", "occurredAt": .string(timestamp),
                               "message": "A test notification from Find Our Devices"]
        return body.serializedString()
    }

    /// The request that delivers `payload` through `channel` at `now` (Unix seconds).
    /// - Parameter webMapURL: the server's public web map, for ntfy's `Click` (nil: none).
    static func request(channel: Channel, deliveryID: DeliveryID, payload: String, nowSeconds: Int64,
                               webMapURL: String?) -> NotificationRequest {
        let json = (try? JSONParser.parse(payload)) ?? .null
        let text = json["type"]?.stringValue == "test"
            ? (json["message"]?.stringValue ?? "A test notification") : sentence(payload: json)
        let group = json["group"]?["name"]?.stringValue ?? "Find Our Devices"
        switch channel.type {
        case .webhook:
            let body = Array(payload.utf8)
            var headers = [NotificationRequest.Header("Content-Type", "application/json"),
                           NotificationRequest.Header("webhook-id", deliveryID.rawValue),
                           NotificationRequest.Header("webhook-timestamp", String(nowSeconds))]
            if let secret = channel.secret, let signature = StandardWebhooks.signature(secret: secret, id: deliveryID.rawValue,
                                                                                       timestamp: nowSeconds, body: body) {
                headers.append(NotificationRequest.Header("webhook-signature", signature))
            }
            return NotificationRequest(url: channel.url, headers: headers, body: body)
        case .ntfy:
            var headers = [NotificationRequest.Header("Content-Type", "text/plain; charset=utf-8"),
                           NotificationRequest.Header("Title", HeaderText.encode(group)),
                           NotificationRequest.Header("Tags", json["type"]?.stringValue == "place.exit" ? "wave" : "round_pushpin")]
            if let webMapURL { headers.append(NotificationRequest.Header("Click", HeaderText.encode(webMapURL))) }
            if let token = channel.token { headers.append(NotificationRequest.Header("Authorization", "Bearer " + HeaderText.encode(token))) }
            return NotificationRequest(url: channel.url, headers: headers, body: Array(text.utf8))
        case .gotify:
            let base = channel.url.hasSuffix("/") ? String(channel.url.dropLast()) : channel.url
            var headers = [NotificationRequest.Header("Content-Type", "application/json")]
            if let token = channel.token { headers.append(NotificationRequest.Header("X-Gotify-Key", HeaderText.encode(token))) }
            let body: JSONValue = ["title": .string(group), "message": .string(text), "priority": 5]
            return NotificationRequest(url: base + "/message", headers: headers, body: body.serialized())
        }
    }
}

/// Header values from user text: control characters (a line break could start a header of its
/// own) become spaces, and text beyond ASCII is sent as an RFC 2047 encoded word (ntfy reads it).
enum HeaderText {
    static func encode(_ text: String) -> String {
        let clean = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) }.prefix(256))
        guard clean.unicodeScalars.allSatisfy(\.isASCII) else {
            return "=?UTF-8?B?" + StandardBase64.encode(Array(clean.utf8)) + "?="
        }
        return clean
    }
}
