// Codes of the transport, of request bodies and of query parameters.

extension ErrorCode {
    // MARK: Transport

    /// No route for the path, or an object that is unknown or not visible to the caller (404).
    public static let notFound = ErrorCode("not_found")
    /// The path exists but not for this method; the `Allow` header lists the methods (405).
    public static let methodNotAllowed = ErrorCode("method_not_allowed")
    /// The request body is larger than the route's limit (413).
    public static let payloadTooLarge = ErrorCode("payload_too_large")
    /// The body's `Content-Type` is not one the route reads (415).
    public static let unsupportedMediaType = ErrorCode("unsupported_media_type")
    /// The connection closed before the whole request body arrived (400).
    public static let incompleteBody = ErrorCode("incomplete_body")
    /// The handler answered before reading the body it had asked to stream (503).
    public static let requestAbandoned = ErrorCode("request_abandoned")
    /// The server is stopping and takes no new requests (503).
    public static let shuttingDown = ErrorCode("shutting_down")

    static let transport: [ErrorCode] = [
        notFound, methodNotAllowed, payloadTooLarge, unsupportedMediaType, incompleteBody, requestAbandoned, shuttingDown,
    ]

    // MARK: JSON request bodies

    /// A route that needs a JSON body got an empty one (400).
    public static let missingBody = ErrorCode("missing_body")
    /// The body is not valid JSON (400); also a query parameter that must be JSON.
    public static let malformedJSON = ErrorCode("malformed_json")
    /// A field, or the body itself, has the wrong JSON type (400).
    public static let wrongType = ErrorCode("wrong_type")
    /// A required field is absent (400).
    public static let missingField = ErrorCode("missing_field")
    /// Invalid input without a more specific code (400): the default of `TrackingError.invalid`.
    public static let invalidRequest = ErrorCode("invalid_request")

    static let requests: [ErrorCode] = [missingBody, malformedJSON, wrongType, missingField, invalidRequest]

    // MARK: Query parameters

    /// A parameter that must be a (whole) number is not one (400).
    public static let invalidNumber = ErrorCode("invalid_number")
    /// A number out of its range, or `from` after `to`, or a time range too long (400).
    public static let invalidRange = ErrorCode("invalid_range")
    /// A time parameter that is neither RFC 3339 nor epoch milliseconds, or outside 0001–9999 (400).
    public static let invalidTime = ErrorCode("invalid_time")
    /// `limit` out of its range (400).
    public static let invalidLimit = ErrorCode("invalid_limit")
    /// A paging cursor this server did not issue (400).
    public static let invalidCursor = ErrorCode("invalid_cursor")
    /// `Last-Event-ID` is not a whole number ≥ 0 (400).
    public static let invalidEventID = ErrorCode("invalid_event_id")
    /// A parameter with a value outside its documented set or range (400): exports, timeline,
    /// OsmAnd's `valid`.
    public static let invalidParameter = ErrorCode("invalid_parameter")
    /// A geo query's `scope` is not `latest`/`history`, or `from`/`to` with scope `latest` (400).
    public static let invalidScope = ErrorCode("invalid_scope")
    /// A geo query's `filter` is not `{"location": <geo operator>}` (400).
    public static let invalidFilter = ErrorCode("invalid_filter")
    /// An export `format` the server does not write (400).
    public static let invalidFormat = ErrorCode("invalid_format")
    /// An export `color` other than `device` or `user` (400).
    public static let invalidColor = ErrorCode("invalid_color")
    /// A partition name that is not `user=<id>`, `device=<id>` or `group=<id>` (400).
    public static let invalidPartition = ErrorCode("invalid_partition")
    /// A query that would examine too much; the caller should narrow it (400).
    public static let queryTooBroad = ErrorCode("query_too_broad")

    static let parameters: [ErrorCode] = [
        invalidNumber, invalidRange, invalidTime, invalidLimit, invalidCursor, invalidEventID, invalidParameter,
        invalidScope, invalidFilter, invalidFormat, invalidColor, invalidPartition, queryTooBroad,
    ]
}
