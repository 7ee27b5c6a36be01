import JSONCore
import LocationFormats
import Testing

@Suite struct OverlandFormatTests {
    /// A batch of three points as Overland posts it, with -1 "unknown" speeds and accuracy.
    static let batch = """
        {"locations": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-122.030581, 37.3318]},
           "properties": {"timestamp": "2023-11-14T22:13:20Z", "altitude": 12, "speed": -1,
                          "horizontal_accuracy": 65, "vertical_accuracy": 10, "motion": ["stationary"],
                          "battery_state": "unplugged", "battery_level": 0.89, "wifi": "", "device_id": "iphone"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-122.030612, 37.331833]},
           "properties": {"timestamp": "2023-11-14T14:13:25-0800", "altitude": 13, "speed": -1,
                          "horizontal_accuracy": -1, "vertical_accuracy": -1, "motion": [],
                          "battery_state": "unknown", "battery_level": -1, "wifi": "home", "device_id": "iphone"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-122.030702, 37.33195]},
           "properties": {"timestamp": "2023-11-14T22:13:30.500Z", "altitude": 14, "speed": 4.2,
                          "horizontal_accuracy": 5, "vertical_accuracy": 3, "motion": ["walking"],
                          "battery_state": "charging", "battery_level": 0.9, "wifi": "", "device_id": "iphone"}}
        ],
        "current": {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-122.030702, 37.33195]},
                    "properties": {"timestamp": "2023-11-14T22:13:30Z"}},
        "trip": {"distance": 120.5, "mode": "walking", "start": "2023-11-14T22:00:00Z"}}
        """

    @Test func batchOfThreeFeatures() throws {
        let result = try OverlandFormat.parse(try json(Self.batch), now: testNow, rules: .standard)
        #expect(!result.isSingle)
        #expect(result.rejected.isEmpty)
        #expect(result.fixes.map(\.index) == [0, 1, 2])
        try #require(result.fixes.count == 3)
        let fixes = result.fixes.map(\.fix)
        #expect(fixes.map(\.longitude) == [-122.030581, -122.030612, -122.030702])
        #expect(fixes.map(\.latitude) == [37.3318, 37.331833, 37.33195])
        #expect(fixes.map(\.timestamp) == [1_700_000_000_000, 1_700_000_005_000, 1_700_000_010_500])
        #expect(fixes.map(\.timestampWasGiven) == [true, true, true])
        #expect(fixes.map(\.speed) == [nil, nil, 4.2])
        #expect(fixes.map(\.accuracy) == [65, nil, 5])
        #expect(fixes.map(\.altitude) == [12, 13, 14])
        #expect(approximatelyEqual(fixes[0].battery, 89))
        #expect(fixes[1].battery == nil)
        #expect(approximatelyEqual(fixes[2].battery, 90))
        #expect(fixes.allSatisfy { $0.clientID == nil && $0.heading == nil })
    }

    @Test func emptyBatchIsValid() throws {
        let result = try OverlandFormat.parse(try json(#"{"locations": []}"#), now: testNow)
        #expect(result.fixes.isEmpty && result.rejected.isEmpty && !result.isSingle)
    }

    @Test func badFeaturesAreRejectedByIndex() throws {
        let good = #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"timestamp": "2023-11-14T22:00:00Z"}}"#
        let result = try OverlandFormat.parse(try json("""
            {"locations": [
              \(good),
              {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, "properties": {"timestamp": "2023-11-14T22:00:00Z"}},
              \(good),
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"speed": 3}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [354.473, -1.94617]}, "properties": {"timestamp": "2023-11-14T22:00:00Z"}},
              "not a feature",
              {"type": "feature", "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"timestamp": "2023-11-14T22:00:00Z"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"timestamp": "2023-11-14T22:00:00"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"timestamp": "2023-11-14T22:00:00Z", "speed": 2000}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"timestamp": "2023-11-14T22:00:00Z", "battery_level": 1.2}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": "2.35,48.85"}, "properties": {"timestamp": "2023-11-14T22:00:00Z"}}
            ]}
            """), now: testNow)
        #expect(result.fixes.map(\.index) == [0, 2])
        #expect(result.rejected.map(\.index) == [1, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(result.rejected.map(\.error.code.rawValue) == [
            "invalid_location", "invalid_timestamp", "invalid_location", "invalid_fix", "invalid_fix",
            "invalid_timestamp", "invalid_speed", "invalid_battery", "invalid_location",
        ])
        #expect(result.rejected[2].error.message == "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617")
        #expect(result.rejected[7].error.message == "battery_level must be a number from 0 to 1 (fraction of a full charge)")
        #expect(result.rejected[8].error.message == "Point coordinates must be an array [longitude, latitude]")
    }

    @Test func thirdCoordinateAndCourse() throws {
        let result = try OverlandFormat.parse(try json("""
            {"locations": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2, 300]}, "properties": {"timestamp": "2023-11-14T22:00:00Z", "course": 180}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2, 300]}, "properties": {"timestamp": "2023-11-14T22:00:01Z", "altitude": 5, "course": -1}}
            ]}
            """), now: testNow)
        #expect(result.fixes.map(\.fix.altitude) == [300, 5])
        #expect(result.fixes.map(\.fix.heading) == [180, nil])
    }

    @Test(arguments: ["[]", "{}", #"{"locations": {}}"#, #"{"locations": null}"#, #"{"current": {}}"#])
    func malformedBodiesThrow(body: String) throws {
        let value = try json(body)
        #expect(fixError { try OverlandFormat.parse(value, now: testNow) }?.code == .invalidBody)
    }

    @Test func batchTooLarge() throws {
        let feature: JSONValue = ["type": "Feature", "geometry": ["type": "Point", "coordinates": [1, 2]],
                                  "properties": ["timestamp": "2023-11-14T22:00:00Z"]]
        let body: JSONValue = ["locations": .array(Array(repeating: feature, count: 10_001))]
        #expect(fixError { try OverlandFormat.parse(body, now: testNow) }?.code == .batchTooLarge)
        let three: JSONValue = ["locations": [feature, feature, feature]]
        #expect(try OverlandFormat.parse(three, now: testNow, rules: FixRules(maxBatch: 3)).fixes.count == 3)
    }
}
