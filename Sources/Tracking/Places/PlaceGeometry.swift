import JSONCore

/// A place's geometry as stored and served.
public enum PlaceGeometry {
    /// The geometry reduced to what it means: `type` and `coordinates` only, each position its
    /// longitude and latitude as numbers. Other members of the object and a position's further
    /// values are dropped, so what a client sent never grows what every member is served (the
    /// vertex count is limited by `PlaceLimits`). Call it on a geometry `PlaceRegion` accepted.
    public static func canonical(_ geometry: JSONValue) -> JSONValue {
        guard let type = geometry["type"]?.stringValue, let coordinates = geometry["coordinates"] else { return geometry }
        switch type {
        case "Point": return ["type": "Point", "coordinates": position(coordinates)]
        case "Polygon":
            let rings = (coordinates.arrayValue ?? []).map { ring in JSONValue.array((ring.arrayValue ?? []).map(position)) }
            return ["type": "Polygon", "coordinates": .array(rings)]
        default: return geometry
        }
    }

    /// `[lon, lat]` of a position array.
    static func position(_ value: JSONValue) -> JSONValue {
        .array((value.arrayValue ?? []).prefix(2).map { $0.doubleValue.map { .number(JSONNumber($0)) } ?? $0 })
    }

    /// How many positions the geometry holds (a Point 1, a Polygon all its rings' positions).
    public static func positionCount(_ geometry: JSONValue) -> Int {
        guard geometry["type"]?.stringValue == "Polygon" else { return 1 }
        return (geometry["coordinates"]?.arrayValue ?? []).reduce(0) { $0 + ($1.arrayValue?.count ?? 0) }
    }
}
