import Timestamps
import Tracking

/// `POST /v1/me/channels/{id}/test` (API.md "Channels"): a test notification sent now through a
/// channel, outside the queue and its retries; `send` blocks up to the transport's timeout.
public struct ChannelTestSend: Sendable {
    let transport: any NotificationTransport
    /// The server's web map as the outside world reaches it (ntfy's `Click`), when known.
    let webMapURL: String?

    /// What came of sending a test notification through `channel` now.
    func send(to channel: Channel) -> TransportResult {
        let id = DeliveryID.generate()
        let now = Timestamp.nowMilliseconds()
        let payload = NotificationMessage.testPayload(deliveryID: id, at: Timestamp.rfc3339(millisecondsSince1970: now))
        return transport.send(NotificationMessage.request(channel: channel, deliveryID: id, payload: payload, nowSeconds: now / 1_000,
                                                          webMapURL: webMapURL))
    }
}
