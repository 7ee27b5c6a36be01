/// An HTTP response: status, headers and a body that is either bytes or a stream.
public struct Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    /// The body: bytes known now, or a stream read as the client can take it.
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(ResponseStream)
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a body of `bytes` and the given content type.
    public init(status: Int, contentType: String, bytes: [UInt8]) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: .bytes(bytes))
    }

    /// A streamed response with the given content type.
    public init(status: Int = 200, contentType: String, stream: ResponseStream) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: .stream(stream))
    }

    /// 204 No Content.
    public static var noContent: Response { Response(status: 204) }

    /// Adds (or replaces) a header.
    public mutating func setHeader(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        headers.removeAll { $0.name.lowercased() == lowered }
        headers.append((name, value))
    }

    /// The value of header `name`, if set.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// Byte count of a bytes body (0 for streams).
    var byteCount: Int {
        if case .bytes(let bytes) = body { return bytes.count }
        return 0
    }
}
