import GeoKit
import JSONCore
import Testing
@testable import GeoQuery

private let strictCRS = "urn:x-mongodb:crs:strictwinding:EPSG:4326"

struct SphericalShapeTests {
    /// Long east-west edges: geodesics bulge toward the pole, flat edges do not.
    @Test func geodesicVersusFlatEdges() throws {
        let ring = [(-60.0, 30.0), (60, 30), (60, 50), (-60, 50)]
        let spherical = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(polygonJSON(ring))}}"#))
        let flat = try #require(parseShape(#"{"$geoWithin": {"$polygon": [[-60, 30], [60, 30], [60, 50], [-60, 50]]}}"#))
        // The top edge peaks at ≈ 67.2° on lng 0, the bottom edge at ≈ 49.1°.
        #expect(spherical.contains(point(0, 60)))
        #expect(!flat.contains(point(0, 60)))
        #expect(!flat.contains(longitude: 0, latitude: 60))
        #expect(!spherical.contains(point(0, 40)))
        #expect(flat.contains(longitude: 0, latitude: 40))
        // Near the vertices both agree.
        #expect(spherical.contains(point(-59, 40)) && flat.contains(longitude: -59, latitude: 40))
        #expect(!spherical.contains(point(-61, 40)) && !flat.contains(longitude: -61, latitude: 40))
        // The geodesic peak itself is on the boundary.
        let peak = interpolate(point(60, 50), point(-60, 50), 0.5)
        #expect(spherical.contains(peak))
        #expect(LatLng(peak).lat.degrees > 67 && LatLng(peak).lat.degrees < 67.5)
        #expect(!spherical.contains(point(0, LatLng(peak).lat.degrees + 0.01)))

        // The edge from (-100, 50) to (100, 50) spans 200° eastward, so its geodesic is the
        // shorter 160° arc across the antimeridian, over ≈ 81.7°N, 180°: (0, 50) is not on it,
        // although it is on the flat segment.
        let line = try #require(parseShape(#"{"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[-100, 50], [100, 50]]}}}"#))
        let top = (point(-100, 50) + point(100, 50)).normalized
        #expect(Swift.abs(Swift.abs(LatLng(top).lng.degrees) - 180) < 1e-9)
        #expect(LatLng(top).lat.degrees > 81.6 && LatLng(top).lat.degrees < 81.8)
        #expect(line.contains(top))
        #expect(!line.contains(point(0, 50)))
        let flatStrip = try #require(parseShape(#"{"$geoWithin": {"$polygon": [[-100, 50], [100, 50], [100, 40], [-100, 40]]}}"#))
        #expect(flatStrip.contains(longitude: 0, latitude: 50))
        #expect(!flatStrip.contains(top))
    }

    @Test func antimeridianPolygon() throws {
        let ring = [(170.0, -10.0), (-170, -10), (-170, 10), (170, 10)]
        for winding in [ring, ring.reversed()] {
            let shape = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(polygonJSON(winding))}}"#))
            for (lng, lat) in [(180.0, 0.0), (-180, 0), (179.9, 9.9), (-175, 5), (175, -5), (170, 0), (-170, -10)] {
                #expect(shape.contains(point(lng, lat)), "\(lng), \(lat)")
            }
            for (lng, lat) in [(0.0, 0.0), (160, 0), (-160, 0), (180, 10.5), (180, -11)] {
                #expect(!shape.contains(point(lng, lat)), "\(lng), \(lat)")
            }
        }
    }

    /// Winding is ignored by default; the strict-winding CRS makes a clockwise ring the big
    /// polygon (the complement of the small one, boundary shared).
    @Test func strictWindingBigPolygon() throws {
        let counterClockwise = [(0.0, 0.0), (10, 0), (10, 10), (0, 10)]
        let clockwise = Array(counterClockwise.reversed())
        let small = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(polygonJSON(counterClockwise, crs: strictCRS))}}"#))
        let ignored = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(polygonJSON(clockwise))}}"#))
        let big = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(polygonJSON(clockwise, crs: strictCRS))}}"#))
        for (lng, lat) in [(5.0, 5.0), (1, 9)] {
            #expect(small.contains(point(lng, lat)) && ignored.contains(point(lng, lat)) && !big.contains(point(lng, lat)))
        }
        for (lng, lat) in [(50.0, 50.0), (-170, -80), (180, 0), (5, -0.5), (0, 90), (0, -90)] {
            #expect(!small.contains(point(lng, lat)) && !ignored.contains(point(lng, lat)) && big.contains(point(lng, lat)))
        }
        for (lng, lat) in [(0.0, 5.0), (10, 10), (5, 0)] {
            #expect(small.contains(point(lng, lat)) && big.contains(point(lng, lat)), "boundary \(lng), \(lat)")
        }
        // Random points: the big polygon is the complement (away from the boundary).
        var rng = SeededGenerator(seed: 11)
        guard case .geometry(.polygon(let smallPolygon)) = small else { Issue.record("\(small)"); return }
        for _ in 0..<2000 {
            let p = rng.point()
            if smallPolygon.shell.boundaryDistance(to: p).radians < 1e-8 { continue }
            #expect(small.contains(p) != big.contains(p))
        }
    }

    @Test func polygonWithHole() throws {
        let geometry = #"{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]]]}"#
        let shape = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(geometry)}}"#))
        #expect(shape.contains(point(2, 2)))
        #expect(!shape.contains(point(5, 5)))
        #expect(shape.contains(point(4, 5)))  // on the hole's boundary
        #expect(shape.contains(point(6, 6)))
        #expect(!shape.contains(point(11, 5)))
    }

    @Test func multiPolygon() throws {
        let geometry = #"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]], [[[100, -50], [101, -50], [101, -49], [100, -50]]]]}"#
        let shape = try #require(parseShape(#"{"$geoWithin": {"$geometry": \#(geometry)}}"#))
        #expect(shape.contains(point(0.5, 0.5)))
        #expect(shape.contains(point(100.8, -49.9)))
        #expect(shape.contains(point(101, -49)))
        #expect(!shape.contains(point(50, 0)))
        #expect(!shape.contains(point(100.1, -49.2)))
    }

    /// `$centerSphere` containment is exactly "great-circle angle ≤ radius", i.e. the $near
    /// distance in meters ≤ radius × 6,378,100.
    @Test func centerSphereMatchesDistance() throws {
        var rng = SeededGenerator(seed: 5)
        for (lng, lat, radius) in [(-88.0, 30.0, 0.0017), (179.9, -89.5, 0.05), (0.0, 0.0, 1.5), (45.0, 45.0, 3.5)] {
            let shape = try #require(parseShape(#"{"$geoWithin": {"$centerSphere": [[\#(lng), \#(lat)], \#(radius)]}}"#))
            let center = point(lng, lat)
            for _ in 0..<300 {
                let p = rng.point(near: center, distance: Swift.min(Double.pi, radius * rng.uniform(0.5, 1.5)))
                let angle = GeoDistance.angle(from: center, to: p).radians
                #expect(shape.contains(p) == (angle <= radius))
                if Swift.abs(angle - radius) > 1e-9 {
                    #expect(shape.contains(p) == (GeoDistance.meters(from: center, to: p) <= radius * Earth.radiusMeters))
                }
                #expect(!shape.contains(p) || shape.region.contains(p))
            }
            // Points just inside and outside the radius along a meridian-free direction.
            let inside = rng.point(near: center, distance: radius * (1 - 1e-9))
            let outside = rng.point(near: center, distance: Swift.min(Double.pi, radius * (1 + 1e-9)))
            #expect(shape.contains(inside))
            #expect(radius * (1 + 1e-9) >= Double.pi || !shape.contains(outside))
        }
        // A radius beyond π is the whole sphere.
        let all = try #require(parseShape(#"{"$geoWithin": {"$centerSphere": [[0, 0], 4]}}"#))
        #expect(all.contains(point(180, 0)) && all.contains(point(0, -90)))
    }

    @Test func intersectsLineString() throws {
        let shape = try #require(parseShape(#"{"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[-10, 0], [10, 20], [10, 20], [30, -5]]}}}"#))
        let vertices = [point(-10, 0), point(10, 20), point(30, -5)]
        for (a, b) in [(vertices[0], vertices[1]), (vertices[1], vertices[2])] {
            for t in stride(from: 0.0, through: 1.0, by: 0.05) {
                let p = interpolate(a, b, t)
                #expect(shape.contains(p), "t = \(t)")
                // Off the line by 1e-7 rad (≈ 64 cm): not on it.
                let normal = a.cross(b).normalized
                #expect(!shape.contains((p + normal * 1e-7).normalized))
                #expect(shape.region.contains(p))
            }
        }
        // The straight lng/lat segment is not the geodesic.
        #expect(!shape.contains(point(0, 10)))
        // Beyond the end points.
        #expect(!shape.contains(interpolate(vertices[0], vertices[1], -0.01)))
        #expect(!shape.contains(interpolate(vertices[1], vertices[2], 1.01)))
    }

    @Test func intersectsGeometryCollection() throws {
        let collection = #"""
        {"type": "GeometryCollection", "geometries": [
            {"type": "Point", "coordinates": [100, 0]},
            {"type": "LineString", "coordinates": [[101, 0], [102, 1]]},
            {"type": "Polygon", "coordinates": [[[-5, -5], [5, -5], [5, 5], [-5, 5], [-5, -5]]]},
            {"type": "MultiPoint", "coordinates": [[-100, -40], [-101, -41]]}
        ]}
        """#
        let shape = try #require(parseShape(#"{"$geoIntersects": {"$geometry": \#(collection)}}"#))
        #expect(shape.contains(point(100, 0)))
        #expect(!shape.contains(point(100, 0.000001)))
        #expect(shape.contains(interpolate(point(101, 0), point(102, 1), 0.3)))
        #expect(shape.contains(point(0, 0)) && shape.contains(point(5, 0)))
        #expect(shape.contains(point(-101, -41)))
        #expect(!shape.contains(point(-100.5, -40.5)))
        #expect(!shape.contains(point(50, 50)))
        for p in [point(100, 0), interpolate(point(101, 0), point(102, 1), 0.3), point(0, 0), point(-101, -41)] {
            #expect(shape.region.contains(p))
        }
    }

    /// A Point meets a stored point when both fall in the same leaf cell (≈ 1 cm), as in MongoDB.
    @Test func intersectsPoint() throws {
        let shape = try #require(parseShape(#"{"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [12.4924, 41.8902]}}}"#))
        #expect(shape.contains(point(12.4924, 41.8902)))
        #expect(shape.contains(longitude: 12.4924, latitude: 41.8902))
        #expect(!shape.contains(point(12.4924, 41.8903)))
        #expect(!shape.contains(point(12.4925, 41.8902)))
        // Within a millimetre: same leaf cell or a neighbour, never farther.
        var rng = SeededGenerator(seed: 3)
        let center = point(12.4924, 41.8902)
        for _ in 0..<100 {
            let p = rng.point(near: center, distance: rng.uniform(0, 1e-10))
            #expect(shape.contains(p) == (CellID(p) == CellID(center)))
        }
    }
}
