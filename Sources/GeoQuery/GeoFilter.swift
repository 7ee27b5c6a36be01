import GeoKit
import JSONCore

/// The units of a `$near` / `$nearSphere` query's distances, in and out.
public enum DistanceUnits: String, Sendable, Hashable {
    /// Meters on MongoDB's sphere of radius 6,378,100 m (GeoJSON centre).
    case meters
    /// Radians of great-circle angle (legacy-pair centre: "radians in and out").
    case radians

    /// The angle of a distance given in these units.
    public func angle(_ value: Double) -> Angle {
        switch self {
        case .meters: Earth.angle(for: Distance(meters: value))
        case .radians: Angle(radians: value)
        }
    }

    /// An angle expressed in these units.
    public func value(of angle: Angle) -> Double {
        switch self {
        case .meters: Earth.distance(for: angle).meters
        case .radians: angle.radians
        }
    }
}

/// A `$near` / `$nearSphere` query: points ordered by great-circle distance from ``center``,
/// optionally limited to ``minDistance`` … ``maxDistance`` (both inclusive).
///
/// Bounds are kept in the query's ``units`` as given, and ``matches(_:)`` compares the point's
/// distance in those units (meters = angle × 6,378,100), so a bound equal to a point's reported
/// distance always includes it.
public struct NearQuery: Sendable, Hashable {
    /// The centre, a unit vector.
    public let center: S2Point
    /// Units of the bounds and of reported distances.
    public let units: DistanceUnits
    /// The inclusive lower bound in ``units``, if any (≥ 0).
    public let minDistance: Double?
    /// The inclusive upper bound in ``units``, if any (≥ ``minDistance``).
    public let maxDistance: Double?

    public init(center: S2Point, units: DistanceUnits, minDistance: Double? = nil, maxDistance: Double? = nil) {
        self.center = center
        self.units = units
        self.minDistance = minDistance
        self.maxDistance = maxDistance
    }

    /// ``minDistance`` as an angle.
    public var minAngle: Angle? { minDistance.map { units.angle($0) } }
    /// ``maxDistance`` as an angle.
    public var maxAngle: Angle? { maxDistance.map { units.angle($0) } }

    /// The distance from the centre to `point`, in ``units``.
    public func distance(to point: S2Point) -> Double {
        units.value(of: center.angle(to: point))
    }

    /// Whether the point's distance lies within the bounds (inclusive).
    public func matches(_ point: S2Point) -> Bool {
        let d = distance(to: point)
        if let minDistance, d < minDistance { return false }
        if let maxDistance, d > maxDistance { return false }
        return true
    }

    /// The ring of candidate points (the full sphere without a maximum), widened by a relative
    /// 1e-14 for unit conversions, for coverings. A `$near` scan may instead cover successive
    /// annuli of it.
    public var region: Annulus {
        let inner = minAngle.map { Swift.max(0, $0.radians * (1 - 1e-14) - 1e-15) } ?? 0
        let outer = maxAngle.map { $0.radians * (1 + 1e-14) + 1e-15 } ?? Double.pi
        return Annulus(center: center, inner: Angle(radians: inner), outer: Angle(radians: Swift.min(outer, Double.pi)))
    }
}

/// A parsed MongoDB geo operator: the value of `filter.location`.
///
/// Forms accepted by ``parse(_:)``:
/// - `{"$near" | "$nearSphere": {"$geometry": <GeoJSON Point>, "$minDistance"?: m, "$maxDistance"?: m}}`
///   — meters;
/// - `{"$near" | "$nearSphere": <GeoJSON Point>, "$minDistance"?: m, "$maxDistance"?: m}` — meters;
/// - `{"$near" | "$nearSphere": [lng, lat], "$minDistance"?: r, "$maxDistance"?: r}` (or a legacy
///   point object such as `{"lng": 1, "lat": 2}`) — radians in and out (the index is spherical, so
///   a legacy `$near` is answered like `$nearSphere`);
/// - `{"$geoWithin": {"$geometry": <Polygon | MultiPolygon>}}`, `{"$geoWithin": {"$centerSphere":
///   [[lng, lat], radians]}}`, and the flat legacy shapes `{"$geoWithin": {"$box": [[x1, y1], [x2,
///   y2]]}}`, `{"$polygon": [[x, y], …]}` (≥ 3 points, closed implicitly), `{"$center": [[x, y],
///   r]}`; `$within` is accepted as MongoDB's old alias of `$geoWithin`;
/// - `{"$geoIntersects": {"$geometry": <any GeoJSON geometry>}}`.
public enum GeoFilter: Sendable {
    /// `$near` / `$nearSphere`.
    case near(NearQuery)
    /// `$geoWithin`.
    case within(GeoShape)
    /// `$geoIntersects` (for stored points: the point lies in or on the geometry).
    case intersects(GeoShape)

