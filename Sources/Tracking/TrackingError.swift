import ErrorCodes

/// The one error type of the domain. Only the API module turns it into an HTTP status.
///
/// Cases are static members over a private kind, so new kinds break nobody.
public struct TrackingError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Malformed or missing input (400).
        case invalidInput
        /// No credential, or one that is not (or no longer) valid (401).
        case unauthenticated
        /// A valid credential without the right (403); the message names the partition.
        case forbidden
        /// Unknown, or not visible to the caller (404).
        case notFound
        /// The request conflicts with the current state (409).
        case conflict
        /// Too many attempts (429); `retryAfterSeconds` says when to try again.
        case rateLimited
        /// Well-formed but invalid geometry (422).
        case invalidGeometry
        /// Well-formed but not acceptable for another reason (422): a destination the server
        /// may not send to.
        case unprocessable
        /// Temporarily unable (503, with `retryAfterSeconds`): overloaded, storage unavailable.
        case unavailable
        /// The server could not do it (500): never caused by input.
        case internalFailure
    }

    public let kind: Kind
    /// A stable snake_case code for clients (`email_taken`, `invalid_credentials`, …).
    public let code: ErrorCode
    /// A human sentence.
    public let message: String
    public var retryAfterSeconds: Int?
    /// Extra structured detail (e.g. the index of a bad fix).
    public var details: [String: String]

    public init(_ kind: Kind, code: ErrorCode, message: String, retryAfterSeconds: Int? = nil, details: [String: String] = [:]) {
        self.kind = kind
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.details = details
    }

    public var description: String { "\(code): \(message)" }

    public static func invalid(_ message: String, code: ErrorCode = .invalidRequest) -> TrackingError {
        TrackingError(.invalidInput, code: code, message: message)
    }
    public static func missingField(_ name: String) -> TrackingError {
        TrackingError(.invalidInput, code: .missingField, message: "field \"\(name)\" is required")
    }
    public static func wrongType(_ name: String, expected: String) -> TrackingError {
        TrackingError(.invalidInput, code: .wrongType, message: "field \"\(name)\" must be \(expected)")
    }
    public static var unauthenticated: TrackingError {
        TrackingError(.unauthenticated, code: .unauthenticated, message: "a valid token is required")
    }
    /// A valid credential of the wrong kind (a device token where a user token is needed): 403.
    public static func wrongCredentialKind(_ message: String) -> TrackingError {
        TrackingError(.forbidden, code: .wrongCredential, message: message)
    }
    public static func cannotRead(_ partition: Partition) -> TrackingError {
        TrackingError(.forbidden, code: .forbidden, message: "cannot read partition \(partition)")
    }
    public static func cannotWrite(_ partition: Partition) -> TrackingError {
        TrackingError(.forbidden, code: .forbidden, message: "cannot write partition \(partition)")
    }
    public static func forbidden(_ message: String) -> TrackingError {
        TrackingError(.forbidden, code: .forbidden, message: message)
    }
    public static func notFound(_ what: String) -> TrackingError {
        TrackingError(.notFound, code: .notFound, message: "\(what) not found")
    }
    public static func conflict(_ message: String, code: ErrorCode = .conflict) -> TrackingError {
        TrackingError(.conflict, code: code, message: message)
    }
    public static func rateLimited(retryAfter: Int) -> TrackingError {
        TrackingError(.rateLimited, code: .rateLimited, message: "too many attempts; try again in \(retryAfter) s",
                      retryAfterSeconds: retryAfter)
    }
    /// A query that would examine too much (400): the caller should narrow it.
    public static func queryTooBroad(_ reason: String) -> TrackingError {
        TrackingError(.invalidInput, code: .queryTooBroad,
                      message: "\(reason); narrow the region, add $maxDistance or a time range, or lower limit")
    }
    /// The server has too much of this work queued right now (503 with Retry-After).
    public static func busy(_ what: String, retryAfter: Int = 1) -> TrackingError {
        TrackingError(.unavailable, code: .busy, message: "too many \(what) in progress; try again shortly",
                      retryAfterSeconds: retryAfter)
    }
    public static func internalFailure(_ message: String) -> TrackingError {
        TrackingError(.internalFailure, code: .internalError, message: message)
    }
}
