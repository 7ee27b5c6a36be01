// fuzz-modules: API Tracking EventJSON Outbound JSONCore Crypto
// fuzz-support: FuzzCheck
// fuzz-max-len: 4096
//
// Notifications: the channel and alert bodies (`NewChannelBody`, `ChannelChangeBody`,
// `NewAlertBody`), destination URLs, `Retry-After`, and the requests built from what clients
// and the log hold (names, payloads). The first input byte picks the entry point, the rest is the
// input. Invariants: nothing traps; a body is accepted or refused with a 4xx; a URL accepted
// is http(s) with a host, no user information and a port in 1…65535, and parses again to the
// same parts; `Retry-After` is nil or 0…86400 seconds; every header value of every request is
// free of control characters (no header injection from a name or token), a webhook's signature
// verifies, and a Gotify body is JSON.
import Crypto
import EventJSON
import JSONCore
import Outbound
@testable import API
import Tracking

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNotify(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let text = String(decoding: input, as: UTF8.self)
    switch selector % 5 {
    case 0: bodies(input)
    case 1: destination(text)
    case 2: retryAfter(text)
    case 3: requests(text)
    default: placeEvent(input)
    }
    return 0
}

/// Any JSON object as each body: parsed or refused as a client error.
func bodies(_ input: [UInt8]) {
    guard let value = try? JSONParser.parse(input) else { return }
    guard let object = value.objectValue else { return }
    let body = JSONBody(object: object)
    for parse in [{ _ = try NewChannelBody(body) }, { _ = try ChannelChangeBody(body) }, { _ = try NewAlertBody(body) }] as [() throws -> Void] {
        do { try parse() } catch let error as TrackingError {
            require(error.kind == .invalidInput, "a body was refused as \(error.kind), not as bad input: \(error)")
        } catch {
            require(false, "a body threw \(error)")
        }
    }
    if let alert = try? NewAlertBody(body) {
        require(alert.events.count <= 2, "an alert body kept \(alert.events.count) events")
    }
}

func destination(_ text: String) {
    guard let url = try? DestinationURL(text) else { return }
    require(url.scheme == "http" || url.scheme == "https", "scheme \(url.scheme)")
    require(!url.host.isEmpty && (1...65_535).contains(url.port), "host \(url.host) port \(url.port)")
    require(text.utf8.count <= DestinationURL.maxLength, "a URL of \(text.utf8.count) bytes was taken")
    let again = try? DestinationURL(url.text)
    require(again == url, "\(shown(text.utf8)) does not parse to the same parts again")
}

func retryAfter(_ text: String) {
    if let seconds = RetryAfter.seconds(text, now: 1_790_000_000_000) {
        require((0...RetryAfter.maxSeconds).contains(seconds), "Retry-After \(seconds)")
    }
}

/// The input is split into a name, a token and a payload; every channel type's request is built.
func requests(_ text: String) {
    let parts = text.split(separator: "\u{1}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let name = parts.first ?? "", token = parts.count > 1 ? parts[1] : nil, payload = parts.count > 2 ? parts[2] : text
    let secret = StandardWebhooks.newSecret()
    for type in ChannelType.allCases {
        let channel = Channel(id: ChannelID("ch_x"), userID: UserID("u_x"), name: name, type: type, url: "https://hooks.example.org/x", token: token,
                              secret: type == .webhook ? secret : nil, enabled: true, disabledReason: nil, failingSince: nil, createdAt: .epoch)
        let request = NotificationMessage.request(channel: channel, deliveryID: DeliveryID("msg_x"), payload: payload, nowSeconds: 1_790_000_000,
                                                  webMapURL: "https://fod.example.org/" + name)
        for header in request.headers {
            require(header.value.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f },
                    "header \(header.name) carries a control character: \(shown(header.value.utf8))")
        }
        switch type {
        case .webhook:
            let signature = request.headers.first { $0.name == "webhook-signature" }?.value
            let expected = StandardWebhooks.signature(secret: secret, id: "msg_x", timestamp: 1_790_000_000, body: request.body)
            require(signature != nil && signature == expected, "webhook signature \(String(describing: signature))")
            require(request.body == Array(payload.utf8), "the webhook body is not the payload as stored")
        case .gotify:
            require((try? JSONParser.parse(request.body)) != nil, "a Gotify body is not JSON")
        case .ntfy:
            break
        }
    }
    let encoded = HeaderText.encode(text)
    require(encoded.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7f }, "HeaderText left \(shown(encoded.utf8))")
}

/// Any text as a logged `place` event's data: read or redacted, and a webhook body built from it
/// is JSON with its type.
func placeEvent(_ input: [UInt8]) {
    let event = GroupEvent(groupID: GroupID("g_x"), id: EventID(7), payload: EventJSON.payload(type: "place", text: String(decoding: input, as: UTF8.self)))
    let input = AlertMatchInput(groupID: GroupID("g_x"), groupName: "Family", events: [event],
                                alerts: [Alert(id: AlertID("al_x"), groupID: GroupID("g_x"), userID: UserID("u_y"), channelID: ChannelID("ch_x"), placeID: nil, deviceID: nil,
                                               events: [.enter, .exit], sinceEvent: .start, createdAt: .epoch)],
                                deviceNames: [:], displayNames: [:])
    for delivery in AlertMatcher.deliveries(input, body: NotificationMessage.webhookBody) {
        let body = try? JSONParser.parse(delivery.payload)
        require(body?["type"]?.stringValue == delivery.eventType, "a webhook body of type \(delivery.eventType) reads \(delivery.payload)")
    }
}
