/// An error thrown by `JSONParser`.
///
/// `description` is a human-readable message suitable for an HTTP 400 response body:
/// - syntax errors: `invalid JSON at line 1, column 7: expected ',' or '}' after object member`
/// - encoding errors: `invalid UTF-8 at byte 12`
/// - limit errors: `nesting deeper than 64`, `string longer than 1000 bytes`,
///   `input larger than 1048576 bytes`
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input is not valid JSON text.
        case syntax
        /// The input is not valid UTF-8 (checked everywhere, not only inside strings).
        case invalidUTF8
        /// A `JSONParser.Limits` value was exceeded.
        case limitExceeded
    }

    public let kind: Kind
    /// Zero-based byte offset of the offending position in the input.
    public let offset: Int
    /// One-based line number (lines are separated by `\n`).
    public let line: Int
    /// One-based column, counted in Unicode scalars (UTF-8 lead bytes) from the line start.
    public let column: Int
    /// What went wrong, without position, e.g. `trailing comma in array`, `duplicate key "id"`,
    /// `overlong encoding`, `nesting deeper than 64`.
    public let reason: String

    public init(kind: Kind, offset: Int, line: Int, column: Int, reason: String) {
        self.kind = kind
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .syntax:
            "invalid JSON at line \(line), column \(column): \(reason)"
        case .invalidUTF8:
            "invalid UTF-8 at byte \(offset)"
        case .limitExceeded:
            reason
        }
    }
}
