#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlanarGeometry
import Testing

/// Meters per degree of latitude on the 6,378,100 m sphere.
private let metersPerDegree = 6_378_100.0 * Double.pi / 180

@Suite("Track simplification (GEOS)")
struct TrackSimplifierTests {
    /// A meridian-parallel track: `count` points 10 m apart going north from `start`, with
    /// east-west offsets in meters from `offsetMeters(index)`.
    private func northboundTrack(count: Int, startLatitude: Double = 52, longitude: Double = 4.9,
                                 offsetMeters: (Int) -> Double = { _ in 0 }) -> [(longitude: Double, latitude: Double)] {
        (0..<count).map { i in
            let latitude = startLatitude + Double(i) * 10 / metersPerDegree
            let cosLat = cos(startLatitude * Double.pi / 180)
            return (longitude + offsetMeters(i) / (metersPerDegree * cosLat), latitude)
        }
    }

    @Test("keeps the endpoints and drops points within tolerance of a straight line")
    func dropsCollinear() throws {
        // ±1 m zig-zag: every interior point is within 10 m of the chord.
        let track = northboundTrack(count: 101) { $0 % 2 == 0 ? 1 : -1 }
        #expect(try TrackSimplifier.simplify(track, toleranceMeters: 10) == [0, 100])
    }

    @Test("keeps a 100 m detour with a 10 m tolerance")
    func keepsDetour() throws {
        let track = northboundTrack(count: 41) { $0 == 20 ? 100 : 0 }
        let kept = try TrackSimplifier.simplify(track, toleranceMeters: 10)
        #expect(kept.first == 0 && kept.last == 40)
        #expect(kept.contains(20))
        // The straight stretches collapse around the detour: its neighbours are its base points.
        #expect(kept == [0, 19, 20, 21, 40])
    }

    @Test("tolerance is in meters, also at high latitude (cos φ scaling)", arguments: [
        (tolerance: 10.0, keepsDetour: true), (tolerance: 20.0, keepsDetour: false),
    ])
    func metersAtHighLatitude(tolerance: Double, keepsDetour: Bool) throws {
        // At 60°N a degree of longitude is half as long: a 15 m east-west detour stays 15 m.
        let track = northboundTrack(count: 21, startLatitude: 60) { $0 == 10 ? 15 : 0 }
        let kept = try TrackSimplifier.simplify(track, toleranceMeters: tolerance)
        #expect(kept.contains(10) == keepsDetour)
        #expect(kept.first == 0 && kept.last == 20)
    }

    @Test("a straight track across the antimeridian simplifies to its endpoints")
    func antimeridian() throws {
        let track = (0...20).map { i -> (longitude: Double, latitude: Double) in
            let longitude = 179.9 + Double(i) * 0.01
            return (longitude > 180 ? longitude - 360 : longitude, -17)
        }
        #expect(try TrackSimplifier.simplify(track, toleranceMeters: 1) == [0, 20])
    }

    @Test("tiny inputs are returned whole")
    func tinyInputs() throws {
        #expect(try TrackSimplifier.simplify([], toleranceMeters: 5) == [])
        #expect(try TrackSimplifier.simplify([(1, 2)], toleranceMeters: 5) == [0])
        #expect(try TrackSimplifier.simplify([(1, 2), (1, 2.1)], toleranceMeters: 5) == [0, 1])
    }

    @Test("repeated positions map back to increasing indices")
    func repeatedPositions() throws {
        // Out and back along the same street: the turning point must be kept, once.
        let out = northboundTrack(count: 11)
        let track = out + out.reversed().dropFirst()
        let kept = try TrackSimplifier.simplify(track, toleranceMeters: 5)
        #expect(kept.first == 0 && kept.last == track.count - 1)
        #expect(kept.contains(10))
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("invalid input is rejected with invalidInput", arguments: [
        (points: [(0.0, 0.0), (Double.nan, 1.0), (1.0, 1.0)], tolerance: 1.0),
        (points: [(0.0, 0.0), (0.0, 91.0), (1.0, 1.0)], tolerance: 1.0),
        (points: [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)], tolerance: -1.0),
        (points: [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)], tolerance: Double.infinity),
    ])
    func invalidInput(points: [(Double, Double)], tolerance: Double) {
        let track = points.map { (longitude: $0.0, latitude: $0.1) }
        #expect {
            try TrackSimplifier.simplify(track, toleranceMeters: tolerance)
        } throws: { error in
            (error as? PlanarGeometryError)?.code == .invalidInput
        }
    }

    @Test("concurrent calls from many tasks agree (a GEOS context per call)")
    func concurrent() async throws {
        let track = northboundTrack(count: 2_001) { i in i % 200 == 100 ? 80 : Double(i % 3) }
        let expected = try TrackSimplifier.simplify(track, toleranceMeters: 10)
        let results = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<16 {
                group.addTask { try TrackSimplifier.simplify(track, toleranceMeters: 10) }
            }
            var all: [[Int]] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 == expected })
        #expect(expected.count >= 2 + 2 * 10)  // every 80 m spike survives with its base
    }
}
