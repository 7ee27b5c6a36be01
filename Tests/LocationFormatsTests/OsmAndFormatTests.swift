import JSONCore
import LocationFormats
import Testing

@Suite struct OsmAndFormatTests {
    private func query(_ text: String, rules: FixRules = .standard) throws -> (deviceToken: String, fix: Fix) {
        try OsmAndFormat.parseQuery(try OsmAndFormat.decodeForm(Array(text.utf8)), now: testNow, rules: rules)
    }

    private func queryError(_ text: String, rules: FixRules = .standard) -> FixError? {
        fixError { try query(text, rules: rules) }
    }

    static let knot = 1852.0 / 3600.0

    /// Exactly what Traccar Client sends.
    @Test func traccarClientQuery() throws {
        let (token, fix) = try query("id=dev-token-123&timestamp=1700000000&lat=51.5&lon=-0.12&speed=10&bearing=90&altitude=20&accuracy=5&batt=80")
        #expect(token == "dev-token-123")
        #expect(fix.longitude == -0.12 && fix.latitude == 51.5)
        #expect(fix.timestamp == 1_700_000_000_000 && fix.timestampWasGiven)
        #expect(approximatelyEqual(fix.speed, 5.144444444444445)) // 10 knots
        #expect(approximatelyEqual(fix.speed, 10 * 0.514444, tolerance: 1e-6))
        #expect(fix.heading == 90)
        #expect(fix.altitude == 20)
        #expect(fix.accuracy == 5)
        #expect(fix.battery == 80)
        #expect(fix.clientID == nil)
    }

    @Test func queryItemsAsTheHTTPServerHandsThemOver() throws {
        let items: [(name: String, value: String)] = [
            ("deviceid", "tok"), ("lat", "-33.8688"), ("lon", "151.2093"), ("timestamp", "2023-11-14 22:13:20"),
            ("charge", "true"), ("valid", "true"), ("hdop", "1.2"), ("driverUniqueId", "extra attribute"),
        ]
        let (token, fix) = try OsmAndFormat.parseQuery(items, now: testNow, rules: .standard)
        #expect(token == "tok")
        #expect(fix.latitude == -33.8688 && fix.longitude == 151.2093)
        #expect(fix.timestamp == 1_700_000_000_000)
        #expect(approximatelyEqual(fix.accuracy, 6)) // hdop 1.2 × 5 m, since there is no accuracy
    }

    @Test(arguments: [
        "id=tok&location=51.5,-0.12&timestamp=1700000000",
        "id=tok&location=51.5%2C-0.12&timestamp=1700000000",
        "id=tok&location=51.5,+-0.12&timestamp=1700000000", // "51.5, -0.12"
        "timestamp=1700000000&location=51.5%2c-0.12&id=tok",
    ])
    func locationParameter(text: String) throws {
        let (token, fix) = try query(text)
        #expect(token == "tok")
        #expect(fix == Fix(longitude: -0.12, latitude: 51.5, timestamp: 1_700_000_000_000, timestampWasGiven: true))
    }

    @Test func postedFormBody() throws {
        let body = Array("id=dev%2Btoken&location=51.5%2C-0.12&timestamp=2023-11-14T22%3A13%3A20Z&speed=0&batt=55.5".utf8)
        let (token, fix) = try OsmAndFormat.parseForm(body, now: testNow, rules: .standard)
        #expect(token == "dev+token")
        #expect(fix.latitude == 51.5 && fix.longitude == -0.12)
        #expect(fix.timestamp == 1_700_000_000_000)
        #expect(fix.speed == 0 && fix.battery == 55.5)
    }

    @Test(arguments: [
        ("1700000000", 1_700_000_000_000 as Int64),
        ("1700000000123", 1_700_000_000_123),
        ("1700000000.25", 1_700_000_000_250),
        ("2023-11-14T22:13:20Z", 1_700_000_000_000),
        ("2023-11-14T22%3A13%3A20.500Z", 1_700_000_000_500),
        ("2023-11-14T22:13:20", 1_700_000_000_000), // no zone: UTC
        ("2023-11-14T23:13:20%2B01:00", 1_700_000_000_000),
        ("2023-11-14T23:13:20+01:00", 1_700_000_000_000), // unencoded + arrives as a space
        ("2023-11-14T23:13:20+0100", 1_700_000_000_000),
        ("2023-11-14T17:13:20-05:00", 1_700_000_000_000),
        ("2023-11-14+22:13:20", 1_700_000_000_000), // yyyy-MM-dd HH:mm:ss with + for the space
        ("2023-11-14%2022%3A13%3A20", 1_700_000_000_000),
        ("2023-11-14 22:13:20", 1_700_000_000_000),
    ])
    func timestampForms(text: String, expected: Int64) throws {
        let fix = try query("id=tok&lat=1&lon=2&timestamp=\(text)").fix
        #expect(fix.timestamp == expected)
        #expect(fix.timestampWasGiven)
    }

