import GeoKit
import JSONCore

/// A validated GeoJSON geometry (RFC 7946 with MongoDB's rules), on the sphere: every edge is a
/// great-circle arc.
///
/// Parse with ``parse(_:)``. Positions are `[longitude, latitude, …]`: the first two must be
/// finite numbers with |lng| ≤ 180 and |lat| ≤ 90 (inclusive); further elements (altitude) are
/// ignored. Types are case-sensitive. Polygon rings must be closed, have at least 3 distinct
/// vertices and not self-intersect; holes must lie inside the shell. Winding order is ignored
/// (each ring bounds the smaller of its two regions) unless the strict-winding CRS
/// `urn:x-mongodb:crs:strictwinding:EPSG:4326` is given on a single-ring Polygon, whose interior
/// is then to the left of its edges and may exceed a hemisphere ("big polygon"; query-only, which
/// is all this module parses).
///
/// Stored points are tested with ``contains(_:)``, which answers "does the geometry meet this
/// point": see there for each type.
public indirect enum GeoJSONGeometry: Sendable {
    /// A Point: the unit vector of its position.
    case point(S2Point)
    /// A MultiPoint (at least one point).
    case multiPoint([S2Point])
    /// A LineString: at least 2 distinct vertices, no antipodal neighbours.
    case lineString(GeodesicPolyline)
    /// A MultiLineString (at least one line).
    case multiLineString([GeodesicPolyline])
    /// A Polygon: a shell and holes (or, with strict winding, one possibly big ring).
    case polygon(Polygon)
    /// A MultiPolygon (at least one polygon).
    case multiPolygon(MultiPolygon)
    /// A GeometryCollection (at least one member; members are not collections).
    case geometryCollection([GeoJSONGeometry])

    /// The GeoJSON type name, e.g. `"MultiPolygon"`.
    public var typeName: String {
        switch self {
        case .point: "Point"
        case .multiPoint: "MultiPoint"
        case .lineString: "LineString"
        case .multiLineString: "MultiLineString"
        case .polygon: "Polygon"
        case .multiPolygon: "MultiPolygon"
        case .geometryCollection: "GeometryCollection"
        }
    }

    /// Whether the geometry meets a stored point (MongoDB's `$geoIntersects` for points, and
    /// `$geoWithin` for Polygon/MultiPolygon):
    /// - Point / MultiPoint: the same point, i.e. the same leaf S2 cell (≈ 1 cm), which is how
    ///   MongoDB intersects a point with a point;
    /// - LineString / MultiLineString: within ``GeodesicPolyline/tolerance`` (1e-9 rad ≈ 6.4 mm)
    ///   of a geodesic edge;
    /// - Polygon / MultiPolygon: inside or on the boundary (GeoKit's 1e-9 rad boundary band);
    ///   points on a hole's boundary belong to the polygon;
    /// - GeometryCollection: any member.
    public func contains(_ point: S2Point) -> Bool {
        switch self {
        case .point(let p):
            return CellID(p) == CellID(point)
        case .multiPoint(let points):
            let leaf = CellID(point)
            return points.contains { CellID($0) == leaf }
        case .lineString(let line):
            return line.contains(point)
        case .multiLineString(let lines):
            return lines.contains { $0.contains(point) }
        case .polygon(let polygon):
            return polygon.contains(point)
        case .multiPolygon(let multiPolygon):
            return multiPolygon.contains(point)
        case .geometryCollection(let members):
            return members.contains { $0.contains(point) }
        }
    }

    /// Conservative: true only if every point of `cell`, and every stored point the index files
    /// under it, passes ``contains(_:)``; such index entries need no exact test. Polygons use
    /// their own cell containment (which keeps a clearance from every edge for the point → leaf
    /// projection); points and lines (whose covering regions are wider than what they match)
    /// never claim a cell.
    public func containsEntirely(_ cell: Cell) -> Bool {
        switch self {
        case .point, .multiPoint, .lineString, .multiLineString:
            return false
        case .polygon(let polygon):
            return polygon.contains(cell)
        case .multiPolygon(let multiPolygon):
            return multiPolygon.contains(cell)
        case .geometryCollection(let members):
            return members.contains { $0.containsEntirely(cell) }
        }
    }

    /// A region for coverings: it contains every point ``contains(_:)`` accepts (a Point is its
    /// leaf cell).
    public var region: any Region {
        switch self {
        case .point(let p):
            return Self.leafCell(p)
        case .multiPoint(let points):
            return RegionUnion(points.map { Self.leafCell($0) })
        case .lineString(let line):
            return line
        case .multiLineString(let lines):
            return RegionUnion(lines)
        case .polygon(let polygon):
            return polygon
        case .multiPolygon(let multiPolygon):
            return multiPolygon
        case .geometryCollection(let members):
            return RegionUnion(members.map(\.region))
        }
    }

    private static func leafCell(_ point: S2Point) -> Cell {
        // A leaf id computed from a point is always valid.
        Cell(CellID(point)) ?? Cell.face(CellID(point).face)
    }

    /// Most positions one geometry may have, counting every vertex of its rings, lines and
    /// points together (100,000). Generous for real outlines — a detailed country border has a
    /// few tens of thousands, and a 4 MiB query body holds ~120,000 full-precision positions —
    /// while a larger geometry is refused before any of it is validated.
    public static let maxPositions = 100_000

    /// Parses and validates a GeoJSON geometry object.
    ///
    /// - Throws: ``GeoQueryError`` — 400 for broken structure (`invalid_geojson`, `invalid_crs`,
    ///   `non_numeric_coordinate`, `non_finite_coordinate`), 422 for invalid geometry (see
    ///   ``GeoQueryError``).
    public static func parse(_ value: JSONValue) throws(GeoQueryError) -> GeoJSONGeometry {
        try GeoJSONParser.geometry(value, nested: false)
    }
}

