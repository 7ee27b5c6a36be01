/// An error the transport itself raises (no route, wrong method, body too large …) or that a
/// handler throws when it already knows the status. The application's error responder turns it
/// into a body of its own format.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public let status: Int
    /// A stable snake_case code (`not_found`, `payload_too_large`, …).
    public let code: String
    /// A human sentence for the client.
    public let message: String
    /// Extra response headers (e.g. `Allow`, `Retry-After`).
    public let headers: [(name: String, value: String)]

    public init(status: Int, code: String, message: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(status: 404, code: "not_found", message: "no route for \(path)")
    }
    public static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPError {
        HTTPError(status: 405, code: "method_not_allowed",
                  message: "method \(method) is not allowed here; allowed: \(allowed.joined(separator: ", "))",
                  headers: [("Allow", allowed.joined(separator: ", "))])
    }
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: "payload_too_large", message: "request body is larger than \(limit) bytes")
    }
    public static var shuttingDown: HTTPError {
        HTTPError(status: 503, code: "shutting_down", message: "the server is shutting down")
    }
}