    @Test func missingTimestampMeansNow() throws {
        for text in ["id=tok&lat=1&lon=2", "id=tok&lat=1&lon=2&timestamp="] {
            let fix = try query(text).fix
            #expect(fix.timestamp == testNow && !fix.timestampWasGiven)
        }
    }

    static let timestampMessage = "timestamp must be epoch seconds or milliseconds, ISO 8601, or yyyy-MM-dd HH:mm:ss (UTC)"

    @Test(arguments: [
        ("lat=1&lon=2", "missing_device_id", "the device token is required as id (or deviceid)"),
        ("id=&lat=1&lon=2", "missing_device_id", "the device token is required as id (or deviceid)"),
        ("id=a&deviceid=b&lat=1&lon=2", "duplicate_parameter", "parameter id (or deviceid) is given more than once with different values"),
        ("id=a&lat=1&lon=2&lat=3", "duplicate_parameter", "parameter lat is given more than once with different values"),
        ("id=tok", "invalid_location", "lat and lon (or location=latitude,longitude) are required"),
        ("id=tok&lat=1", "invalid_location", "lat and lon must both be decimal numbers (degrees)"),
        ("id=tok&lat=abc&lon=2", "invalid_location", "lat and lon must both be decimal numbers (degrees)"),
        ("id=tok&lat=nan&lon=2", "invalid_location", "lat and lon must both be decimal numbers (degrees)"),
        ("id=tok&lat=0x10&lon=2", "invalid_location", "lat and lon must both be decimal numbers (degrees)"),
        ("id=tok&lat=51,5&lon=2", "invalid_location", "lat and lon must both be decimal numbers (degrees)"),
        ("id=tok&lat=1e999&lon=2", "invalid_location", "Point coordinates must be finite numbers"),
        ("id=tok&lat=91&lon=-0.12", "invalid_location", "longitude/latitude is out of bounds, lng: -0.12 lat: 91"),
        ("id=tok&location=91,-0.12", "invalid_location", "longitude/latitude is out of bounds, lng: -0.12 lat: 91"),
        ("id=tok&location=-0.12,191", "invalid_location", "longitude/latitude is out of bounds, lng: 191 lat: -0.12"),
        ("id=tok&location=51.5", "invalid_location", "location must be latitude,longitude in decimal degrees"),
        ("id=tok&location=51.5,-0.12,3", "invalid_location", "location must be latitude,longitude in decimal degrees"),
        ("id=tok&lat=1&lon=2&timestamp=yesterday", "invalid_timestamp", timestampMessage),
        ("id=tok&lat=1&lon=2&timestamp=2023-13-01T00:00:00Z", "invalid_timestamp", timestampMessage),
        ("id=tok&lat=1&lon=2&timestamp=1800000000", "timestamp_in_future", "timestamp is more than 24 h in the future"),
        ("id=tok&lat=1&lon=2&timestamp=0", "timestamp_too_old", "timestamp is before 2000-01-01T00:00:00.000Z"),
        ("id=tok&lat=1&lon=2&speed=2000", "invalid_speed", "speed must be a number from 0 to 1943.84 (knots)"),
        ("id=tok&lat=1&lon=2&speed=fast", "invalid_speed", "speed must be a number from 0 to 1943.84 (knots)"),
        ("id=tok&lat=1&lon=2&bearing=400", "invalid_heading", "bearing must be a number from 0 to 360 (degrees clockwise from north)"),
        ("id=tok&lat=1&lon=2&heading=400", "invalid_heading", "heading must be a number from 0 to 360 (degrees clockwise from north)"),
        ("id=tok&lat=1&lon=2&altitude=-20000", "invalid_altitude", "altitude must be a number from -12000 to 100000 (meters)"),
        ("id=tok&lat=1&lon=2&accuracy=1e6", "invalid_accuracy", "accuracy must be a number from 0 to 100000 (meters)"),
        ("id=tok&lat=1&lon=2&batt=101", "invalid_battery", "batt must be a number from 0 to 100 (percent)"),
        ("id=tok&lat=1&lon=2&valid=false", "fix_not_valid", "the device marked this fix as not valid (valid=false)"),
        ("id=tok&lat=1&lon=2&valid=0", "fix_not_valid", "the device marked this fix as not valid (valid=false)"),
        ("id=tok&lat=1&lon=2&valid=FALSE", "fix_not_valid", "the device marked this fix as not valid (valid=false)"),
        ("id=tok&lat=1&lon=2&valid=maybe", "invalid_parameter", "valid must be true, false, 1 or 0"),
    ])
    func invalidQueries(text: String, code: String, message: String) {
        #expect(queryError(text) == FixError(code: code, message: message))
    }