/// The GeoJSON and legacy-point parsing rules.
enum GeoJSONParser {
    static let typeNames: Set<String> = [
        "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection",
    ]

    static let strictWindingCRS = "urn:x-mongodb:crs:strictwinding:EPSG:4326"
    static let standardCRSNames: Set<String> = ["EPSG:4326", "urn:ogc:def:crs:OGC:1.3:CRS84"]

    // MARK: Objects and types

    /// The geometry object, or `invalid_geojson`.
    static func object(_ value: JSONValue, _ what: String = "GeoJSON geometry") throws(GeoQueryError) -> JSONObject {
        guard case .object(let object) = value else {
            throw GeoQueryError(.invalidGeoJSON, "\(what) must be an object, given \(value.typeName)")
        }
        return object
    }

    /// The validated `type` member.
    static func type(of object: JSONObject) throws(GeoQueryError) -> String {
        guard let typeValue = object["type"] else {
            throw GeoQueryError(.invalidGeoJSON, "unknown GeoJSON type: no \"type\" in \(JSONText.brief(.object(object)))")
        }
        guard let name = typeValue.stringValue, typeNames.contains(name) else {
            throw GeoQueryError(.invalidGeoJSON, "unknown GeoJSON type: \(JSONText.brief(typeValue))")
        }
        return name
    }

    /// Whether the `crs` member selects strict winding; validates it.
    static func isStrictWinding(_ object: JSONObject) throws(GeoQueryError) -> Bool {
        guard let crsValue = object["crs"] else { return false }
        guard case .object(let crs) = crsValue else {
            throw GeoQueryError(.invalidCRS, "GeoJSON CRS must be an object, given \(crsValue.typeName)")
        }
        guard crs["type"]?.stringValue == "name" else {
            throw GeoQueryError(.invalidCRS, "GeoJSON CRS must have field \"type\": \"name\"")
        }
        guard case .object(let properties)? = crs["properties"] else {
            throw GeoQueryError(.invalidCRS, "GeoJSON CRS must have field \"properties\" of type object")
        }
        guard let name = properties["name"]?.stringValue else {
            throw GeoQueryError(.invalidCRS, "GeoJSON CRS must have field \"properties.name\" of type string")
        }
        if standardCRSNames.contains(name) { return false }
        if name == strictWindingCRS { return true }
        throw GeoQueryError(.unknownCRS, "Unknown CRS name: \(name)")
    }

    /// An array member, or `invalid_geojson` "<what> must be an array".
    static func array(_ value: JSONValue?, _ what: String) throws(GeoQueryError) -> [JSONValue] {
        guard case .array(let array)? = value else {
            let given = value.map { ", given \($0.typeName)" } ?? ", but it is missing"
            throw GeoQueryError(.invalidGeoJSON, "\(what) must be an array\(given)")
        }
        return array
    }

    // MARK: Coordinates

    /// Two numbers, finite (400 otherwise).
    static func numericPair(_ first: JSONValue?, _ second: JSONValue?) throws(GeoQueryError) -> (Double, Double) {
        guard let x = first?.doubleValue, let y = second?.doubleValue else {
            throw GeoQueryError(.nonNumericCoordinate, "Point must only contain numeric elements")
        }
        guard x.isFinite, y.isFinite else {
            throw GeoQueryError(.nonFiniteCoordinate, "Point coordinates must be finite numbers")
        }
        return (x, y)
    }