    /// The operator names, in the order they are reported.
    public static let operatorNames: [String] = ["$near", "$nearSphere", "$geoWithin", "$within", "$geoIntersects"]

    /// Whether a stored point matches the filter (`$near`: within the distance bounds).
    public func matches(_ point: S2Point) -> Bool {
        switch self {
        case .near(let query): query.matches(point)
        case .within(let shape), .intersects(let shape): shape.contains(point)
        }
    }

    /// Conservative: true only if every stored point the index files under `cell` matches (see
    /// ``GeoShape/containsEntirely(_:)``); always false for `$near`, whose matches are ordered
    /// by an exact distance anyway.
    public func matchesEntirely(_ cell: Cell) -> Bool {
        switch self {
        case .near: false
        case .within(let shape), .intersects(let shape): shape.containsEntirely(cell)
        }
    }

    /// A region containing every matching point, for index coverings.
    public var region: any Region {
        switch self {
        case .near(let query): query.region
        case .within(let shape), .intersects(let shape): shape.region
        }
    }

    /// The shape of a `$geoWithin` / `$geoIntersects` filter; nil for `$near`.
    public var shape: GeoShape? {
        switch self {
        case .near: nil
        case .within(let shape), .intersects(let shape): shape
        }
    }

    /// Whether `operatorObject` (the value of `filter.location` as sent, before `parse`) is
    /// covered cheaply whatever it holds: `$near`, and the circles and boxes of `$geoWithin`.
    /// Polygons and GeoJSON geometries cost work that grows with their vertices (validation
    /// when parsed, edge tests when covered). Malformed input counts as cheap: `parse` refuses it
    /// at once.
    public static func coversCheaply(_ operatorObject: JSONValue) -> Bool {
        guard case .object(let object) = operatorObject,
              let name = object.first(where: { operatorNames.contains($0.key) })?.key else { return true }
        switch name {
        case "$near", "$nearSphere":
            return true
        default:
            guard case .object(let shape)? = object[name], let kind = shape.first?.key else { return true }
            return cheapShapeNames.contains(kind)
        }
    }

    /// The `$geoWithin` shapes whose covering costs the same whatever they hold.
    static let cheapShapeNames: Set<String> = ["$centerSphere", "$center", "$box"]

    /// Parses the value of `filter.location`, e.g.
    /// `{"$near": {"$geometry": {"type": "Point", "coordinates": [lng, lat]}, "$maxDistance": 500}}`.
    ///
    /// - Throws: ``GeoQueryError`` with MongoDB's wording where it has one; see that type for
    ///   codes and statuses.
    public static func parse(_ operatorObject: JSONValue) throws(GeoQueryError) -> GeoFilter {
        guard case .object(let object) = operatorObject else {
            throw GeoQueryError(.invalidOperator,
                                "geo filter must be an object with one of \(operatorList), given \(operatorObject.typeName)")
        }
        let operators = object.keys.filter { operatorNames.contains($0) }
        guard let name = operators.first else {
            guard let key = object.keys.first else {
                throw GeoQueryError(.invalidOperator, "geo filter is empty; expected one of \(operatorList)")
            }
            throw misplaced(key)
        }
        guard operators.count == 1 else {
            throw GeoQueryError(.multipleOperators,
                                "only one geo operator is allowed, found \(operators.joined(separator: " and "))")
        }
        let value = object[name] ?? .null
        switch name {
        case "$near", "$nearSphere":
            return .near(try NearParser.parse(name, value, siblings: object))
        case "$geoWithin", "$within":
            if let extra = object.keys.first(where: { $0 != name }) { throw misplaced(extra) }
            return .within(try parseWithin(name, value))
        default:
            if let extra = object.keys.first(where: { $0 != name }) { throw misplaced(extra) }
            return .intersects(try parseIntersects(name, value))
        }
    }

    private static let operatorList = "$near, $nearSphere, $geoWithin or $geoIntersects"
    private static let legacyShapes: Set<String> = ["$box", "$polygon", "$center", "$centerSphere"]

