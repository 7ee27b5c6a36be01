import JSONCore
import LocationFormats
import Testing

@Suite struct NativeFormatTests {
    /// Parses a single-fix body and returns its one outcome.
    private func single(_ text: String, rules: FixRules = .standard) throws -> Result<Fix, FixError> {
        let batch = try NativeFormat.parse(try json(text), now: testNow, rules: rules)
        #expect(batch.isSingle)
        #expect(batch.count == 1)
        if let fix = batch.fixes.first {
            #expect(fix.index == 0)
            return .success(fix.fix)
        }
        let rejected = try #require(batch.rejected.first)
        #expect(rejected.index == 0)
        return .failure(rejected.error)
    }

    static let locationArray = "location must be an array [longitude, latitude]"
    static let numeric = "Point must only contain numeric elements"
    static let timestampFormat =
        "timestamp must be an RFC 3339 date-time with a zone (2026-11-30T08:15:00.000Z) or a number of epoch seconds or milliseconds"

    /// Every rejection of a single fix: body, code, exact message.
    @Test(arguments: [
        (#"{"location": "0,0"}"#, "invalid_location", locationArray),
        (#"{"location": {"lng": 1, "lat": 2}}"#, "invalid_location", locationArray),
        (#"{"location": null}"#, "invalid_location", locationArray),
        (#"{"location": []}"#, "invalid_location", numeric),
        (#"{"location": [1]}"#, "invalid_location", numeric),
        (#"{"location": ["1", 2]}"#, "invalid_location", numeric),
        (#"{"location": [1, true]}"#, "invalid_location", numeric),
        (#"{"location": [null, null]}"#, "invalid_location", numeric),
        (#"{"location": [354.473, -1.94617]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617"),
        (#"{"location": [180.0000001, 0]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: 180 lat: 0"),
        (#"{"location": [-180.0000001, 0]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: -180 lat: 0"),
        (#"{"location": [0, 90.0000001]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: 0 lat: 90"),
        (#"{"location": [0, -90.0000001]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: 0 lat: -90"),
        (#"{"location": [200, 10000000]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: 200 lat: 1e+07"),
        (#"{"location": [-180.5, 45.25]}"#, "invalid_location", "longitude/latitude is out of bounds, lng: -180.5 lat: 45.25"),
        (#"{"location": [0, 0], "timestamp": "yesterday"}"#, "invalid_timestamp", timestampFormat),
        (#"{"location": [0, 0], "timestamp": "2023-11-14T22:13:20"}"#, "invalid_timestamp", timestampFormat),
        (#"{"location": [0, 0], "timestamp": "2023-02-30T00:00:00Z"}"#, "invalid_timestamp", timestampFormat),
        (#"{"location": [0, 0], "timestamp": "1700000000"}"#, "invalid_timestamp", timestampFormat),
        (#"{"location": [0, 0], "timestamp": true}"#, "invalid_timestamp", timestampFormat),
        (#"{"location": [0, 0], "timestamp": 946684799}"#, "timestamp_too_old", "timestamp is before 2000-01-01T00:00:00.000Z"),
        (#"{"location": [0, 0], "timestamp": "1999-12-31T23:59:59.999Z"}"#, "timestamp_too_old", "timestamp is before 2000-01-01T00:00:00.000Z"),
        (#"{"location": [0, 0], "timestamp": -1}"#, "timestamp_too_old", "timestamp is before 2000-01-01T00:00:00.000Z"),
        (#"{"location": [0, 0], "timestamp": -9223372036854775808}"#, "timestamp_too_old", "timestamp is before 2000-01-01T00:00:00.000Z"),
        (#"{"location": [0, 0], "timestamp": 1700086401}"#, "timestamp_in_future", "timestamp is more than 24 h in the future"),
        (#"{"location": [0, 0], "timestamp": 100000000000}"#, "timestamp_in_future", "timestamp is more than 24 h in the future"),
        (#"{"location": [0, 0], "timestamp": 1e300}"#, "timestamp_in_future", "timestamp is more than 24 h in the future"),
        (#"{"location": [0, 0], "accuracy": -1}"#, "invalid_accuracy", "accuracy must be a number from 0 to 100000 (meters)"),
        (#"{"location": [0, 0], "accuracy": 100000.5}"#, "invalid_accuracy", "accuracy must be a number from 0 to 100000 (meters)"),
        (#"{"location": [0, 0], "accuracy": "5"}"#, "invalid_accuracy", "accuracy must be a number from 0 to 100000 (meters)"),
        (#"{"location": [0, 0], "altitude": -12000.5}"#, "invalid_altitude", "altitude must be a number from -12000 to 100000 (meters)"),
        (#"{"location": [0, 0], "altitude": 100001}"#, "invalid_altitude", "altitude must be a number from -12000 to 100000 (meters)"),
        (#"{"location": [0, 0, 200000]}"#, "invalid_altitude", "location[2] (altitude) must be a number from -12000 to 100000 (meters)"),
        (#"{"location": [0, 0], "speed": -1}"#, "invalid_speed", "speed must be a number from 0 to 1000 (m/s)"),
        (#"{"location": [0, 0], "speed": 1000.001}"#, "invalid_speed", "speed must be a number from 0 to 1000 (m/s)"),
        (#"{"location": [0, 0], "heading": -1}"#, "invalid_heading", "heading must be a number from 0 to 360 (degrees clockwise from north)"),
        (#"{"location": [0, 0], "heading": 360.5}"#, "invalid_heading", "heading must be a number from 0 to 360 (degrees clockwise from north)"),
        (#"{"location": [0, 0], "battery": -0.5}"#, "invalid_battery", "battery must be a number from 0 to 100 (percent)"),
        (#"{"location": [0, 0], "battery": 101}"#, "invalid_battery", "battery must be a number from 0 to 100 (percent)"),
        (#"{"location": [0, 0], "battery": false}"#, "invalid_battery", "battery must be a number from 0 to 100 (percent)"),
        (#"{"location": [0, 0], "id": ""}"#, "invalid_id", "id must be a string of 1 to 128 bytes"),
        (#"{"location": [0, 0], "id": 42}"#, "invalid_id", "id must be a string of 1 to 128 bytes"),
        ("{\"location\": [0, 0], \"id\": \"\(String(repeating: "é", count: 64))a\"}", "invalid_id", "id must be a string of 1 to 128 bytes"),
        // the first failing check wins: location before timestamp before measurements
        (#"{"location": [0, 95], "timestamp": "bad", "speed": -1}"#, "invalid_location", "longitude/latitude is out of bounds, lng: 0 lat: 95"),
        (#"{"location": [0, 0], "timestamp": "bad", "speed": -1}"#, "invalid_timestamp", timestampFormat),
    ])
    func rejectsInvalidFix(body: String, code: String, message: String) throws {
        let outcome = try single(body)
        guard case .failure(let error) = outcome else {
            Issue.record("accepted \(body)")
            return
        }
        #expect(error == FixError(code: code, message: message))
    }

    /// Boundary values are inclusive.
    @Test(arguments: [
        #"{"location": [180, 90]}"#, #"{"location": [-180, -90]}"#, #"{"location": [180, -90]}"#,
        #"{"location": [-180, 90]}"#, #"{"location": [0, 0]}"#, #"{"location": [179.9999999, -89.9999999]}"#,
        #"{"location": [0, 0], "accuracy": 0, "altitude": -12000, "speed": 0, "heading": 0, "battery": 0}"#,
        #"{"location": [0, 0], "accuracy": 100000, "altitude": 100000, "speed": 1000, "heading": 360, "battery": 100}"#,
        #"{"location": [0, 0], "timestamp": 946684800}"#,
        #"{"location": [0, 0], "timestamp": 1700086400}"#,
        "{\"location\": [0, 0], \"id\": \"\(String(repeating: "é", count: 64))\"}",
        #"{"location": [0, 0], "id": "x"}"#,
    ])
    func acceptsBoundaryValues(body: String) throws {
        let outcome = try single(body)
        if case .failure(let error) = outcome { Issue.record("rejected \(body): \(error)") }
    }

    @Test func fullFixKeepsEveryField() throws {
        let fix = try single("""
            {"location": [-0.1276, 51.5034], "timestamp": "2023-11-14T22:13:20.123Z", "accuracy": 4.5,
             "altitude": 35, "speed": 1.25, "heading": 271.5, "battery": 67, "id": "fix-0001",
             "someFutureField": {"nested": true}}
            """).get()
        #expect(fix == Fix(longitude: -0.1276, latitude: 51.5034, timestamp: 1_700_000_000_123, timestampWasGiven: true,
                           accuracy: 4.5, altitude: 35, speed: 1.25, heading: 271.5, battery: 67, clientID: "fix-0001"))
    }

    @Test func minimalFixUsesNowAndNulls() throws {
        let fix = try single(#"{"location": [2.35, 48.85]}"#).get()
        #expect(fix == Fix(longitude: 2.35, latitude: 48.85, timestamp: testNow, timestampWasGiven: false))
        let withNulls = try single(#"{"location": [2.35, 48.85], "timestamp": null, "accuracy": null, "altitude": null, "speed": null, "heading": null, "battery": null, "id": null}"#).get()
        #expect(withNulls == fix)
    }

    @Test(arguments: [
        (#"[1, 2]"#, nil as Double?),
        (#"[1, 2, 30]"#, 30),
        (#"[1, 2, 30, 40]"#, 30),
        (#"[1, 2, "x"]"#, nil),
        (#"[1, 2, null, 7]"#, nil),
    ])
    func extraCoordinatesAreAllowed(location: String, altitude: Double?) throws {
        let fix = try single("{\"location\": \(location)}").get()
        #expect(fix.longitude == 1 && fix.latitude == 2)
        #expect(fix.altitude == altitude)
        // an explicit altitude member wins over the third element (which is then not checked)
        let explicit = try single("{\"location\": \(location), \"altitude\": 5}").get()
        #expect(explicit.altitude == 5)
    }

    @Test func explicitAltitudeWinsEvenOverInvalidThirdElement() throws {
        let fix = try single(#"{"location": [1, 2, 999999], "altitude": 5}"#).get()
        #expect(fix.altitude == 5)
    }

    @Test(arguments: [
        (#""2023-11-14T22:13:20Z""#, 1_700_000_000_000 as Int64),
        (#""2023-11-14T22:13:20.123Z""#, 1_700_000_000_123),
        (#""2023-11-14T22:13:20.123456789Z""#, 1_700_000_000_123),
        (#""2023-11-14T23:13:20+01:00""#, 1_700_000_000_000),
        (#""2023-11-14T17:13:20.5-05:00""#, 1_700_000_000_500),
        (#""2023-11-15T03:43:20+0530""#, 1_700_000_000_000),
        (#""2023-11-14t22:13:20z""#, 1_700_000_000_000),
        (#""2023-11-14 22:13:20Z""#, 1_700_000_000_000),
        ("1700000000", 1_700_000_000_000),
        ("1699999999.5", 1_699_999_999_500),
        ("1.7e9", 1_700_000_000_000),
        ("1700000000123", 1_700_000_000_123),
        ("1700000000123.4", 1_700_000_000_123),
        ("946684800", 946_684_800_000),
        ("100000000001", 100_000_000_001), // > 1e11: milliseconds (1973 → too old, checked below)
    ])
    func timestampForms(text: String, expected: Int64) throws {
        let rules = FixRules(minTimestamp: 0)
        let fix = try single("{\"location\": [0, 0], \"timestamp\": \(text)}", rules: rules).get()
        #expect(fix.timestamp == expected)
        #expect(fix.timestampWasGiven)
    }

    @Test func futureLimitFollowsTheRules() throws {
        // exactly 24 h ahead is fine, one millisecond more is not
        #expect(try single("{\"location\": [0, 0], \"timestamp\": \(testNow + 86_400_000)}").get().timestamp == testNow + 86_400_000)
        #expect(try single("{\"location\": [0, 0], \"timestamp\": \(testNow + 86_400_001)}")
            == .failure(FixError(code: .timestampInFuture, message: "timestamp is more than 24 h in the future")))
        let oneHour = FixRules(maxFutureMilliseconds: 3_600_000)
        #expect(try single("{\"location\": [0, 0], \"timestamp\": \(testNow / 1000 + 3601)}", rules: oneHour)
            == .failure(FixError(code: .timestampInFuture, message: "timestamp is more than 1 h in the future")))
        let ninetyMinutes = FixRules(maxFutureMilliseconds: 5_400_000)
        #expect(try single("{\"location\": [0, 0], \"timestamp\": \(testNow / 1000 + 5401)}", rules: ninetyMinutes)
            == .failure(FixError(code: .timestampInFuture, message: "timestamp is more than 1.5 h in the future")))
        // a past timestamp is always fine (offline backfill)
        #expect(try single(#"{"location": [0, 0], "timestamp": "2001-01-01T00:00:00Z"}"#).get().timestamp == 978_307_200_000)
    }

    @Test func mixedBatchKeepsGoodFixesWithTheirIndexes() throws {
        let batch = try NativeFormat.parse(try json("""
            {"locations": [
              {"location": [13.405, 52.52], "timestamp": 1699999000, "id": "a"},
              {"location": [354.473, -1.94617], "timestamp": 1699999001},
              5,
              {"location": [13.41, 52.53], "timestamp": "2023-11-14T22:00:00Z", "speed": 3},
              {"location": [13.42, 52.54], "timestamp": "soon"},
              {"location": [13.43, 52.55]}
            ], "client": "ignored"}
            """), now: testNow, rules: .standard)
        #expect(!batch.isSingle)
        #expect(batch.fixes.map(\.index) == [0, 3, 5])
        #expect(batch.fixes.map(\.fix.clientID) == ["a", nil, nil])
        #expect(batch.fixes.map(\.fix.timestamp) == [1_699_999_000_000, 1_699_999_200_000, testNow])
        #expect(batch.fixes[1].fix.speed == 3)
        #expect(batch.rejected.map(\.index) == [1, 2, 4])
        #expect(batch.rejected.map(\.error.code.rawValue) == ["invalid_location", "invalid_fix", "invalid_timestamp"])
        #expect(batch.rejected[1].error.message == "each element of locations must be a fix object, not a number")
        #expect(batch.rejected[0].error.message == "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617")
    }

    @Test func batchSizeLimits() throws {
        let fix: JSONValue = ["location": [1.5, 2.5], "timestamp": 1_699_999_999]
        let full = try NativeFormat.parse(["locations": .array(Array(repeating: fix, count: 10_000))], now: testNow, rules: .standard)
        #expect(full.fixes.count == 10_000)
        #expect(full.rejected.isEmpty)
        #expect(full.fixes.last?.index == 9_999)

        let tooMany: JSONValue = ["locations": .array(Array(repeating: fix, count: 10_001))]
        #expect(fixError { try NativeFormat.parse(tooMany, now: testNow, rules: .standard) }
            == FixError(code: .batchTooLarge, message: "a batch may hold at most 10000 fixes; this one has 10001"))

        let small = FixRules(maxBatch: 2)
        #expect(fixError { try NativeFormat.parse(["locations": [fix, fix, fix]], now: testNow, rules: small) }?.code == .batchTooLarge)
        #expect(fixError { try NativeFormat.parse(["locations": [fix, fix]], now: testNow, rules: small) } == nil)
    }

    @Test(arguments: [
        ("[]", "invalid_body"),
        (#""location""#, "invalid_body"),
        ("null", "invalid_body"),
        ("{}", "invalid_body"),
        (#"{"lat": 1, "lon": 2}"#, "invalid_body"),
        (#"{"location": [0, 0], "locations": [{"location": [0, 0]}]}"#, "invalid_body"),
        (#"{"locations": {"location": [0, 0]}}"#, "invalid_body"),
        (#"{"locations": null}"#, "invalid_body"),
        (#"{"locations": []}"#, "empty_batch"),
    ])
    func malformedBodiesThrow(body: String, code: String) throws {
        let value = try json(body)
        let error = fixError { try NativeFormat.parse(value, now: testNow, rules: .standard) }
        #expect(error?.code.rawValue == code)
        #expect(error?.message.isEmpty == false)
    }

    @Test func bodyErrorMessagesNameTheProblem() throws {
        #expect(fixError { try NativeFormat.parse([1, 2], now: testNow) }?.message
            == #"the body must be a JSON object: one fix {"location": [longitude, latitude], ...} or a batch {"locations": [fix, ...]}, not an array"#)
        #expect(fixError { try NativeFormat.parse(["location": [0, 0], "locations": []], now: testNow) }?.message
            == "the body must have either location (one fix) or locations (a batch), not both")
        #expect(fixError { try NativeFormat.parse(["locations": "x"], now: testNow) }?.message
            == "locations must be an array of fixes, not a string")
        #expect(fixError { try NativeFormat.parse(["locations": []], now: testNow) }
            == FixError(code: .emptyBatch, message: "locations must hold at least one fix"))
    }

    /// JSON never yields NaN, but values built in code can: the check must still hold.
    @Test func nonFiniteCoordinatesBuiltInCode() throws {
        for bad in [Double.nan, .infinity, -.infinity] {
            let body: JSONValue = ["location": [.number(JSONNumber(bad)), 0]]
            let batch = try NativeFormat.parse(body, now: testNow)
            #expect(batch.rejected.first?.error == FixError(code: .invalidLocation, message: "Point coordinates must be finite numbers"))
        }
    }
}