    /// A longitude/latitude pair (degrees) within bounds, inclusive (422 otherwise).
    static func checkBounds(lng: Double, lat: Double) throws(GeoQueryError) -> LatLng {
        guard Swift.abs(lng) <= 180, Swift.abs(lat) <= 90 else {
            throw GeoQueryError.outOfBounds(lng: lng, lat: lat)
        }
        return LatLng(degreesLatitude: lat, longitude: lng)
    }

    /// A GeoJSON position `[lng, lat, …]`.
    static func position(_ value: JSONValue) throws(GeoQueryError) -> LatLng {
        guard case .array(let elements) = value else {
            throw GeoQueryError(.invalidGeoJSON, "GeoJSON coordinates must be an array, given \(value.typeName)")
        }
        let (lng, lat) = try numericPair(elements.first, elements.count > 1 ? elements[1] : nil)
        guard elements.dropFirst(2).allSatisfy({ $0.doubleValue != nil }) else {  // altitude etc.: numbers too
            throw GeoQueryError(.nonNumericCoordinate, "Point must only contain numeric elements")
        }
        return try checkBounds(lng: lng, lat: lat)
    }

    /// A legacy point: an array of exactly two numbers, or an object whose two members are
    /// numbers (e.g. `{"lng": 1, "lat": 2}`). Not range-checked.
    static func legacyPoint(_ value: JSONValue) throws(GeoQueryError) -> FlatPoint {
        let elements: [JSONValue]
        switch value {
        case .array(let array): elements = array
        case .object(let object): elements = object.values
        default:
            throw GeoQueryError(.nonNumericCoordinate, "Point must be an array or object, given \(value.typeName)")
        }
        let (x, y) = try numericPair(elements.first, elements.count > 1 ? elements[1] : nil)
        guard elements.count == 2 else {
            throw GeoQueryError(.nonNumericCoordinate, "Point must only contain two numeric elements")
        }
        return FlatPoint(x: x, y: y)
    }

    /// A legacy point used as a spherical centre (`$centerSphere`, legacy `$nearSphere`):
    /// range-checked.
    static func legacyLngLat(_ value: JSONValue) throws(GeoQueryError) -> LatLng {
        let point = try legacyPoint(value)
        return try checkBounds(lng: point.x, lat: point.y)
    }

    // MARK: Geometries

    static func geometry(_ value: JSONValue, nested: Bool) throws(GeoQueryError) -> GeoJSONGeometry {
        if !nested {
            let count = positionCount(value)
            guard count <= GeoJSONGeometry.maxPositions else {
                throw GeoQueryError(.tooManyVertices,
                                    "GeoJSON geometry must have at most \(GeoJSONGeometry.maxPositions) positions in all, given \(count)")
            }
        }
        let object = try object(value)
        let type = try type(of: object)
        let strict = try isStrictWinding(object)
        if strict && type != "Polygon" {
            throw GeoQueryError(.strictWindingUnsupported,
                                "Strict winding order CRS is only supported by Polygon, given \(type)")
        }
        switch type {
        case "Point":
            return .point(try position(object["coordinates"] ?? .null).toPoint())
        case "MultiPoint":
            let list = try array(object["coordinates"], "GeoJSON MultiPoint coordinates")
            guard !list.isEmpty else {
                throw GeoQueryError(.emptyGeometry, "MultiPoint coordinates must have at least 1 element")
            }
            var points: [S2Point] = []
            for element in list { points.append(try position(element).toPoint()) }
            return .multiPoint(points)
        case "LineString":
            return .lineString(try lineString(object["coordinates"], "GeoJSON LineString coordinates"))
        case "MultiLineString":
            let list = try array(object["coordinates"], "GeoJSON MultiLineString coordinates")
            guard !list.isEmpty else {
                throw GeoQueryError(.emptyGeometry, "MultiLineString coordinates must have at least 1 element")
            }
            var lines: [GeodesicPolyline] = []
            for (index, element) in list.enumerated() {
                lines.append(try lineString(element, "GeoJSON MultiLineString line \(index)"))
            }
            return .multiLineString(lines)
        case "Polygon":
            let rings = try array(object["coordinates"], "GeoJSON Polygon coordinates")
            return .polygon(try polygon(rings, winding: strict ? .counterClockwise : .smallerRegion, label: nil))
        case "MultiPolygon":
            let list = try array(object["coordinates"], "GeoJSON MultiPolygon coordinates")
            guard !list.isEmpty else {
                throw GeoQueryError(.emptyGeometry, "MultiPolygon coordinates must have at least 1 element")
            }
            var polygons: [Polygon] = []
            for (index, element) in list.enumerated() {
                let rings = try array(element, "GeoJSON MultiPolygon polygon \(index)")
                polygons.append(try polygon(rings, winding: .smallerRegion, label: "polygon \(index)"))
            }
            return .multiPolygon(MultiPolygon(polygons: polygons))
        default:  // GeometryCollection
            if nested {
                throw GeoQueryError(.nestedGeometryCollection, "GeometryCollections cannot be nested")
            }
            let list = try array(object["geometries"], "GeoJSON GeometryCollection geometries")
            guard !list.isEmpty else {
                throw GeoQueryError(.emptyGeometry, "GeometryCollection geometries must have at least 1 element")
            }
            var members: [GeoJSONGeometry] = []
            for element in list { members.append(try geometry(element, nested: true)) }
            return .geometryCollection(members)
        }
    }