    @Test func lenientWhereClientsDiffer() throws {
        // unknown markers and empty values
        let unknown = try query("id=tok&lat=1&lon=2&speed=-1&bearing=-1&accuracy=-1&batt=-1&altitude=").fix
        #expect(unknown.speed == nil && unknown.heading == nil && unknown.accuracy == nil && unknown.battery == nil && unknown.altitude == nil)
        // heading is used when there is no bearing; bearing wins when both are given
        #expect(try query("id=tok&lat=1&lon=2&heading=45").fix.heading == 45)
        #expect(try query("id=tok&lat=1&lon=2&heading=45&bearing=90").fix.heading == 90)
        // a repeated parameter with the same value, and id + deviceid agreeing, are fine
        #expect(try query("id=tok&deviceid=tok&lat=1&lat=1&lon=2").deviceToken == "tok")
        // valid=true / 1 are fine
        #expect(try query("id=tok&lat=1&lon=2&valid=1").fix.latitude == 1)
        #expect(try query("id=tok&lat=1&lon=2&valid=true").fix.latitude == 1)
        // lat/lon win over location
        #expect(try query("id=tok&lat=1&lon=2&location=3,4").fix.latitude == 1)
    }

    @Test func hdopIsOnlyAFallback() throws {
        #expect(try query("id=tok&lat=1&lon=2&hdop=2").fix.accuracy == 10)
        #expect(try query("id=tok&lat=1&lon=2&hdop=2&accuracy=3").fix.accuracy == 3)
        #expect(try query("id=tok&lat=1&lon=2&hdop=2&accuracy=-1").fix.accuracy == 10)
        #expect(try query("id=tok&lat=1&lon=2&hdop=junk").fix.accuracy == nil)
        #expect(try query("id=tok&lat=1&lon=2&hdop=99999").fix.accuracy == nil) // beyond maxAccuracy: dropped
        #expect(try query("id=tok&lat=1&lon=2&hdop=2", rules: FixRules(metersPerHDOP: nil)).fix.accuracy == nil)
    }

    @Test(arguments: [
        ("a=1&b=2", [("a", "1"), ("b", "2")]),
        ("a=x+y", [("a", "x y")]),
        ("a=%41%62%2b", [("a", "Ab+")]),
        ("a=%e2%82%AC", [("a", "€")]),
        ("a=€", [("a", "€")]),
        ("%61=b", [("a", "b")]),
        ("a", [("a", "")]),
        ("a=", [("a", "")]),
        ("=v", [("", "v")]),
        ("&&a=1&", [("a", "1")]),
        ("a=1=2", [("a", "1=2")]),
        ("a=1;b=2", [("a", "1;b=2")]),
        ("", []),
    ])
    func formDecoding(text: String, expected: [(String, String)]) throws {
        let pairs = try OsmAndFormat.decodeForm(Array(text.utf8))
        #expect(pairs.map(\.name) == expected.map(\.0))
        #expect(pairs.map(\.value) == expected.map(\.1))
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%g1", "%=1", "a=%ff", "a=%c3%28", "a=%ed%a0%80"])
    func formDecodingRejectsBadEscapes(text: String) {
        #expect(fixError { try OsmAndFormat.decodeForm(Array(text.utf8)) }?.code == .invalidForm)
    }

    @Test func formDecodingRejectsRawInvalidUTF8() {
        #expect(fixError { try OsmAndFormat.decodeForm([0x61, 0x3D, 0xFF]) }?.code == .invalidForm)
        #expect(fixError { try OsmAndFormat.parseForm(Array("id=t&lat=%".utf8), now: testNow) }
            == FixError(code: .invalidForm, message: "the form body has a % not followed by two hex digits"))
    }

    // MARK: JSON form

    /// The JSON body exactly as described (Transistorsoft background-geolocation).
    static let jsonBody = """
        {"device_id": "dev-token-123",
         "location": {"timestamp": "2023-11-14T22:13:20.250Z",
                      "coords": {"latitude": 51.5, "longitude": -0.12, "accuracy": 5, "speed": 3.5,
                                 "heading": 90, "altitude": 20},
                      "is_moving": true, "odometer": 1234.5, "event": "motionchange",
                      "battery": {"level": 0.8, "is_charging": false},
                      "activity": {"type": "walking"}, "extras": {"trip": "x"}}}
        """

