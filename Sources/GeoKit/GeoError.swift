/// The one error type of GeoKit: invalid geometry built from client input.
///
/// Errors compare equal by kind (``code``), not by their detailed message, so callers and tests
/// can match `GeoError.loopNotClosed` while the message carries specifics. Messages start with
/// MongoDB's wording where MongoDB has one.
public struct GeoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error. New kinds may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        fileprivate init(_ name: String) { self.name = name }
        public var description: String { name }

        public static let invalidCoordinate = Code("invalidCoordinate")
        public static let loopNotClosed = Code("loopNotClosed")
        public static let tooFewVertices = Code("tooFewVertices")
        public static let invalidLoop = Code("invalidLoop")
        public static let holeNotContained = Code("holeNotContained")
        public static let overlappingLoops = Code("overlappingLoops")
        public static let strictWindingHoles = Code("strictWindingHoles")
        public static let emptyPolygon = Code("emptyPolygon")
        public static let tooComplex = Code("tooComplex")
    }

    /// The kind of error.
    public let code: Code
    /// A human-readable message suitable for an API error body.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A coordinate that is not finite or out of range.
    public static func invalidCoordinate(_ latLng: LatLng) -> GeoError {
        GeoError(.invalidCoordinate,
                 "longitude/latitude is out of bounds, lng: \(latLng.lng.degrees) lat: \(latLng.lat.degrees)")
    }

    /// The first and last vertex of a ring differ.
    public static let loopNotClosed = GeoError(.loopNotClosed, "Loop is not closed")
    /// Fewer than three distinct vertices after dropping adjacent duplicates.
    public static let tooFewVertices = GeoError(.tooFewVertices, "Loop must have at least 3 different vertices")
    /// A self-intersecting or otherwise degenerate ring.
    public static let invalidLoop = GeoError(.invalidLoop, "Loop is not valid")
    /// A hole that is not inside the shell.
    public static let holeNotContained = GeoError(
        .holeNotContained, "Secondary loops not contained by first exterior loop - secondary loops must be holes")
    /// Two loops of one polygon cross or nest where they may not.
    public static let overlappingLoops = GeoError(.overlappingLoops, "Polygon loops must not cross or overlap")
    /// Holes were given with the strict-winding CRS (big polygons have a single ring).
    public static let strictWindingHoles = GeoError(
        .strictWindingHoles, "Only one ring allowed with the strict-winding CRS")
    /// A polygon with no rings.
    public static let emptyPolygon = GeoError(.emptyPolygon, "Polygon has no loops")

    /// A polygon whose edges (or rings) lie so close together along every axis that checking it
    /// for self-intersections would exceed the work budget (``EdgeSweep/budget(for:)``).
    public static func tooComplex(edges: Int) -> GeoError {
        GeoError(.tooComplex, "Polygon is too complex to validate: the bounding boxes of its \(edges) edges overlap too much (more than \(EdgeSweep.budget(for: edges)) checks); simplify it")
    }

    /// An invalid-loop error with a specific reason appended.
    static func invalidLoop(_ reason: String) -> GeoError {
        GeoError(.invalidLoop, "Loop is not valid: \(reason)")
    }

    public static func == (lhs: GeoError, rhs: GeoError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    public var description: String { message }
}