    /// The error for a key that is not a geo operator (or a near argument elsewhere).
    private static func misplaced(_ key: String) -> GeoQueryError {
        if key == "$minDistance" || key == "$maxDistance" {
            return GeoQueryError(.invalidOperator, "\(key) is only allowed with $near or $nearSphere")
        }
        return GeoQueryError(.invalidOperator, "unknown geo operator: \(key)")
    }

    /// The single specifier of `$geoWithin` / `$geoIntersects`: `(key, value)`.
    private static func specifier(_ name: String, _ value: JSONValue, allowed: String) throws(GeoQueryError)
        -> (key: String, value: JSONValue)
    {
        guard case .object(let spec) = value, let key = spec.keys.first else {
            throw GeoQueryError(.invalidOperator, "\(name) requires an object with \(allowed), given \(JSONText.brief(value))")
        }
        if spec.count > 1 {
            throw GeoQueryError(.invalidOperator, "can't parse extra field: \(spec.keys[1])")
        }
        return (key, spec[key] ?? .null)
    }

    // MARK: $geoWithin

    private static func parseWithin(_ name: String, _ value: JSONValue) throws(GeoQueryError) -> GeoShape {
        let (key, argument) = try specifier(name, value, allowed: "one of $geometry, $box, $polygon, $center, $centerSphere")
        switch key {
        case "$geometry":
            let object = try GeoJSONParser.object(argument)
            let type = try GeoJSONParser.type(of: object)
            guard type == "Polygon" || type == "MultiPolygon" else {
                throw GeoQueryError(.unsupportedGeometry, "\(name) not supported with provided geometry: \(type)")
            }
            return .geometry(try GeoJSONParser.geometry(argument, nested: false))
        case "$centerSphere":
            let (centerValue, radius) = try circle(key, argument, example: "[[lng, lat], radians]")
            let center = try GeoJSONParser.legacyLngLat(centerValue)
            return .centerSphere(center: center.toPoint(), radius: Angle(radians: radius))
        case "$center":
            let (centerValue, radius) = try circle(key, argument, example: "[[x, y], radius]")
            return .center(FlatCircle(center: try GeoJSONParser.legacyPoint(centerValue), radius: radius))
        case "$box":
            guard case .array(let corners) = argument, corners.count == 2 else {
                throw GeoQueryError(.invalidOperator,
                                    "$box requires an array of two points [[x1, y1], [x2, y2]], given \(JSONText.brief(argument))")
            }
            return .box(FlatBox(try GeoJSONParser.legacyPoint(corners[0]), try GeoJSONParser.legacyPoint(corners[1])))
        case "$polygon":
            guard case .array(let list) = argument else {
                throw GeoQueryError(.invalidOperator,
                                    "$polygon requires an array of points [[x, y], …], given \(JSONText.brief(argument))")
            }
            var points: [FlatPoint] = []
            for element in list { points.append(try GeoJSONParser.legacyPoint(element)) }
            guard points.count >= 3 else {
                throw GeoQueryError(.tooFewPoints, "Polygon must have at least 3 points")
            }
            return .polygon(FlatPolygon(vertices: points))
        default:
            throw GeoQueryError(.invalidOperator, "unknown geo specifier: \(key)")
        }
    }

    /// `[centre, radius]` of `$center` / `$centerSphere`; the radius finite and ≥ 0.
    private static func circle(_ key: String, _ argument: JSONValue, example: String) throws(GeoQueryError)
        -> (JSONValue, Double)
    {
        guard case .array(let items) = argument, items.count >= 2 else {
            throw GeoQueryError(.invalidOperator, "\(key) requires an array \(example), given \(JSONText.brief(argument))")
        }
        guard items.count == 2 else {
            throw GeoQueryError(.invalidOperator, "Only 2 fields allowed for circular region")
        }
        guard let radius = items[1].doubleValue, radius >= 0 else {
            throw GeoQueryError(.invalidRadius, "radius must be a non-negative number")
        }
        guard radius.isFinite else {
            throw GeoQueryError(.invalidRadius, "radius must be a finite number")
        }
        return (items[0], radius)
    }

    // MARK: $geoIntersects

