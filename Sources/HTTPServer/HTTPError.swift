import ErrorCodes

/// An error the transport itself raises (no route, wrong method, body too large …) or that a
/// handler throws when it already knows the status. The application's error responder turns it
/// into a body of its own format.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public let status: Int
    /// A stable snake_case code (`not_found`, `payload_too_large`, …).
    public let code: ErrorCode
    /// A human sentence for the client.
    public let message: String
    /// Extra response headers (e.g. `Allow`, `Retry-After`).
    public let headers: [(name: String, value: String)]

    public init(status: Int, code: ErrorCode, message: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(status: 404, code: .notFound, message: "no route for \(path)")
    }
    public static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPError {
        HTTPError(status: 405, code: .methodNotAllowed,
                  message: "method \(method) is not allowed here; allowed: \(allowed.joined(separator: ", "))",
                  headers: [("Allow", allowed.joined(separator: ", "))])
    }
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: .payloadTooLarge, message: "request body is larger than \(limit) bytes")
    }
    public static var shuttingDown: HTTPError {
        HTTPError(status: 503, code: .shuttingDown, message: "the server is shutting down")
    }
}

extension ErrorCode {
    // Start-up failures: `HTTPServer.start` throws them to its caller, never to a client, so they
    // are not in `ErrorCode.all` (status 0).

    /// The configured bind address cannot be parsed.
    static let badAddress = ErrorCode("bad_address")
    /// The listening socket could not be opened (port in use, no permission).
    static let listenFailed = ErrorCode("listen_failed")
}
