import GeoKit
import Testing

@Suite struct GeoPositionTests {
    /// Degrees stay exactly as given; only `latLng` goes to radians (and need not come back exactly).
    @Test(arguments: [(11.5755, 48.1374), (-0.1276, 51.5072), (180, -90), (2.35, 48.85)])
    func keepsItsDegreesExactly(longitude: Double, latitude: Double) {
        let position = GeoPosition(longitude: longitude, latitude: latitude)
        #expect(position.longitude == longitude && position.latitude == latitude)
        #expect(position.latLng == LatLng(degreesLatitude: latitude, longitude: longitude))
        #expect(position == GeoPosition(longitude: longitude, latitude: latitude))
        #expect(position.description == "[\(longitude), \(latitude)]")
    }

    /// Why fixes do not hold a `LatLng`: some degrees do not survive the trip through radians.
    @Test func radiansDoNotAlwaysRoundTrip() {
        let degrees = (0..<10_000).map { Double($0) / 10_000 * 180 }
        let changed = degrees.filter { GeoPosition(longitude: $0, latitude: 0).latLng.lng.degrees != $0 }
        #expect(!changed.isEmpty)
    }
}