    private static func parseIntersects(_ name: String, _ value: JSONValue) throws(GeoQueryError) -> GeoShape {
        let (key, argument) = try specifier(name, value, allowed: "$geometry")
        guard key == "$geometry" else {
            if legacyShapes.contains(key) {
                throw GeoQueryError(.invalidOperator, "\(key) is only allowed with $geoWithin; \(name) requires $geometry")
            }
            throw GeoQueryError(.invalidOperator, "unknown geo specifier: \(key)")
        }
        return .geometry(try GeoJSONParser.geometry(argument, nested: false))
    }
}

/// `$near` / `$nearSphere` parsing.
enum NearParser {
    static func parse(_ name: String, _ value: JSONValue, siblings object: JSONObject) throws(GeoQueryError)
        -> NearQuery
    {
        let siblings = object.filter { $0.key != name }
        switch value {
        case .array:
            let center = try GeoJSONParser.legacyLngLat(value).toPoint()
            return try query(center, .radians, bounds: siblings)
        case .object(let inner):
            if let geometry = inner["$geometry"] {
                if let extra = siblings.first {
                    throw GeoQueryError(.invalidOperator,
                                        "geo near accepts just one argument when querying for a GeoJSON point. Extra field found: \(extra.key)")
                }
                let center = try point(name, geometry)
                return try query(center, .meters, bounds: inner.filter { $0.key != "$geometry" })
            }
            if inner["type"] != nil {
                return try query(try point(name, value), .meters, bounds: siblings)
            }
            if let key = inner.keys.first(where: { $0.hasPrefix("$") }) {
                if key == "$minDistance" || key == "$maxDistance" {
                    throw GeoQueryError(.invalidOperator, "$geometry is required for geo near query")
                }
                throw GeoQueryError(.invalidOperator, "invalid argument in geo near query: \(key)")
            }
            let center = try GeoJSONParser.legacyLngLat(value).toPoint()
            return try query(center, .radians, bounds: siblings)
        default:
            throw GeoQueryError(.invalidOperator, "\(name) requires a point, given \(JSONText.brief(value))")
        }
    }

    /// A GeoJSON Point centre; other geometry types are a 400.
    private static func point(_ name: String, _ value: JSONValue) throws(GeoQueryError) -> S2Point {
        let object = try GeoJSONParser.object(value, "\(name) $geometry")
        let type = try GeoJSONParser.type(of: object)
        guard type == "Point" else {
            throw GeoQueryError(.unsupportedGeometry, "\(name) requires a point, given \(type)")
        }
        guard case .point(let center) = try GeoJSONParser.geometry(value, nested: false) else {
            throw GeoQueryError(.unsupportedGeometry, "\(name) requires a point, given \(type)")
        }
        return center
    }

    /// The query with `$minDistance` / `$maxDistance` from `bounds`; any other key is an error.
    private static func query(_ center: S2Point, _ units: DistanceUnits,
                              bounds: some Sequence<(key: String, value: JSONValue)>) throws(GeoQueryError) -> NearQuery {
        var minDistance: Double?
        var maxDistance: Double?
        for (key, value) in bounds {
            switch key {
            case "$minDistance": minDistance = try distance(key, value)
            case "$maxDistance": maxDistance = try distance(key, value)
            default: throw GeoQueryError(.invalidOperator, "invalid argument in geo near query: \(key)")
            }
        }
        if let minDistance, let maxDistance, maxDistance < minDistance {
            throw GeoQueryError(.invalidDistance, "$maxDistance must be greater than or equal to $minDistance")
        }
        return NearQuery(center: center, units: units, minDistance: minDistance, maxDistance: maxDistance)
    }

    private static func distance(_ key: String, _ value: JSONValue) throws(GeoQueryError) -> Double {
        guard let d = value.doubleValue else {
            throw GeoQueryError(.invalidDistance, "\(key) must be a number")
        }
        guard d >= 0 else {
            throw GeoQueryError(.invalidDistance, "\(key) must be non-negative")
        }
        return d
    }
}

/// Great-circle distances on MongoDB's Earth (GeoKit's ``Earth``, radius 6,378,100 m).
public enum GeoDistance {
    /// The great-circle distance in meters: the angle between the points × 6,378,100 m
    /// (1° on the equator = 111,318.845 m).
    public static func meters(from a: S2Point, to b: S2Point) -> Double {
        Earth.distance(from: a, to: b).meters
    }

    /// The great-circle angle between two points.
    public static func angle(from a: S2Point, to b: S2Point) -> Angle {
        a.angle(to: b)
    }
}
