import GeoKit
import JSONCore
import Testing
@testable import GeoQuery

/// An accepted `$near` form and its normalised result.
struct NearCase: Sendable, CustomTestStringConvertible {
    let filter: String
    let center: (lng: Double, lat: Double)
    let units: DistanceUnits
    let minDistance: Double?
    let maxDistance: Double?

    var testDescription: String { filter }
}

let nearCases: [NearCase] = [
    NearCase(filter: #"{"$near": {"$geometry": {"type": "Point", "coordinates": [2.2945, 48.8584]}, "$minDistance": 0, "$maxDistance": 500}}"#,
             center: (2.2945, 48.8584), units: .meters, minDistance: 0, maxDistance: 500),
    NearCase(filter: #"{"$nearSphere": {"$geometry": {"type": "Point", "coordinates": [-73.9857, 40.7484, 443]}, "$maxDistance": 1500.5}}"#,
             center: (-73.9857, 40.7484), units: .meters, minDistance: nil, maxDistance: 1500.5),
    NearCase(filter: #"{"$near": {"$maxDistance": 10, "$geometry": {"type": "Point", "coordinates": [180, -90], "crs": {"type": "name", "properties": {"name": "EPSG:4326"}}}}}"#,
             center: (180, -90), units: .meters, minDistance: nil, maxDistance: 10),
    NearCase(filter: #"{"$near": {"$geometry": {"type": "Point", "coordinates": [1, 2], "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}}}}}"#,
             center: (1, 2), units: .meters, minDistance: nil, maxDistance: nil),
    // A GeoJSON point directly as the operand (MongoDB's other GeoJSON form): meters, bounds as siblings.
    NearCase(filter: #"{"$near": {"type": "Point", "coordinates": [5, 6]}, "$maxDistance": 100, "$minDistance": 10}"#,
             center: (5, 6), units: .meters, minDistance: 10, maxDistance: 100),
    // Legacy pairs: radians in and out.
    NearCase(filter: #"{"$nearSphere": [-122.4194, 37.7749], "$maxDistance": 0.01}"#,
             center: (-122.4194, 37.7749), units: .radians, minDistance: nil, maxDistance: 0.01),
    NearCase(filter: #"{"$nearSphere": [10, 20], "$minDistance": 0.001, "$maxDistance": 0.001}"#,
             center: (10, 20), units: .radians, minDistance: 0.001, maxDistance: 0.001),
    NearCase(filter: #"{"$near": [10, 20], "$maxDistance": 0.5}"#,
             center: (10, 20), units: .radians, minDistance: nil, maxDistance: 0.5),
    NearCase(filter: #"{"$nearSphere": {"lng": 30, "lat": -20}}"#,
             center: (30, -20), units: .radians, minDistance: nil, maxDistance: nil),
]

struct OperatorParsingTests {
    @Test(arguments: nearCases)
    func nearForms(_ testCase: NearCase) throws {
        let parsed = try GeoFilter.parse(json(testCase.filter))
        guard case .near(let query) = parsed else {
            Issue.record("not a near filter: \(parsed)")
            return
        }
        #expect(query.center == point(testCase.center.lng, testCase.center.lat))
        #expect(query.units == testCase.units)
        #expect(query.minDistance == testCase.minDistance)
        #expect(query.maxDistance == testCase.maxDistance)
        #expect(parsed.shape == nil)
        if let maxDistance = testCase.maxDistance {
            let expected = testCase.units == .meters ? maxDistance / Earth.radiusMeters : maxDistance
            #expect(query.maxAngle?.radians.isApproximately(expected) == true)
        } else {
            #expect(query.maxAngle == nil)
            #expect(query.region.outer == .straight)
        }
    }

