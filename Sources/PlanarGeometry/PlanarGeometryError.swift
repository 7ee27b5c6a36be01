/// An error from the PlanarGeometry module.
///
/// Match on `code`; new codes may be added without breaking callers.
public struct PlanarGeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The caller's input cannot be processed (non-finite coordinates, negative tolerance,
        /// too many points). Bad client data, not a server fault.
        public static let invalidInput = Code("invalid_input")
        /// GEOS reported an error or returned something unexpected.
        public static let geos = Code("geos_failure")

        /// A snake_case name for logs.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A human sentence, e.g. `point 3 has a non-finite coordinate` or
    /// `GEOSTopologyPreserveSimplify_r failed: IllegalArgumentException: …`.
    public let message: String

    /// Invalid caller input.
    public static func invalidInput(_ message: String) -> PlanarGeometryError {
        PlanarGeometryError(code: .invalidInput, message: message)
    }

    /// A failure inside GEOS (`operation` is the C function, `detail` GEOS's own message).
    static func geos(_ operation: String, _ detail: String?) -> PlanarGeometryError {
        PlanarGeometryError(code: .geos, message: "\(operation) failed: \(detail ?? "no message from GEOS")")
    }

    public var description: String { "\(code): \(message)" }
}