    /// The number of positions a geometry holds, read from its array sizes alone (malformed
    /// parts count 0; parsing reports them).
    static func positionCount(_ value: JSONValue) -> Int {
        func count(_ value: JSONValue?, depth: Int) -> Int {
            guard let elements = value?.arrayValue else { return 0 }
            guard depth > 0 else { return elements.count }
            return elements.reduce(0) { $0 + count($1, depth: depth - 1) }
        }
        switch value["type"]?.stringValue {
        case "Point": return 1
        case "MultiPoint", "LineString": return count(value["coordinates"], depth: 0)
        case "MultiLineString", "Polygon": return count(value["coordinates"], depth: 1)
        case "MultiPolygon": return count(value["coordinates"], depth: 2)
        case "GeometryCollection":
            return (value["geometries"]?.arrayValue ?? []).reduce(0) { total, member in
                member["type"]?.stringValue == "GeometryCollection" ? total : total + positionCount(member)
            }
        default: return 0
        }
    }

    /// A LineString: adjacent duplicate positions dropped, then at least 2 vertices and no
    /// antipodal neighbours.
    static func lineString(_ value: JSONValue?, _ what: String) throws(GeoQueryError) -> GeodesicPolyline {
        let list = try array(value, what)
        var points: [S2Point] = []
        var indices: [Int] = []
        for (index, element) in list.enumerated() {
            let point = try position(element).toPoint()
            if points.last != point {
                points.append(point)
                indices.append(index)
            }
        }
        guard points.count >= 2 else {
            throw GeoQueryError(.tooFewVertices, "GeoJSON LineString must have at least 2 vertices")
        }
        for i in points.indices.dropLast() where (points[i] + points[i + 1]).norm2 < 1e-28 {
            throw GeoQueryError(.invalidLineString,
                                "GeoJSON LineString is not valid: vertices \(indices[i]) and \(indices[i + 1]) are antipodal")
        }
        return GeodesicPolyline(vertices: points)
    }

    /// A polygon from its rings (shell first), validated by GeoKit; errors name the ring.
    static func polygon(_ rings: [JSONValue], winding: Loop.Winding, label: String?) throws(GeoQueryError) -> Polygon {
        guard !rings.isEmpty else {
            throw GeoQueryError(GeoError.emptyPolygon, context: label)
        }
        if winding == .counterClockwise && rings.count > 1 {
            throw GeoQueryError(GeoError.strictWindingHoles, context: label)
        }
        var loops: [Loop] = []
        for (index, ringValue) in rings.enumerated() {
            let ringLabel = (label.map { "\($0), " } ?? "") + "ring \(index)"
            let positions = try array(ringValue, "GeoJSON Polygon ring (\(ringLabel))")
            var ring: [LatLng] = []
            ring.reserveCapacity(positions.count)
            for element in positions { ring.append(try position(element)) }
            do {
                loops.append(try Loop(geoJSONRing: ring, winding: index == 0 ? winding : .smallerRegion))
            } catch {
                throw GeoQueryError(error, context: ringLabel)
            }
        }
        let polygon = Polygon(shell: loops[0], holes: Array(loops.dropFirst()))
        if loops.count > 1 {
            do {
                try polygon.validate()
            } catch {
                throw GeoQueryError(error, context: label)
            }
        }
        return polygon
    }
}

/// Short JSON renderings for error messages.
enum JSONText {
    /// Compact JSON, cut to at most `limit` characters.
    static func brief(_ value: JSONValue, limit: Int = 120) -> String {
        let text = value.serializedString()
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }
}
