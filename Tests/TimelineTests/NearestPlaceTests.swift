import GeoKit
import Glibc
import TestRandom
import Testing
import Timeline

/// The nearest place by brute force, with the index's rule (chord length, ties to the lower index).
func bruteForceNearest(_ places: [Place], to point: TimelinePoint, within meters: Double) -> Int? {
    let q = LatLng(degreesLatitude: point.latitude, longitude: point.longitude).normalized.toPoint()
    let limit = ChordAngle(Earth.angle(for: Distance(meters: meters))).length2
    var best: (Double, Int)?
    for (i, place) in places.enumerated() {
        let p = LatLng(degreesLatitude: place.location.latitude, longitude: place.location.longitude).toPoint()
        let d = (p - q).norm2
        if d <= limit, best.map({ d < $0.0 }) ?? true { best = (d, i) }
    }
    return best?.1
}

func randomPoint(_ random: inout SplitMix64) -> TimelinePoint {
    let ll = LatLng(random.point())
    return TimelinePoint(longitude: ll.lng.degrees, latitude: ll.lat.degrees)
}

/// The shipped places file, found from this source file's path.
func shippedPlaces() throws -> [UInt8] {
    let root = String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
    let path = "/" + root + "/Data/places-cities1000.bin"
    let file = try #require(fopen(path, "rb"), "cannot open \(path)")
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

@Suite struct NearestPlaceTests {
    @Test func matchesBruteForceOnSeededRandomPoints() {
        let seed: UInt64 = 20_261_201
        var random = SplitMix64(seed: seed)
        // Clusters (towns a few km apart) around random centres, some on cube-face edges and
        // corners where cells of three faces meet, plus scattered places.
        var centres = (0..<40).map { _ in randomPoint(&random) }
        centres += [TimelinePoint(longitude: 45, latitude: 0), TimelinePoint(longitude: 45, latitude: 35.264),
                    TimelinePoint(longitude: -135, latitude: -35.264), TimelinePoint(longitude: 180, latitude: 0),
                    TimelinePoint(longitude: 0, latitude: 89.99)]
        var places: [Place] = []
        for (c, centre) in centres.enumerated() {
            let centrePoint = LatLng(degreesLatitude: centre.latitude, longitude: centre.longitude).toPoint()
            for k in 0..<60 {
                let ll = LatLng(random.point(near: centrePoint, distance: random.uniform(0, 60_000) / Earth.radiusMeters))
                places.append(Place(name: "c\(c)-\(k)", country: "XX", location: TimelinePoint(longitude: ll.lng.degrees, latitude: ll.lat.degrees)))
            }
        }
        for k in 0..<2_000 { places.append(Place(name: "s\(k)", country: "YY", location: randomPoint(&random))) }
        let index = NearestPlace(places: places)
        var found = 0
        for q in 0..<4_000 {
            let query: TimelinePoint
            if q % 2 == 0 {
                let c = centres[q / 2 % centres.count]
                let cp = LatLng(degreesLatitude: c.latitude, longitude: c.longitude).toPoint()
                let ll = LatLng(random.point(near: cp, distance: random.uniform(0, 80_000) / Earth.radiusMeters))
                query = TimelinePoint(longitude: ll.lng.degrees, latitude: ll.lat.degrees)
            } else {
                query = randomPoint(&random)
            }
            let expected = bruteForceNearest(places, to: query, within: 20_000)
            let match = index.nearest(to: query)
            #expect(match.map { places.firstIndex(of: $0.place) } ?? nil == expected, "seed \(seed), query \(q) at \(query)")
            if let match { found += 1; #expect(match.distance <= 20_000.001) }
        }
        #expect(found > 1_000, "the test must exercise hits, not only misses")
    }

    @Test func smallerRadiusAndTies() throws {
        let a = Place(name: "A", country: "DE", location: TimelinePoint(longitude: 11.0, latitude: 48.0))
        let b = Place(name: "B", country: "DE", location: TimelinePoint(longitude: 11.0, latitude: 48.0))
        let far = Place(name: "Far", country: "AT", location: TimelinePoint(longitude: 11.0, latitude: 48.1))
        let index = NearestPlace(places: [a, b, far])
        #expect(index.nearest(to: TimelinePoint(longitude: 11.0, latitude: 48.001))?.place == a)
        let nearFar = TimelinePoint(longitude: 11.0, latitude: 48.09)
        #expect(index.nearest(to: nearFar)?.place == far)
        #expect(index.nearest(to: nearFar, within: 500) == nil)
        let match = try #require(index.nearest(to: TimelinePoint(longitude: 11.0, latitude: 48.01)))
        #expect(abs(match.distance - 1113.19) < 0.5, "0.01° on R = 6,378,100 m")
        #expect(index.nearest(to: TimelinePoint(longitude: .nan, latitude: 0)) == nil)
    }

    @Test func shippedDataNamesRealTowns() throws {
        let index = try NearestPlace(placesFile: try shippedPlaces())
        #expect(index.places.count > 140_000)
        let munich = try #require(index.nearest(to: TimelinePoint(longitude: 11.5755, latitude: 48.1374)))
        #expect(munich.place.country == "DE")
        #expect(munich.distance < 3_000)
        #expect(index.nearest(to: TimelinePoint(longitude: -30, latitude: 30)) == nil, "mid-Atlantic")
        let paris = try #require(index.nearest(to: TimelinePoint(longitude: 2.3522, latitude: 48.8566)))
        #expect(paris.place.country == "FR")
    }

    @Test func damagedFilesThrowAndNeverTrap() throws {
        let bytes = try shippedPlaces()
        for cut in [0, 5, 10, 11, 600, bytes.count / 2, bytes.count - 1] {
            #expect(throws: PlacesFileError.self) { try PlacesFile.decode(Array(bytes.prefix(cut))) }
        }
        #expect(throws: PlacesFileError.self) { try PlacesFile.decode(bytes + [0]) }
        var random = SplitMix64(seed: 99)
        for _ in 0..<200 {
            var damaged = Array(bytes.prefix(4_000))
            for _ in 0..<8 { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = try? PlacesFile.decode(damaged)
        }
        let tiny: [UInt8] = Array("FODPLACES\u{01}".utf8) + [1, 68, 69, 1, 2, 4, 0, 1, 65]
        #expect(try PlacesFile.decode(tiny) == [Place(name: "A", country: "DE", location: TimelinePoint(longitude: 0.00002, latitude: 0.00001))])
    }
}