    /// Bounds are inclusive and compared in the query's units, so a bound equal to a point's
    /// reported distance includes it; the next smaller double excludes it.
    @Test(arguments: [DistanceUnits.meters, .radians])
    func nearBoundsAreInclusive(_ units: DistanceUnits) throws {
        let center = point(2.2945, 48.8584)
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let p = rng.point(near: center, distance: rng.uniform(1e-7, 0.5))
            let d = NearQuery(center: center, units: units).distance(to: p)
            if units == .meters {
                #expect(d == GeoDistance.meters(from: center, to: p))
            } else {
                #expect(d == GeoDistance.angle(from: center, to: p).radians)
            }
            #expect(NearQuery(center: center, units: units, minDistance: d, maxDistance: d).matches(p))
            #expect(!NearQuery(center: center, units: units, maxDistance: d.nextDown).matches(p))
            #expect(!NearQuery(center: center, units: units, minDistance: d.nextUp).matches(p))
            #expect(NearQuery(center: center, units: units, minDistance: d * 0.5, maxDistance: d * 2).matches(p))
            // The covering region contains every match.
            #expect(NearQuery(center: center, units: units, minDistance: d, maxDistance: d).region.contains(p))
        }
    }

    @Test func nearFilterMatchesThroughParse() throws {
        let center = point(0, 0)
        let east = point(0.004, 0)  // ≈ 445.3 m
        let meters = GeoDistance.meters(from: center, to: east)
        let inside = try GeoFilter.parse(json(#"{"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": \#(meters)}}"#))
        #expect(inside.matches(east))
        #expect(!inside.matches(point(0.0041, 0)))
        let ring = try GeoFilter.parse(json(#"{"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$minDistance": 400, "$maxDistance": 500}}"#))
        #expect(ring.matches(east))
        #expect(!ring.matches(point(0.003, 0)))  // ≈ 334 m
        #expect(!ring.matches(point(0.005, 0)))  // ≈ 557 m
        #expect(ring.region.contains(east))
        let radians = try GeoFilter.parse(json(#"{"$nearSphere": [0, 0], "$maxDistance": \#(Angle(degrees: 1).radians)}"#))
        #expect(radians.matches(point(0, 0.999999)))
        #expect(!radians.matches(point(0, 1.000001)))
    }

    @Test func withinForms() throws {
        let polygon = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(polygonJSON([(0, 0), (10, 0), (10, 10), (0, 10)]))}}"#))
        guard case .geometry(.polygon) = polygon else { Issue.record("\(polygon)"); return }
        #expect(polygon.isSpherical)

        let multi = try #require(parseShape(#"{"$geoWithin": {"$geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]]}}}"#))
        guard case .geometry(.multiPolygon(let members)) = multi else { Issue.record("\(multi)"); return }
        #expect(members.polygons.count == 2)

        let cap = try #require(parseShape(#"{"$geoWithin": {"$centerSphere": [[-88, 30], 0.0017]}}"#))
        guard case .centerSphere(let center, let radius) = cap else { Issue.record("\(cap)"); return }
        #expect(center == point(-88, 30) && radius == Angle(radians: 0.0017) && cap.isSpherical)

        let zeroCap = try #require(parseShape(#"{"$geoWithin": {"$centerSphere": [{"x": 1, "y": 2}, 0]}}"#))
        #expect(zeroCap.contains(point(1, 2)) && !zeroCap.contains(point(1, 2.000001)))

        let box = try #require(parseShape(#"{"$geoWithin": {"$box": [[10, 20], [0, 0]]}}"#))
        guard case .box(let flatBox) = box else { Issue.record("\(box)"); return }
        #expect(flatBox.min == FlatPoint(x: 0, y: 0) && flatBox.max == FlatPoint(x: 10, y: 20) && !box.isSpherical)

        let legacyPolygon = try #require(parseShape(#"{"$within": {"$polygon": [[0, 0], [3, 6], [6, 0]]}}"#))
        guard case .polygon(let flatPolygon) = legacyPolygon else { Issue.record("\(legacyPolygon)"); return }
        #expect(flatPolygon.vertices.count == 3 && !legacyPolygon.isSpherical)

        let circle = try #require(parseShape(#"{"$geoWithin": {"$center": [[-74, 40.74], 10]}}"#))
        guard case .center(let flatCircle) = circle else { Issue.record("\(circle)"); return }
        #expect(flatCircle.center == FlatPoint(x: -74, y: 40.74) && flatCircle.radius == 10 && !circle.isSpherical)

        // Flat shapes take any finite coordinates (they are planar, not positions).
        #expect(parseShape(#"{"$geoWithin": {"$box": [[-500, -100], [500, 100]]}}"#)?.contains(point(179, 89)) == true)
    }

    @Test func intersectsForms() throws {
        let types = [
            #"{"type": "Point", "coordinates": [1, 2]}"#,
            #"{"type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]}"#,
            #"{"type": "LineString", "coordinates": [[1, 2], [3, 4]]}"#,
            #"{"type": "MultiLineString", "coordinates": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}"#,
            polygonJSON([(0, 0), (10, 0), (10, 10), (0, 10)]),
            #"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]]]}"#,
            #"{"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [1, 2]}]}"#,
        ]
        let names = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"]
        for (text, name) in zip(types, names) {
            let parsed = try GeoFilter.parse(json(#"{"$geoIntersects": {"$geometry": \#(text)}}"#))
            guard case .intersects(.geometry(let geometry)) = parsed else {
                Issue.record("\(name): \(parsed)")
                continue
            }
            #expect(geometry.typeName == name)
            #expect(try GeoJSONGeometry.parse(json(text)).typeName == name)
        }
    }

    /// Foreign members (RFC 7946 §6.1) and altitude are ignored.
    @Test func foreignMembersAndAltitude() throws {
        let geometry = try GeoJSONGeometry.parse(json(#"{"type": "Point", "coordinates": [1, 2, 300, 4], "bbox": [1, 2, 1, 2], "id": "x"}"#))
        guard case .point(let p) = geometry else { Issue.record("\(geometry)"); return }
        #expect(p == point(1, 2))
    }
}
