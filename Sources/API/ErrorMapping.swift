import ErrorCodes
import GeoQuery
import HTTPServer
import JSONCore
import LocationFormats
import Tracking

/// The only place errors become HTTP statuses and bodies.
///
/// Body shape (API.md): `{"error": {"code": "<snake_case>", "message": "<sentence>", "details"?: {...}}}`.
/// Anything not recognised is a 500 with a generic message (the detail goes to the log only).
public struct ErrorMapper: Sendable {
    let logger: Logger
    let storageFaults: StorageFaultResponder

    public init(logger: Logger) {
        self.logger = logger
        storageFaults = StorageFaultResponder(logger: logger)
    }

    public func response(for error: Error, request: Request) -> Response {
        switch error {
        case let e as TrackingError:
            var response = Self.body(status: Self.status(e.kind), code: e.code, message: e.message, details: e.details)
            if let retry = e.retryAfterSeconds { response.setHeader("Retry-After", String(retry)) }
            if e.kind == .internalFailure { logger.error("\(request.requestID) \(e)") }
            return response
        case let e as HTTPError:
            var response = Self.body(status: e.status, code: e.code, message: e.message)
            for header in e.headers { response.setHeader(header.name, header.value) }
            return response
        case let e as GeoQueryError:
            return Self.body(status: e.status, code: ErrorCode(rawValue: e.code.rawValue), message: e.message)
        case let e as FixError:
            return Self.body(status: 400, code: e.code, message: e.message)
        case let e as JSONParseError:
            return Self.body(status: 400, code: .malformedJSON, message: e.description)
        case let e as StoreFailure:
            return storageFaults.response(for: e, request: request)
        default:
            logger.error("\(request.requestID) \(LogText.escaped(request.method)) \(LogText.escaped(request.loggedPath)) failed: \(error)")
            return Self.body(status: 500, code: .internalError, message: "the server failed to handle this request")
        }
    }

    static func status(_ kind: TrackingError.Kind) -> Int {
        switch kind {
        case .invalidInput: 400
        case .unauthenticated: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .rateLimited: 429
        case .invalidGeometry, .unprocessable: 422
        case .unavailable: 503
        case .internalFailure: 500
        }
    }

    static func body(status: Int, code: ErrorCode, message: String, details: [String: String] = [:]) -> Response {
        var error: JSONObject = ["code": .string(code.rawValue), "message": .string(message)]
        if !details.isEmpty {
            error["details"] = .object(JSONObject(details.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        }
        var response = Response.json(status: status, ["error": .object(error)])
        if status == 401 { response.setHeader("WWW-Authenticate", "Bearer") }
        return response
    }
}

extension Response {
    /// A JSON response (`application/json; charset=utf-8`).
    public static func json(status: Int = 200, _ value: JSONValue) -> Response {
        Response(status: status, contentType: "application/json; charset=utf-8", bytes: value.serialized())
    }
}
