/// How notifications leave the server (the server's HTTP client implements it): the
/// destination rules and the sending. `send` blocks: call it off request threads.
///
/// Implemented by `OutboundTransport` (API).
public protocol NotificationTransport: Sendable {
    /// Why `url` may not be a channel's destination, nil when it may.
    func refusal(for url: String) -> DestinationRefusal?
    /// Sends `request` once and reports what came back.
    func send(_ request: NotificationRequest) -> TransportResult
}

/// Why a destination is refused.
public enum DestinationRefusal: Sendable, Equatable {
    /// Not an `http`/`https` URL this server sends to (400 `invalid_destination`).
    case invalid(String)
    /// It reaches an address the server may not send to (422 `destination_not_allowed`).
    case notAllowed(String)
}

/// What one send came to: an HTTP answer, or why there was none.
public struct TransportResult: Sendable, Equatable {
    public let httpStatus: Int?
    public let retryAfterSeconds: Int?
    /// Why there was no answer (or the start of an error answer's body), for the delivery log.
    public let error: String?

    public init(httpStatus: Int?, retryAfterSeconds: Int?, error: String?) {
        self.httpStatus = httpStatus
        self.retryAfterSeconds = retryAfterSeconds
        self.error = error
    }
}

/// An HTTP request to make, as the domain describes it (the server's transport sends it).
public struct NotificationRequest: Sendable, Equatable {
    public let url: String
    public let headers: [Header]
    public let body: [UInt8]

    public struct Header: Sendable, Equatable {
        public let name: String
        public let value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(url: String, headers: [Header], body: [UInt8]) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}
