import Outbound
import Tracking

/// `NotificationTransport` over the libcurl client: the destination rules of API.md (http/https,
/// no loopback, private, link-local, multicast or reserved address unless allowed) checked on
/// the address resolved, and the sending.
public struct OutboundTransport: NotificationTransport {
    let client: OutboundClient

    public init(client: OutboundClient) { self.client = client }

    public func refusal(for url: String) -> DestinationRefusal? {
        let destination: DestinationURL
        do { destination = try DestinationURL(url) } catch { return .invalid(Self.explain(error)) }
        switch client.admittedAddress(for: destination) {
        case .success: return nil
        case .failure(.unknownHost(let host)): return .invalid("the host \(host) does not resolve")
        case .failure(let error): return .notAllowed(error.description)
        }
    }

    public func send(_ request: NotificationRequest) -> TransportResult {
        let destination: DestinationURL
        do { destination = try DestinationURL(request.url) } catch {
            return TransportResult(httpStatus: nil, retryAfterSeconds: nil, error: "invalid destination: \(Self.explain(error))")
        }
        let outbound = OutboundRequest(url: destination, method: "POST", headers: request.headers.map { ($0.name, $0.value) }, body: request.body)
        switch client.send(outbound) {
        case .success(let answer):
            let error = (200...299).contains(answer.status) ? nil : Self.excerpt(answer.body)
            return TransportResult(httpStatus: answer.status, retryAfterSeconds: answer.retryAfterSeconds, error: error)
        case .failure(let error):
            return TransportResult(httpStatus: nil, retryAfterSeconds: nil, error: error.description)
        }
    }

    static func explain(_ problem: DestinationURL.Problem) -> String {
        switch problem {
        case .notHTTP: "only http:// and https:// URLs"
        case .tooLong: "at most \(DestinationURL.maxLength) bytes"
        case .noHost: "the URL has no host"
        case .userInfo: "no user name or password in the URL (a token goes in `token`)"
        case .badPort: "the port must be a number from 1 to 65535"
        case .badCharacter: "no spaces or control characters"
        }
    }

    /// The start of an error answer's body, for the delivery log (printable, at most 200 characters).
    static func excerpt(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        let text = String(decoding: body.prefix(400), as: UTF8.self)
        return String(text.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) }.prefix(200))
    }
}