    @Test func jsonForm() throws {
        let (token, fix) = try OsmAndFormat.parseJSON(try json(Self.jsonBody), now: testNow, rules: .standard)
        #expect(token == "dev-token-123")
        #expect(fix.latitude == 51.5 && fix.longitude == -0.12)
        #expect(fix.timestamp == 1_700_000_000_250 && fix.timestampWasGiven)
        #expect(fix.accuracy == 5 && fix.speed == 3.5 && fix.heading == 90 && fix.altitude == 20)
        #expect(approximatelyEqual(fix.battery, 80))
        #expect(fix.clientID == nil)
    }

    @Test func jsonFormUsesTheRecordUUIDAsClientID() throws {
        let body = try json("""
            {"device_id": "tok", "location": {"uuid": "0c4e6c2a-6a7e-4d0f-9c55-2f1b0a0e8d11", "timestamp": "2023-11-14T22:13:20Z",
             "coords": {"latitude": 1, "longitude": 2, "speed": -1, "heading": -1, "accuracy": -1},
             "battery": {"level": -1, "is_charging": true}}}
            """)
        let fix = try OsmAndFormat.parseJSON(body, now: testNow).fix
        #expect(fix.clientID == "0c4e6c2a-6a7e-4d0f-9c55-2f1b0a0e8d11")
        #expect(fix.speed == nil && fix.heading == nil && fix.accuracy == nil && fix.battery == nil)
    }

    @Test func jsonFormWithoutTimestampUsesNow() throws {
        let fix = try OsmAndFormat.parseJSON(
            try json(#"{"device_id": "tok", "location": {"coords": {"latitude": 1, "longitude": 2}}}"#), now: testNow).fix
        #expect(fix == Fix(longitude: 2, latitude: 1, timestamp: testNow, timestampWasGiven: false))
        let epoch = try OsmAndFormat.parseJSON(
            try json(#"{"device_id": "tok", "location": {"timestamp": 1700000000, "coords": {"latitude": 1, "longitude": 2}}}"#), now: testNow).fix
        #expect(epoch.timestamp == 1_700_000_000_000)
    }

    @Test(arguments: [
        ("[]", "invalid_body"),
        (#"{"location": {"coords": {"latitude": 1, "longitude": 2}}}"#, "missing_device_id"),
        (#"{"device_id": 7, "location": {"coords": {"latitude": 1, "longitude": 2}}}"#, "missing_device_id"),
        (#"{"device_id": "tok"}"#, "invalid_location"),
        (#"{"device_id": "tok", "location": [{"coords": {"latitude": 1, "longitude": 2}}]}"#, "invalid_location"),
        (#"{"device_id": "tok", "location": {"latitude": 1, "longitude": 2}}"#, "invalid_location"),
        (#"{"device_id": "tok", "location": {"coords": {"latitude": 1}}}"#, "invalid_location"),
        (#"{"device_id": "tok", "location": {"coords": {"latitude": 100, "longitude": 2}}}"#, "invalid_location"),
        (#"{"device_id": "tok", "location": {"timestamp": "now", "coords": {"latitude": 1, "longitude": 2}}}"#, "invalid_timestamp"),
        (#"{"device_id": "tok", "location": {"timestamp": "2030-01-01T00:00:00Z", "coords": {"latitude": 1, "longitude": 2}}}"#, "timestamp_in_future"),
        (#"{"device_id": "tok", "location": {"coords": {"latitude": 1, "longitude": 2, "speed": 5000}}}"#, "invalid_speed"),
        (#"{"device_id": "tok", "location": {"coords": {"latitude": 1, "longitude": 2}, "battery": {"level": 1.5}}}"#, "invalid_battery"),
        (#"{"device_id": "tok", "location": {"coords": {"latitude": 1, "longitude": 2}, "battery": 80}}"#, "invalid_battery"),
    ])
    func invalidJSONForm(body: String, code: String) throws {
        let value = try json(body)
        #expect(fixError { try OsmAndFormat.parseJSON(value, now: testNow) }?.code.rawValue == code)
    }

    @Test func jsonFormMessages() throws {
        let badLevel = try json(#"{"device_id": "tok", "location": {"coords": {"latitude": 1, "longitude": 2}, "battery": {"level": 1.5}}}"#)
        #expect(fixError { try OsmAndFormat.parseJSON(badLevel, now: testNow) }?.message
            == "battery.level must be a number from 0 to 1 (fraction of a full charge)")
        let badBounds = try json(#"{"device_id": "tok", "location": {"coords": {"latitude": 100, "longitude": 2}}}"#)
        #expect(fixError { try OsmAndFormat.parseJSON(badBounds, now: testNow) }?.message
            == "longitude/latitude is out of bounds, lng: 2 lat: 100")
    }
}
