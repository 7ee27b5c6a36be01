/// A stable snake_case error code, the `code` of the API's error body
/// `{"error": {"code": "<snake_case>", "message": "<sentence>"}}`.
///
/// A struct over its text rather than an enum, so a module can add codes of its own in an
/// extension; every code a client can receive is a `static let` here, grouped by concern in the
/// `ErrorCode+*.swift` files, and listed in ``all`` (a test checks that list against
/// `docs/API.md`). The HTTP status is not part of the code: the thrower's error kind decides it,
/// and each member's comment says which status it comes with.
///
/// Invariant: `rawValue` is non-empty lower-case ASCII letters and underscores; it is written
/// to the JSON body unchanged.
@frozen
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The snake_case text sent to clients.
    public let rawValue: String

    /// The code with this text. Use a `static let` member instead of calling this with a literal
    /// at a throw site.
    @inlinable
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code with this text (``init(rawValue:)``, unlabelled for member declarations).
    @inlinable
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The code's text.
    @inlinable
    public var description: String { rawValue }

    /// The UTF-8 bytes of the code's text (for checks that a code is snake_case).
    @inlinable
    public var utf8: String.UTF8View { rawValue.utf8 }

    /// Whether the code's text is empty (never true for a member of ``all``).
    @inlinable
    public var isEmpty: Bool { rawValue.isEmpty }
}

extension ErrorCode {
    /// Every code a response can carry, by concern (the GeoQuery operator codes are
    /// `GeoQueryError.Code`, listed apart). Kept in step with the "Error codes" section of
    /// `docs/API.md` by a test.
    public static let all: [ErrorCode] = transport + requests + parameters + credentials + groups
        + devices + places + shareLinks + fixes + phoneApps + imports + notifications + server
}
