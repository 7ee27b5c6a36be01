import JSONCore
import GeoKit

/// The one error type of GeoQuery: a geo operator (`filter.location`) that cannot be answered.
///
/// Every error has a machine-readable ``code`` (snake_case, stable), a human-readable
/// ``message`` (MongoDB's wording where MongoDB has one, e.g. `Loop is not closed` or
/// `longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617`) and an HTTP ``status``
/// hint derived from the code:
///
/// - **400 Bad Request**: the query is malformed. The operator object has the wrong JSON shape,
///   an unknown or duplicated operator, a misplaced argument, a non-numeric or non-finite number,
///   a negative or inconsistent distance or radius, GeoJSON whose structure is broken (not an
///   object, unknown `type`, `coordinates` not arrays, a malformed `crs` object), or a geometry
///   type the operator does not take (a LineString as a `$near` centre, a Point in
///   `$geoWithin`).
/// - **422 Unprocessable Content**: the query is well formed but its geometry is invalid:
///   coordinates out of bounds, an unknown CRS name or a strict-winding CRS where it is not
///   allowed, rings that are not closed, have fewer than 3 distinct vertices, self-intersect, or
///   holes outside the shell or overlapping, LineStrings with fewer than 2 distinct vertices or
///   antipodal neighbours, empty multi-geometries, nested GeometryCollections, and legacy
///   `$polygon`s with fewer than 3 points; and, as limits on work, geometries with more than
///   ``GeoJSONGeometry/maxPositions`` positions or polygons too complex to validate.
///
/// Errors compare equal when code and message are equal.
public struct GeoQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error. The raw value is the snake_case code sent to clients.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // MARK: 400 — malformed query

        /// The operator object is not an object, is empty, or holds an unknown key or an argument
        /// in the wrong place (e.g. `$maxDistance` next to `$geoWithin`), or an operator's value
        /// has the wrong JSON type or shape.
        case invalidOperator = "invalid_operator"
        /// More than one geo operator in one filter (e.g. `$near` and `$geoWithin`).
        case multipleOperators = "multiple_operators"
        /// GeoJSON with a broken structure: not an object, missing or unknown `type`
        /// (types are case-sensitive), `coordinates`/`geometries` missing or not arrays.
        case invalidGeoJSON = "invalid_geojson"
        /// A `crs` member that is not `{"type": "name", "properties": {"name": "…"}}`.
        case invalidCRS = "invalid_crs"
        /// A position or legacy point whose first two elements are not numbers (or that has
        /// fewer than two, or a legacy point with more than two).
        case nonNumericCoordinate = "non_numeric_coordinate"
        /// A coordinate that is NaN or infinite.
        case nonFiniteCoordinate = "non_finite_coordinate"
        /// `$minDistance` / `$maxDistance` not a number, negative, or `$maxDistance` below
        /// `$minDistance`.
        case invalidDistance = "invalid_distance"
        /// A `$centerSphere` / `$center` radius that is not a finite non-negative number.
        case invalidRadius = "invalid_radius"
        /// A geometry type the operator does not accept (`$near` needs a Point, `$geoWithin`
        /// a Polygon or MultiPolygon).
        case unsupportedGeometry = "unsupported_geometry"

        // MARK: 422 — well-formed but invalid geometry

        /// A longitude outside [-180, 180] or a latitude outside [-90, 90].
        case coordinateOutOfBounds = "coordinate_out_of_bounds"
        /// A CRS name other than `EPSG:4326`, `urn:ogc:def:crs:OGC:1.3:CRS84` and
        /// `urn:x-mongodb:crs:strictwinding:EPSG:4326`.
        case unknownCRS = "unknown_crs"
        /// The strict-winding CRS on anything but a Polygon.
        case strictWindingUnsupported = "strict_winding_unsupported"
        /// A polygon ring whose first and last positions differ.
        case loopNotClosed = "loop_not_closed"
        /// A ring with fewer than 3 distinct vertices, or a LineString with fewer than 2.
        case tooFewVertices = "too_few_vertices"
        /// A self-intersecting or degenerate ring.
        case invalidLoop = "invalid_loop"
        /// A hole that is not inside its polygon's shell.
        case holeNotContained = "hole_not_contained"
        /// Rings of one polygon that cross, or holes that overlap.
        case overlappingLoops = "overlapping_loops"
        /// A strict-winding polygon with more than one ring.
        case strictWindingHoles = "strict_winding_holes"
        /// A Polygon without rings, or an empty MultiPoint / MultiLineString / MultiPolygon /
        /// GeometryCollection.
        case emptyGeometry = "empty_geometry"
        /// A LineString with antipodal adjacent vertices.
        case invalidLineString = "invalid_line_string"
        /// A GeometryCollection inside a GeometryCollection.
        case nestedGeometryCollection = "nested_geometry_collection"
        /// A legacy `$polygon` with fewer than 3 points.
        case tooFewPoints = "too_few_points"
        /// A GeoJSON geometry with more than ``GeoJSONGeometry/maxPositions`` positions in all.
        case tooManyVertices = "too_many_vertices"
        /// A polygon whose edges or rings overlap so much that validating it would exceed
        /// GeoKit's work budget (a valid but pathological shape, such as a fine zig-zag turned
        /// against every axis): simplify it.
        case polygonTooComplex = "polygon_too_complex"

        /// The HTTP status hint: 400 for malformed queries, 422 for invalid geometry.
        public var status: Int {
            switch self {
            case .invalidOperator, .multipleOperators, .invalidGeoJSON, .invalidCRS, .nonNumericCoordinate,
                 .nonFiniteCoordinate, .invalidDistance, .invalidRadius, .unsupportedGeometry:
                return 400
            case .coordinateOutOfBounds, .unknownCRS, .strictWindingUnsupported, .loopNotClosed, .tooFewVertices,
                 .invalidLoop, .holeNotContained, .overlappingLoops, .strictWindingHoles, .emptyGeometry,
                 .invalidLineString, .nestedGeometryCollection, .tooFewPoints, .tooManyVertices, .polygonTooComplex:
                return 422
            }
        }
    }

    /// The kind of error.
    public let code: Code
    /// A human-readable message suitable for an API error body.
    public let message: String

    /// An error of the given kind.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The HTTP status hint (400 or 422), see ``Code/status``.
    public var status: Int { code.status }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension GeoQueryError {
    /// `longitude/latitude is out of bounds, lng: <x> lat: <y>` with MongoDB's number format.
    static func outOfBounds(lng: Double, lat: Double) -> GeoQueryError {
        GeoQueryError(.coordinateOutOfBounds,
                      "longitude/latitude is out of bounds, lng: \(GeneralNumberFormat.format(lng)) lat: \(GeneralNumberFormat.format(lat))")
    }

    /// A GeoKit geometry error, with `context` (e.g. "ring 1") appended to its message.
    init(_ error: GeoError, context: String? = nil) {
        let code: Code
        switch error.code {
        case .invalidCoordinate: code = .coordinateOutOfBounds
        case .loopNotClosed: code = .loopNotClosed
        case .tooFewVertices: code = .tooFewVertices
        case .invalidLoop: code = .invalidLoop
        case .holeNotContained: code = .holeNotContained
        case .overlappingLoops: code = .overlappingLoops
        case .strictWindingHoles: code = .strictWindingHoles
        case .emptyPolygon: code = .emptyGeometry
        case .tooComplex: code = .polygonTooComplex
        default: code = .invalidLoop
        }
        let message = context.map { "\(error.message) (\($0))" } ?? error.message
        self.init(code, message)
    }
}
