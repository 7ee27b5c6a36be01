import JSONCore

/// Country (or other) outlines drawn under scatter maps: polygons in degrees, plus the GeoJSON
/// FeatureCollection they came from, which Vega-Lite specs embed inline.
///
/// Build it once (e.g. at startup from `Data/countries-110m.geojson`) and share it: it is an
/// immutable value. Invariants: every ring has ≥ 4 positions, all finite within
/// [-180, 180] × [-90, 90]; `featureCollectionJSON` is a valid GeoJSON FeatureCollection.
public struct Basemap: Sendable {
    /// A ring of `(longitude, latitude)` positions in degrees (closed: last equals first).
    public typealias Ring = [(longitude: Double, latitude: Double)]

    /// One polygon: an exterior ring followed by its holes, with its extent in degrees.
    public struct Polygon: Sendable {
        /// The exterior ring first, then holes.
        public let rings: [Ring]
        /// Smallest and largest longitude of the exterior ring, degrees (no antimeridian
        /// wrapping: Natural Earth-style data splits shapes at ±180).
        public let longitudeRange: ClosedRange<Double>
        /// Smallest and largest latitude of the exterior ring, degrees.
        public let latitudeRange: ClosedRange<Double>

        init?(rings: [Ring]) {
            guard let shell = rings.first, let first = shell.first else { return nil }
            var lon = (first.longitude, first.longitude)
            var lat = (first.latitude, first.latitude)
            for position in shell {
                lon = (Swift.min(lon.0, position.longitude), Swift.max(lon.1, position.longitude))
                lat = (Swift.min(lat.0, position.latitude), Swift.max(lat.1, position.latitude))
            }
            self.rings = rings
            longitudeRange = lon.0...lon.1
            latitudeRange = lat.0...lat.1
        }
    }

    /// The polygons, in input order (MultiPolygons contribute one entry per part).
    public let polygons: [Polygon]
    /// The outlines as a compact GeoJSON FeatureCollection (for inline Vega-Lite data).
    public let featureCollectionJSON: [UInt8]

    /// No outlines at all.
    public static let empty = Basemap(validPolygons: [], json: Array(#"{"type":"FeatureCollection","features":[]}"#.utf8))

    private init(validPolygons: [Polygon], json: [UInt8]) {
        polygons = validPolygons
        featureCollectionJSON = json
    }

    /// Outlines from polygons given as `[[[ (lon, lat) ]]]` (polygon → rings → positions,
    /// degrees). Rings with fewer than 4 positions or with invalid coordinates are dropped (a
    /// polygon whose exterior ring is dropped goes with it); open rings are closed.
    public init(polygons: [[Ring]]) {
        var kept: [Polygon] = []
        for rings in polygons {
            guard let shellInput = rings.first, let shell = Self.cleanRing(shellInput) else { continue }
            let holes = rings.dropFirst().compactMap(Self.cleanRing)
            if let polygon = Polygon(rings: [shell] + holes) { kept.append(polygon) }
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("type"); writer.string("FeatureCollection")
        writer.key("features")
        writer.beginArray()
        for polygon in kept {
            writer.beginObject()
            writer.key("type"); writer.string("Feature")
            writer.key("properties"); writer.beginObject(); writer.endObject()
            writer.key("geometry")
            writer.beginObject()
            writer.key("type"); writer.string("Polygon")
            writer.key("coordinates")
            writer.beginArray()
            for ring in polygon.rings {
                writer.beginArray()
                for position in ring {
                    writer.beginArray()
                    writer.number(position.longitude, fractionDigits: 7)
                    writer.number(position.latitude, fractionDigits: 7)
                    writer.endArray()
                }
                writer.endArray()
            }
            writer.endArray()
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        self.init(validPolygons: kept, json: writer.bytes)
    }

    /// Reads a GeoJSON FeatureCollection, keeping `Polygon` and `MultiPolygon` features and
    /// ignoring features of other types or with a null geometry.
    ///
    /// - Throws: ``ExportError/Code/invalidBasemap`` when the bytes are not JSON, not a
    ///   FeatureCollection, or a polygon is malformed (a position that is not 2–3 finite numbers
    ///   within range, or a ring with fewer than 4 positions). Open rings are accepted and closed.
    public static func parse(_ geoJSON: [UInt8]) throws(ExportError) -> Basemap {
        let document: JSONValue
        do {
            document = try JSONParser.parse(geoJSON, limits: JSONParser.Limits(maxDepth: 32))
        } catch {
            throw .invalidBasemap("basemap is not valid JSON: \(error)")
        }
        guard document["type"]?.stringValue == "FeatureCollection",
              let features = document["features"]?.arrayValue else {
            throw .invalidBasemap("basemap is not a GeoJSON FeatureCollection")
        }
        var polygons: [Polygon] = []
        for (index, feature) in features.enumerated() {
            guard let geometry = feature["geometry"], !geometry.isNull else { continue }
            let coordinates = geometry["coordinates"]
            switch geometry["type"]?.stringValue {
            case "Polygon":
                polygons.append(try readPolygon(coordinates, feature: index))
            case "MultiPolygon":
                guard let parts = coordinates?.arrayValue else {
                    throw .invalidBasemap("basemap feature \(index): MultiPolygon coordinates are not an array")
                }
                for part in parts {
                    polygons.append(try readPolygon(part, feature: index))
                }
            default:
                continue
            }
        }
        return Basemap(validPolygons: polygons, json: geoJSON)
    }

    private static func readPolygon(_ value: JSONValue?, feature: Int) throws(ExportError) -> Polygon {
        guard let ringValues = value?.arrayValue, !ringValues.isEmpty else {
            throw .invalidBasemap("basemap feature \(feature): polygon has no rings")
        }
        var rings: [Ring] = []
        for ringValue in ringValues {
            guard let positions = ringValue.arrayValue else {
                throw .invalidBasemap("basemap feature \(feature): ring is not an array")
            }
            var ring: Ring = []
            ring.reserveCapacity(positions.count + 1)
            for position in positions {
                guard let lon = position[0]?.doubleValue, let lat = position[1]?.doubleValue,
                      let count = position.arrayValue?.count, count <= 3,
                      lon.magnitude <= 180, lat.magnitude <= 90 else {
                    throw .invalidBasemap("basemap feature \(feature): invalid position \(position)")
                }
                ring.append((lon, lat))
            }
            guard let closed = cleanRing(ring) else {
                throw .invalidBasemap("basemap feature \(feature): ring has \(ring.count) positions, needs at least 4")
            }
            rings.append(closed)
        }
        guard let polygon = Polygon(rings: rings) else {
            throw .invalidBasemap("basemap feature \(feature): empty polygon")
        }
        return polygon
    }

    /// The ring closed if open, or nil when it has invalid coordinates or fewer than 4 positions.
    private static func cleanRing(_ ring: Ring) -> Ring? {
        guard let first = ring.first, let last = ring.last else { return nil }
        for position in ring {
            guard position.longitude.isFinite, position.latitude.isFinite,
                  position.longitude.magnitude <= 180, position.latitude.magnitude <= 90 else { return nil }
        }
        var closed = ring
        if first != last { closed.append(first) }
        return closed.count >= 4 ? closed : nil
    }
}
