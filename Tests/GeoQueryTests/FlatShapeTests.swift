#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GeoKit
import Testing
@testable import GeoQuery

/// A flat containment expectation: shape filter, [x, y], expected result.
struct FlatCase: Sendable, CustomTestStringConvertible {
    let filter: String
    let x: Double
    let y: Double
    let inside: Bool

    var testDescription: String { "\(filter) ∋ (\(x), \(y)) = \(inside)" }
}

private let box = #"{"$geoWithin": {"$box": [[0, 0], [10, 10]]}}"#
private let triangle = #"{"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 10]]}}"#
/// A "U": the notch x ∈ (4, 6), y > 2 is outside.
private let uShape = #"{"$geoWithin": {"$polygon": [[0, 0], [10, 0], [10, 10], [6, 10], [6, 2], [4, 2], [4, 10], [0, 10]]}}"#
private let circle = #"{"$geoWithin": {"$center": [[0, 0], 5]}}"#
private let offsetCircle = #"{"$geoWithin": {"$center": [[-74, 40.74], 0.5]}}"#

let flatCases: [FlatCase] = [
    // $box, boundary inclusive.
    FlatCase(filter: box, x: 5, y: 5, inside: true),
    FlatCase(filter: box, x: 0, y: 0, inside: true),
    FlatCase(filter: box, x: 10, y: 10, inside: true),
    FlatCase(filter: box, x: 0, y: 7.25, inside: true),
    FlatCase(filter: box, x: 3, y: 10, inside: true),
    FlatCase(filter: box, x: 10.000000000001, y: 5, inside: false),
    FlatCase(filter: box, x: 5, y: -1e-300, inside: false),
    FlatCase(filter: box, x: -5, y: 5, inside: false),
    FlatCase(filter: #"{"$geoWithin": {"$box": [[10, 10], [0, 0]]}}"#, x: 10, y: 0, inside: true),
    FlatCase(filter: #"{"$geoWithin": {"$box": [[170, -10], [180, 10]]}}"#, x: 180, y: 0, inside: true),
    FlatCase(filter: #"{"$geoWithin": {"$box": [[170, -10], [180, 10]]}}"#, x: -180, y: 0, inside: false),
    // $polygon: vertices, edges (including the diagonal), interior, exterior.
    FlatCase(filter: triangle, x: 2, y: 2, inside: true),
    FlatCase(filter: triangle, x: 0, y: 0, inside: true),
    FlatCase(filter: triangle, x: 10, y: 0, inside: true),
    FlatCase(filter: triangle, x: 0, y: 10, inside: true),
    FlatCase(filter: triangle, x: 5, y: 0, inside: true),
    FlatCase(filter: triangle, x: 0, y: 3, inside: true),
    FlatCase(filter: triangle, x: 5, y: 5, inside: true),
    FlatCase(filter: triangle, x: 2.5, y: 7.5, inside: true),
    FlatCase(filter: triangle, x: 5, y: 5.000000000001, inside: false),
    FlatCase(filter: triangle, x: 6, y: 6, inside: false),
    FlatCase(filter: triangle, x: -1e-12, y: 5, inside: false),
    FlatCase(filter: triangle, x: 11, y: 0, inside: false),
    FlatCase(filter: triangle, x: -1, y: 0, inside: false),
    // 0.1 + 9.9 exceeds 10 in exact binary arithmetic: just outside the diagonal.
    FlatCase(filter: triangle, x: 0.1, y: 9.9, inside: false),
    FlatCase(filter: triangle, x: 0.5, y: 9.5, inside: true),
    FlatCase(filter: uShape, x: 2, y: 8, inside: true),
    FlatCase(filter: uShape, x: 8, y: 8, inside: true),
    FlatCase(filter: uShape, x: 5, y: 1, inside: true),
    FlatCase(filter: uShape, x: 5, y: 2, inside: true),
    FlatCase(filter: uShape, x: 4, y: 6, inside: true),
    FlatCase(filter: uShape, x: 6, y: 10, inside: true),
    FlatCase(filter: uShape, x: 5, y: 6, inside: false),
    FlatCase(filter: uShape, x: 5, y: 10, inside: false),
    FlatCase(filter: uShape, x: 5, y: 2.000001, inside: false),
    // An explicitly closed vertex list behaves the same.
    FlatCase(filter: #"{"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 10], [0, 0]]}}"#, x: 5, y: 5, inside: true),
    FlatCase(filter: #"{"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 10], [0, 0]]}}"#, x: 6, y: 5, inside: false),
    // Degenerate (collinear) polygon: only its segments.
    FlatCase(filter: #"{"$geoWithin": {"$polygon": [[0, 0], [5, 5], [10, 10]]}}"#, x: 7, y: 7, inside: true),
    FlatCase(filter: #"{"$geoWithin": {"$polygon": [[0, 0], [5, 5], [10, 10]]}}"#, x: 7, y: 7.5, inside: false),
    // $center: inclusive circle in degrees.
    FlatCase(filter: circle, x: 0, y: 0, inside: true),
    FlatCase(filter: circle, x: 3, y: 4, inside: true),
    FlatCase(filter: circle, x: -4, y: -3, inside: true),
    FlatCase(filter: circle, x: 5, y: 0, inside: true),
    FlatCase(filter: circle, x: 0, y: -5, inside: true),
    FlatCase(filter: circle, x: 3, y: 4.000000000001, inside: false),
    FlatCase(filter: circle, x: 3.6, y: 3.6, inside: false),
    FlatCase(filter: offsetCircle, x: -74, y: 41.24, inside: true),
    FlatCase(filter: offsetCircle, x: -73.7, y: 41.14, inside: true),
    FlatCase(filter: offsetCircle, x: -73.6, y: 41.1, inside: false),
    FlatCase(filter: #"{"$geoWithin": {"$center": [[1, 1], 0]}}"#, x: 1, y: 1, inside: true),
    FlatCase(filter: #"{"$geoWithin": {"$center": [[1, 1], 0]}}"#, x: 1, y: 1.0000000000000002, inside: false),
]

struct FlatShapeTests {
    @Test(arguments: flatCases)
    func containment(_ testCase: FlatCase) throws {
        let shape = try #require(parseShape(testCase.filter))
        #expect(!shape.isSpherical)
        #expect(shape.contains(longitude: testCase.x, latitude: testCase.y) == testCase.inside)
    }

    /// The unit-vector path agrees with the exact coordinate path away from the boundary and
    /// accepts every boundary point (within 1e-11°).
    @Test(arguments: flatCases)
    func containmentOfUnitVectors(_ testCase: FlatCase) throws {
        let shape = try #require(parseShape(testCase.filter))
        let p = point(testCase.x, testCase.y)
        if testCase.inside {
            #expect(shape.contains(p))
        } else if Swift.abs(testCase.x) < 180 {
            // Points outside by more than the tolerance stay outside.
            let nearBoundary = [(0.1, 9.9), (10.000000000001, 5), (5, 5.000000000001), (3, 4.000000000001),
                                (5, -1e-300), (-1e-12, 5), (1, 1.0000000000000002)]
                .contains { $0.0 == testCase.x && $0.1 == testCase.y }
            if !nearBoundary { #expect(!shape.contains(p)) }
        }
    }

    /// The coverage region of a flat shape is its lng/lat bounding box, clipped and padded.
    @Test func regions() throws {
        let box = try #require(parseShape(#"{"$geoWithin": {"$box": [[-10, 20], [30, 40]]}}"#))
        let rect = try #require(box.region as? LatLngRect)
        #expect(rect.latLo.degrees.isApproximately(20, relative: 1e-9) && rect.latHi.degrees.isApproximately(40, relative: 1e-9))
        #expect(rect.lngLo.degrees.isApproximately(-10, relative: 1e-9) && rect.lngHi.degrees.isApproximately(30, relative: 1e-9))
        #expect(rect.contains(point(-10, 20)) && rect.contains(point(30, 40)))

        let wide = try #require(parseShape(#"{"$geoWithin": {"$center": [[0, 0], 500]}}"#)?.region as? LatLngRect)
        #expect(wide.isFull)

        let outside = try #require(parseShape(#"{"$geoWithin": {"$box": [[200, 0], [300, 10]]}}"#)?.region as? LatLngRect)
        #expect(outside.isEmpty)

        let edge = try #require(parseShape(#"{"$geoWithin": {"$box": [[-180, 0], [-180, 10]]}}"#))
        #expect(edge.contains(longitude: -180, latitude: 5))
        #expect(edge.region.contains(point(-180, 5)))

        let polygon = try #require(parseShape(#"{"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 95]]}}"#)?.region as? LatLngRect)
        #expect(polygon.latHi.degrees.isApproximately(90) && polygon.latLo.degrees < 0)
    }

    /// Exact orientation against 128-bit integer arithmetic on near-collinear points of a fine
    /// grid, with coordinates large enough that plain floating point gets some signs wrong.
    @Test func orientationIsExact() {
        var rng = SeededGenerator(seed: 42)
        let unit = 0x1p-30
        func gridValue() -> Int64 { Int64(bitPattern: rng.next() % (1 << 53)) - (1 << 52) }
        var naiveWrong = 0
        for _ in 0..<4000 {
            let ax = gridValue(), ay = gridValue(), bx = gridValue(), by = gridValue()
            let t = rng.uniform(0, 1)
            let cx = Int64(rint(Double(ax) + t * Double(bx - ax))) + Int64(rng.next() % 3) - 1
            let cy = Int64(rint(Double(ay) + t * Double(by - ay))) + Int64(rng.next() % 3) - 1
            let reference = (Int128(bx - ax) * Int128(cy - ay) - Int128(by - ay) * Int128(cx - ax)).signum()
            let d = [ax, ay, bx, by, cx, cy].map { Double($0) * unit }
            let sign = PlanarPredicates.orientation(d[0], d[1], d[2], d[3], d[4], d[5])
            #expect(Int128(sign) == reference)
            let naive = (d[2] - d[0]) * (d[5] - d[1]) - (d[3] - d[1]) * (d[4] - d[0])
            if Int128(naive > 0 ? 1 : (naive < 0 ? -1 : 0)) != reference { naiveWrong += 1 }
        }
        #expect(naiveWrong > 0, "the cases are too easy to exercise the exact path")
    }

    /// Exact circle side against 128-bit integer arithmetic for points within a grid step of
    /// the circle.
    @Test func circleSideIsExact() {
        var rng = SeededGenerator(seed: 43)
        let unit = 0x1p-30
        var naiveWrong = 0
        for _ in 0..<4000 {
            let cx = Int64(bitPattern: rng.next() % (1 << 51)) - (1 << 50)
            let cy = Int64(bitPattern: rng.next() % (1 << 51)) - (1 << 50)
            let r = Int64(rng.next() % (1 << 51))
            let angle = rng.uniform(0, 2 * Double.pi)
            let px = cx + Int64(rint(Double(r) * cos(angle))) + Int64(rng.next() % 3) - 1
            let py = cy + Int64(rint(Double(r) * sin(angle))) + Int64(rng.next() % 3) - 1
            let dx = Int128(px - cx), dy = Int128(py - cy), rr = Int128(r)
            let reference = (dx * dx + dy * dy - rr * rr).signum()
            let (x, y, c0, c1, radius) = (Double(px) * unit, Double(py) * unit, Double(cx) * unit, Double(cy) * unit,
                                          Double(r) * unit)
            let sign = PlanarPredicates.circleSide(x, y, center: c0, c1, radius: radius)
            #expect(Int128(sign) == reference)
            let naive = (x - c0) * (x - c0) + (y - c1) * (y - c1) - radius * radius
            if Int128(naive > 0 ? 1 : (naive < 0 ? -1 : 0)) != reference { naiveWrong += 1 }
        }
        #expect(naiveWrong > 0, "the cases are too easy to exercise the exact path")
        // Huge but finite values are scaled, not overflowed.
        #expect(PlanarPredicates.circleSide(3e300, 4e300, center: 0, 0, radius: 5e300) == 0)
        #expect(PlanarPredicates.circleSide(3e300, 4e300, center: 0, 0, radius: 1e300) == 1)
        #expect(PlanarPredicates.orientation(0, 0, 1e308, 1e308, 5e307, 5e307) == 0)
        #expect(PlanarPredicates.orientation(0, 0, 1e308, 1e308, 5e307, 6e307) == 1)
    }
}
