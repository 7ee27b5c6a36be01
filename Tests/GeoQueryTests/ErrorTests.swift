import GeoKit
import JSONCore
import Testing
@testable import GeoQuery

/// One invalid filter and the error it must produce.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    let filter: String
    let code: GeoQueryError.Code
    let status: Int
    /// The exact message, or its required prefix when `prefixOnly`.
    let message: String
    var prefixOnly = false

    var testDescription: String { "\(code.rawValue): \(filter)" }
}

private let point00 = #"{"type": "Point", "coordinates": [0, 0]}"#
private let square = #"[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]"#

/// `{"$geoIntersects": {"$geometry": <geometry>}}`.
private func intersects(_ geometry: String) -> String {
    #"{"$geoIntersects": {"$geometry": \#(geometry)}}"#
}

private func crs(_ name: String) -> String {
    #"{"type": "name", "properties": {"name": "\#(name)"}}"#
}

/// Operator-level errors: all 400 except geometry rules.
let operatorErrorCases: [ErrorCase] = [
    ErrorCase(filter: "[1, 2]", code: .invalidOperator, status: 400,
              message: "geo filter must be an object with one of $near, $nearSphere, $geoWithin or $geoIntersects, given array"),
    ErrorCase(filter: "{}", code: .invalidOperator, status: 400,
              message: "geo filter is empty; expected one of $near, $nearSphere, $geoWithin or $geoIntersects"),
    ErrorCase(filter: #"{"$nearby": [0, 0]}"#, code: .invalidOperator, status: 400,
              message: "unknown geo operator: $nearby"),
    ErrorCase(filter: #"{"$geowithin": {"$box": [[0, 0], [1, 1]]}}"#, code: .invalidOperator, status: 400,
              message: "unknown geo operator: $geowithin"),
    ErrorCase(filter: #"{"$near": [0, 0], "$geoWithin": {"$box": [[0, 0], [1, 1]]}}"#, code: .multipleOperators,
              status: 400, message: "only one geo operator is allowed, found $near and $geoWithin"),
    ErrorCase(filter: #"{"$geoIntersects": {"$geometry": \#(point00)}, "$nearSphere": [0, 0]}"#,
              code: .multipleOperators, status: 400,
              message: "only one geo operator is allowed, found $geoIntersects and $nearSphere"),
    ErrorCase(filter: #"{"$geoWithin": {"$box": [[0, 0], [1, 1]]}, "$maxDistance": 5}"#, code: .invalidOperator,
              status: 400, message: "$maxDistance is only allowed with $near or $nearSphere"),
    ErrorCase(filter: #"{"$geoWithin": {"$box": [[0, 0], [1, 1]]}, "limit": 5}"#, code: .invalidOperator,
              status: 400, message: "unknown geo operator: limit"),
    ErrorCase(filter: #"{"$geoWithin": 5}"#, code: .invalidOperator, status: 400,
              message: "$geoWithin requires an object with one of $geometry, $box, $polygon, $center, $centerSphere, given 5"),
    ErrorCase(filter: #"{"$geoWithin": {}}"#, code: .invalidOperator, status: 400,
              message: "$geoWithin requires an object with one of $geometry, $box, $polygon, $center, $centerSphere, given {}"),
    ErrorCase(filter: #"{"$geoWithin": {"$box": [[0, 0], [1, 1]], "$center": [[0, 0], 1]}}"#,
              code: .invalidOperator, status: 400, message: "can't parse extra field: $center"),
    ErrorCase(filter: #"{"$geoWithin": {"$circle": [[0, 0], 1]}}"#, code: .invalidOperator, status: 400,
              message: "unknown geo specifier: $circle"),
    ErrorCase(filter: #"{"$geoWithin": {"$geometry": \#(point00)}}"#, code: .unsupportedGeometry, status: 400,
              message: "$geoWithin not supported with provided geometry: Point"),
    ErrorCase(filter: #"{"$geoWithin": {"$geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}}"#,
              code: .unsupportedGeometry, status: 400,
              message: "$geoWithin not supported with provided geometry: LineString"),
    ErrorCase(filter: #"{"$geoIntersects": {"$box": [[0, 0], [1, 1]]}}"#, code: .invalidOperator, status: 400,
              message: "$box is only allowed with $geoWithin; $geoIntersects requires $geometry"),
    ErrorCase(filter: #"{"$geoIntersects": {"$geometry": \#(point00), "$maxDistance": 1}}"#, code: .invalidOperator,
              status: 400, message: "can't parse extra field: $maxDistance"),
    ErrorCase(filter: #"{"$geoIntersects": [0, 0]}"#, code: .invalidOperator, status: 400,
              message: "$geoIntersects requires an object with $geometry, given [0,0]"),

    // $near / $nearSphere
    ErrorCase(filter: #"{"$near": {"$geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}}"#,
              code: .unsupportedGeometry, status: 400, message: "$near requires a point, given LineString"),
    ErrorCase(filter: #"{"$nearSphere": {"$geometry": {"type": "Polygon", "coordinates": [\#(square)]}}}"#,
              code: .unsupportedGeometry, status: 400, message: "$nearSphere requires a point, given Polygon"),
    // The type is checked before the coordinates: an invalid polygon centre is still a 400.
    ErrorCase(filter: #"{"$near": {"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1]]]}}}"#,
              code: .unsupportedGeometry, status: 400, message: "$near requires a point, given Polygon"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00), "$maxDistance": -1}}"#, code: .invalidDistance,
              status: 400, message: "$maxDistance must be non-negative"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00), "$minDistance": -0.5}}"#, code: .invalidDistance,
              status: 400, message: "$minDistance must be non-negative"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00), "$minDistance": "5"}}"#, code: .invalidDistance,
              status: 400, message: "$minDistance must be a number"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00), "$maxDistance": null}}"#, code: .invalidDistance,
              status: 400, message: "$maxDistance must be a number"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00), "$minDistance": 500, "$maxDistance": 499.5}}"#,
              code: .invalidDistance, status: 400,
              message: "$maxDistance must be greater than or equal to $minDistance"),
    ErrorCase(filter: #"{"$nearSphere": [0, 0], "$maxDistance": -0.1}"#, code: .invalidDistance, status: 400,
              message: "$maxDistance must be non-negative"),
    ErrorCase(filter: #"{"$nearSphere": [0, 0], "$minDistance": 0.2, "$maxDistance": 0.1}"#,
              code: .invalidDistance, status: 400,
              message: "$maxDistance must be greater than or equal to $minDistance"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00)}, "$maxDistance": 5}"#, code: .invalidOperator,
              status: 400,
              message: "geo near accepts just one argument when querying for a GeoJSON point. Extra field found: $maxDistance"),
    ErrorCase(filter: #"{"$near": {"$geometry": \#(point00), "$limit": 5}}"#, code: .invalidOperator, status: 400,
              message: "invalid argument in geo near query: $limit"),
    ErrorCase(filter: #"{"$nearSphere": [0, 0], "$limit": 5}"#, code: .invalidOperator, status: 400,
              message: "invalid argument in geo near query: $limit"),
    ErrorCase(filter: #"{"$near": {"$maxDistance": 5}}"#, code: .invalidOperator, status: 400,
              message: "$geometry is required for geo near query"),
    ErrorCase(filter: #"{"$near": "here"}"#, code: .invalidOperator, status: 400,
              message: #"$near requires a point, given "here""#),
    ErrorCase(filter: #"{"$near": ["a", 1]}"#, code: .nonNumericCoordinate, status: 400,
              message: "Point must only contain numeric elements"),
    ErrorCase(filter: #"{"$nearSphere": [1]}"#, code: .nonNumericCoordinate, status: 400,
              message: "Point must only contain numeric elements"),
    ErrorCase(filter: #"{"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0, {}]}}}"#, code: .nonNumericCoordinate, status: 400,
              message: "Point must only contain numeric elements"),
    ErrorCase(filter: #"{"$nearSphere": [1, 2, 3]}"#, code: .nonNumericCoordinate, status: 400,
              message: "Point must only contain two numeric elements"),
    ErrorCase(filter: #"{"$nearSphere": [200, 0]}"#, code: .coordinateOutOfBounds, status: 422,
              message: "longitude/latitude is out of bounds, lng: 200 lat: 0"),
    ErrorCase(filter: #"{"$near": {"$geometry": {"type": "Point", "coordinates": [10000000, -90.5]}}}"#,
              code: .coordinateOutOfBounds, status: 422,
              message: "longitude/latitude is out of bounds, lng: 1e+07 lat: -90.5"),

    // Legacy shapes
    ErrorCase(filter: #"{"$geoWithin": {"$centerSphere": [[0, 0], -1]}}"#, code: .invalidRadius, status: 400,
              message: "radius must be a non-negative number"),
    ErrorCase(filter: #"{"$geoWithin": {"$centerSphere": [[0, 0], "1"]}}"#, code: .invalidRadius, status: 400,
              message: "radius must be a non-negative number"),
    ErrorCase(filter: #"{"$geoWithin": {"$centerSphere": [[0, 0], 1, 2]}}"#, code: .invalidOperator, status: 400,
              message: "Only 2 fields allowed for circular region"),
    ErrorCase(filter: #"{"$geoWithin": {"$centerSphere": [0, 0]}}"#, code: .nonNumericCoordinate, status: 400,
              message: "Point must be an array or object, given number"),
    ErrorCase(filter: #"{"$geoWithin": {"$centerSphere": 1}}"#, code: .invalidOperator, status: 400,
              message: "$centerSphere requires an array [[lng, lat], radians], given 1"),
    ErrorCase(filter: #"{"$geoWithin": {"$centerSphere": [[354.473, -1.94617], 0.1]}}"#,
              code: .coordinateOutOfBounds, status: 422,
              message: "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617"),
    ErrorCase(filter: #"{"$geoWithin": {"$center": [[0, 0], -1]}}"#, code: .invalidRadius, status: 400,
              message: "radius must be a non-negative number"),
    ErrorCase(filter: #"{"$geoWithin": {"$box": [[0, 0]]}}"#, code: .invalidOperator, status: 400,
              message: "$box requires an array of two points [[x1, y1], [x2, y2]], given [[0,0]]"),
    ErrorCase(filter: #"{"$geoWithin": {"$box": [[0, 0], [1, "1"]]}}"#, code: .nonNumericCoordinate, status: 400,
              message: "Point must only contain numeric elements"),
    ErrorCase(filter: #"{"$geoWithin": {"$polygon": [[0, 0], [1, 1]]}}"#, code: .tooFewPoints, status: 422,
              message: "Polygon must have at least 3 points"),
    ErrorCase(filter: #"{"$geoWithin": {"$polygon": {"a": [0, 0]}}}"#, code: .invalidOperator, status: 400,
              message: #"$polygon requires an array of points [[x, y], …], given {"a":[0,0]}"#),
]

/// GeoJSON errors, through `$geoIntersects` / `$geoWithin`.
let geoJSONErrorCases: [ErrorCase] = [
    ErrorCase(filter: intersects("5"), code: .invalidGeoJSON, status: 400,
              message: "GeoJSON geometry must be an object, given number"),
    ErrorCase(filter: intersects(#"{"type": "point", "coordinates": [0, 0]}"#), code: .invalidGeoJSON, status: 400,
              message: #"unknown GeoJSON type: "point""#),
    ErrorCase(filter: intersects(#"{"type": "Circle", "coordinates": [0, 0]}"#), code: .invalidGeoJSON,
              status: 400, message: #"unknown GeoJSON type: "Circle""#),
    ErrorCase(filter: intersects(#"{"coordinates": [0, 0]}"#), code: .invalidGeoJSON, status: 400,
              message: #"unknown GeoJSON type: no "type" in {"coordinates":[0,0]}"#),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": "0, 0"}"#), code: .invalidGeoJSON, status: 400,
              message: "GeoJSON coordinates must be an array, given string"),
    ErrorCase(filter: intersects(#"{"type": "Point"}"#), code: .invalidGeoJSON, status: 400,
              message: "GeoJSON coordinates must be an array, given null"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": ["1", 2]}"#), code: .nonNumericCoordinate,
              status: 400, message: "Point must only contain numeric elements"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [1]}"#), code: .nonNumericCoordinate,
              status: 400, message: "Point must only contain numeric elements"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [354.473, -1.94617]}"#),
              code: .coordinateOutOfBounds, status: 422,
              message: "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [-180.0000001, 0]}"#),
              code: .coordinateOutOfBounds, status: 422,
              message: "longitude/latitude is out of bounds, lng: -180 lat: 0"),
    ErrorCase(filter: intersects(#"{"type": "MultiPoint", "coordinates": [[0, 0], [0, 91]]}"#),
              code: .coordinateOutOfBounds, status: 422,
              message: "longitude/latitude is out of bounds, lng: 0 lat: 91"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [0, 0], "crs": \#(crs("EPSG:3857"))}"#),
              code: .unknownCRS, status: 422, message: "Unknown CRS name: EPSG:3857"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [0, 0], "crs": \#(crs("epsg:4326"))}"#),
              code: .unknownCRS, status: 422, message: "Unknown CRS name: epsg:4326"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [0, 0], "crs": "EPSG:4326"}"#),
              code: .invalidCRS, status: 400, message: "GeoJSON CRS must be an object, given string"),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [0, 0], "crs": {"type": "link"}}"#),
              code: .invalidCRS, status: 400, message: #"GeoJSON CRS must have field "type": "name""#),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [0, 0], "crs": {"type": "name"}}"#),
              code: .invalidCRS, status: 400, message: #"GeoJSON CRS must have field "properties" of type object"#),
    ErrorCase(filter: intersects(#"{"type": "Point", "coordinates": [0, 0], "crs": {"type": "name", "properties": {}}}"#),
              code: .invalidCRS, status: 400, message: #"GeoJSON CRS must have field "properties.name" of type string"#),
    ErrorCase(filter: intersects(#"{"type": "MultiPolygon", "coordinates": [[\#(square)]], "crs": \#(crs("urn:x-mongodb:crs:strictwinding:EPSG:4326"))}"#),
              code: .strictWindingUnsupported, status: 422,
              message: "Strict winding order CRS is only supported by Polygon, given MultiPolygon"),
    ErrorCase(filter: #"{"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0], "crs": \#(crs("urn:x-mongodb:crs:strictwinding:EPSG:4326"))}}}"#,
              code: .strictWindingUnsupported, status: 422,
              message: "Strict winding order CRS is only supported by Polygon, given Point"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [\#(square), [[1, 1], [2, 1], [2, 2], [1, 1]]], "crs": \#(crs("urn:x-mongodb:crs:strictwinding:EPSG:4326"))}"#),
              code: .strictWindingHoles, status: 422, message: "Only one ring allowed with the strict-winding CRS"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10]]]}"#),
              code: .loopNotClosed, status: 422, message: "Loop is not closed (ring 0)"),
    ErrorCase(filter: #"{"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [\#(square), [[1, 1], [2, 1], [2, 2]]]}}}"#,
              code: .loopNotClosed, status: 422, message: "Loop is not closed (ring 1)"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [0, 0], [0, 0]]]}"#),
              code: .tooFewVertices, status: 422, message: "Loop must have at least 3 different vertices (ring 0)"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [[]]}"#),
              code: .tooFewVertices, status: 422, message: "Loop must have at least 3 different vertices (ring 0)"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [[[0, 0], [10, 10], [10, 0], [0, 10], [0, 0]]]}"#),
              code: .invalidLoop, status: 422, message: "Loop is not valid", prefixOnly: true),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [\#(square), [[20, 20], [21, 20], [21, 21], [20, 20]]]}"#),
              code: .holeNotContained, status: 422,
              message: "Secondary loops not contained by first exterior loop - secondary loops must be holes"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [\#(square), [[5, 5], [15, 5], [15, 6], [5, 5]]]}"#),
              code: .overlappingLoops, status: 422, message: "Polygon loops must not cross or overlap"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": []}"#),
              code: .emptyGeometry, status: 422, message: "Polygon has no loops"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": [5]}"#), code: .invalidGeoJSON, status: 400,
              message: "GeoJSON Polygon ring (ring 0) must be an array, given number"),
    ErrorCase(filter: intersects(#"{"type": "Polygon", "coordinates": 5}"#), code: .invalidGeoJSON, status: 400,
              message: "GeoJSON Polygon coordinates must be an array, given number"),
    ErrorCase(filter: #"{"$geoWithin": {"$geometry": {"type": "MultiPolygon", "coordinates": [[\#(square)], [[[20, 20], [21, 20], [21, 21]]]]}}}"#,
              code: .loopNotClosed, status: 422, message: "Loop is not closed (polygon 1, ring 0)"),
    ErrorCase(filter: intersects(#"{"type": "MultiPolygon", "coordinates": []}"#), code: .emptyGeometry,
              status: 422, message: "MultiPolygon coordinates must have at least 1 element"),
    ErrorCase(filter: intersects(#"{"type": "LineString", "coordinates": [[1, 1], [1, 1]]}"#),
              code: .tooFewVertices, status: 422, message: "GeoJSON LineString must have at least 2 vertices"),
    ErrorCase(filter: intersects(#"{"type": "LineString", "coordinates": [[5, 5], [0, 0], [180, 0]]}"#),
              code: .invalidLineString, status: 422,
              message: "GeoJSON LineString is not valid: vertices 1 and 2 are antipodal"),
    ErrorCase(filter: intersects(#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2]]]}"#),
              code: .tooFewVertices, status: 422, message: "GeoJSON LineString must have at least 2 vertices"),
    ErrorCase(filter: intersects(#"{"type": "MultiLineString", "coordinates": []}"#), code: .emptyGeometry,
              status: 422, message: "MultiLineString coordinates must have at least 1 element"),
    ErrorCase(filter: intersects(#"{"type": "MultiPoint", "coordinates": []}"#), code: .emptyGeometry,
              status: 422, message: "MultiPoint coordinates must have at least 1 element"),
    ErrorCase(filter: intersects(#"{"type": "GeometryCollection", "geometries": []}"#), code: .emptyGeometry,
              status: 422, message: "GeometryCollection geometries must have at least 1 element"),
    ErrorCase(filter: intersects(#"{"type": "GeometryCollection", "coordinates": []}"#), code: .invalidGeoJSON,
              status: 400, message: "GeoJSON GeometryCollection geometries must be an array, but it is missing"),
    ErrorCase(filter: intersects(#"{"type": "GeometryCollection", "geometries": [{"type": "GeometryCollection", "geometries": [\#(point00)]}]}"#),
              code: .nestedGeometryCollection, status: 422, message: "GeometryCollections cannot be nested"),
    ErrorCase(filter: intersects(#"{"type": "GeometryCollection", "geometries": [\#(point00), {"type": "Point", "coordinates": [0, -95]}]}"#),
              code: .coordinateOutOfBounds, status: 422, message: "longitude/latitude is out of bounds, lng: 0 lat: -95"),
]

struct ErrorTests {
    @Test(arguments: operatorErrorCases + geoJSONErrorCases)
    func rejects(_ testCase: ErrorCase) throws {
        let error = try #require(parseError(json(testCase.filter)), "accepted: \(testCase.filter)")
        #expect(error.code == testCase.code, "\(error)")
        #expect(error.status == testCase.status)
        #expect(error.code.status == testCase.status)
        if testCase.prefixOnly {
            #expect(error.message.hasPrefix(testCase.message), "\(error.message)")
        } else {
            #expect(error.message == testCase.message)
        }
    }

    /// JSON cannot carry NaN or infinity, but values built in code can.
    @Test(arguments: [Double.nan, Double.infinity, -Double.infinity])
    func nonFiniteCoordinates(_ value: Double) throws {
        let geometry: JSONValue = ["type": "Point", "coordinates": [JSONValue(value), 0]]
        let cases: [JSONValue] = [
            ["$geoIntersects": ["$geometry": geometry]],
            ["$near": ["$geometry": geometry]],
            ["$nearSphere": [0, JSONValue(value)]],
            ["$geoWithin": ["$box": [[0, 0], [JSONValue(value), 1]]]],
        ]
        for filter in cases {
            let error = try #require(parseError(filter))
            #expect(error.code == .nonFiniteCoordinate)
            #expect(error.status == 400)
            #expect(error.message == "Point coordinates must be finite numbers")
        }
    }

    @Test func nonFiniteRadiiAndDistances() throws {
        let nan = JSONValue(Double.nan), infinity = JSONValue(Double.infinity)
        let radius = try #require(parseError(["$geoWithin": ["$centerSphere": [[0, 0], infinity]]]))
        #expect(radius.code == .invalidRadius && radius.message == "radius must be a finite number")
        let nanRadius = try #require(parseError(["$geoWithin": ["$center": [[0, 0], nan]]]))
        #expect(nanRadius.code == .invalidRadius && nanRadius.message == "radius must be a non-negative number")
        let nanDistance = try #require(parseError(["$nearSphere": [0, 0], "$maxDistance": nan]))
        #expect(nanDistance.code == .invalidDistance && nanDistance.message == "$maxDistance must be non-negative")
    }

    /// Every code has a documented status: 400 for malformed queries, 422 for invalid geometry.
    @Test func statusPartition() {
        let badRequest: Set<GeoQueryError.Code> = [
            .invalidOperator, .multipleOperators, .invalidGeoJSON, .invalidCRS, .nonNumericCoordinate,
            .nonFiniteCoordinate, .invalidDistance, .invalidRadius, .unsupportedGeometry,
        ]
        for code in GeoQueryError.Code.allCases {
            #expect(code.status == (badRequest.contains(code) ? 400 : 422), "\(code)")
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" }, "\(code.rawValue) is not snake_case")
        }
        let error = GeoQueryError(.loopNotClosed, "Loop is not closed")
        #expect(error.status == 422)
        #expect(error.description == "loop_not_closed: Loop is not closed")
    }
}
