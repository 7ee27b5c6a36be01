#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GeoKit
import JSONCore
import Testing
@testable import GeoQuery

/// Limits on the work a geometry may cause (issue 11: a 200,000-vertex zig-zag kept a request
/// thread busy for seconds).
struct GeometryLimitTests {
    /// `[[lng, lat], …]` of a closed zig-zag ring with `n` positions: teeth between latitude 0
    /// and 1 along 10° of longitude, closed at −1.
    static func zigzag(_ n: Int) -> JSONValue {
        var ring: [JSONValue] = []
        for i in 0..<(n - 3) {
            let lng: Double = 10 * Double(i) / Double(n - 4)
            ring.append([.number(JSONNumber(lng)), .number(JSONNumber(i % 2 == 0 ? 0 : 1))])
        }
        ring += [[10, -1], [0, -1], ring[0]]
        return .array(ring)
    }

    @Test func vertexCapRefusesTheHugeZigzag() throws {
        let huge: JSONValue = ["$geoWithin": ["$geometry": ["type": "Polygon", "coordinates": [Self.zigzag(200_000)]]]]
        let error = try #require(parseError(huge))
        #expect(error.code == .tooManyVertices && error.status == 422)
        #expect(error.message == "GeoJSON geometry must have at most 100000 positions in all, given 200000")
    }

    @Test func capCountsEveryPartOfAGeometry() throws {
        let half = Self.zigzag(60_000)
        let multi: JSONValue = ["type": "MultiPolygon", "coordinates": [[half], [half]]]
        #expect(throws: GeoQueryError(.tooManyVertices, "GeoJSON geometry must have at most 100000 positions in all, given 120000")) {
            try GeoJSONGeometry.parse(multi)
        }
        let collection: JSONValue = ["type": "GeometryCollection", "geometries": [
            ["type": "LineString", "coordinates": half], ["type": "MultiPoint", "coordinates": half]]]
        #expect(throws: GeoQueryError.self) { try GeoJSONGeometry.parse(collection) }
        #expect(GeoJSONParser.positionCount(collection) == 120_000)
    }

    @Test func zigzagUnderTheCapIsAccepted() throws {
        let polygon: JSONValue = ["type": "Polygon", "coordinates": [Self.zigzag(20_000)]]
        guard case .polygon(let parsed) = try GeoJSONGeometry.parse(polygon) else {
            Issue.record("not a polygon")
            return
        }
        #expect(parsed.shell.count == 19_999)
    }

    @Test func pathologicalPolygonIsTooComplex() throws {
        var ring: [JSONValue] = []
        for k in 0..<4_000 {
            let angle = Double.pi * Double(k) / 2_000
            let radius = k % 2 == 0 ? 10.0 : 1e-4
            ring.append([.number(JSONNumber(30 + radius * cos(angle))), .number(JSONNumber(20 + radius * sin(angle)))])
        }
        ring.append(ring[0])
        let error = try #require(parseError(["$geoIntersects": ["$geometry": ["type": "Polygon", "coordinates": [.array(ring)]]]]))
        #expect(error.code == .polygonTooComplex && error.status == 422)
        #expect(error.message.hasPrefix("Polygon is too complex to validate"))
    }
}
