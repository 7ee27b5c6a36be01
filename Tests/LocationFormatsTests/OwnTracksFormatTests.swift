import JSONCore
import LocationFormats
import Testing

@Suite struct OwnTracksFormatTests {
    /// A location message as the Android app posts it in HTTP mode.
    static let androidLocation = """
        {"_type":"location","_id":"6f1c2b3a","acc":13,"alt":42,"batt":85,"bs":1,"conn":"w",
         "created_at":1700000005,"lat":51.5034,"lon":-0.1276,"m":1,"t":"u","tid":"JD",
         "tst":1700000000,"vac":3,"vel":36,"cog":270,"p":101.2,"BSSID":"aa:bb:cc:dd:ee:ff",
         "SSID":"home-wifi","topic":"owntracks/jane/pixel","inregions":["home"],"inrids":["5f2a01"]}
        """

    @Test func locationMessageBecomesAFix() throws {
        let fix = try #require(try OwnTracksFormat.parse(try json(Self.androidLocation), now: testNow, rules: .standard))
        #expect(fix.longitude == -0.1276)
        #expect(fix.latitude == 51.5034)
        #expect(fix.timestamp == 1_700_000_000_000) // tst, not created_at
        #expect(fix.timestampWasGiven)
        #expect(fix.accuracy == 13)
        #expect(fix.altitude == 42)
        #expect(fix.speed == 10) // 36 km/h
        #expect(fix.heading == 270)
        #expect(fix.battery == 85)
        #expect(fix.clientID == nil) // resends dedupe by timestamp
    }

    /// The app omits zero-valued acc/alt/cog/vac/vel; iOS sends what it has.
    @Test func minimalMessageHasNoMeasurements() throws {
        let fix = try OwnTracksFormat.parse(
            try json(#"{"_type":"location","lat":-33.8688,"lon":151.2093,"tst":1699990000,"tid":"ip","conn":"m"}"#),
            now: testNow)
        #expect(fix == Fix(longitude: 151.2093, latitude: -33.8688, timestamp: 1_699_990_000_000, timestampWasGiven: true))
    }

    @Test func negativeMarkersMeanUnknown() throws {
        let fix = try #require(try OwnTracksFormat.parse(
            try json(#"{"_type":"location","lat":1,"lon":2,"tst":1699990000,"acc":-1,"vel":-1,"cog":-1,"batt":-1,"alt":-5}"#),
            now: testNow))
        #expect(fix.accuracy == nil && fix.speed == nil && fix.heading == nil && fix.battery == nil)
        #expect(fix.altitude == -5) // below sea level is a real altitude
    }

    @Test func speedConversion() throws {
        for (kmh, ms) in [(3.6, 1.0), (90, 25), (0, 0), (3600, 1000)] {
            let fix = try #require(try OwnTracksFormat.parse(
                ["_type": "location", "lat": 1, "lon": 2, "tst": 1_699_990_000, "vel": .number(JSONNumber(kmh))], now: testNow))
            #expect(approximatelyEqual(fix.speed, ms), "\(kmh) km/h")
        }
    }

    @Test(arguments: [
        #"{"_type":"lwt","tst":1700000000}"#,
        #"{"_type":"transition","wtst":1699990000,"lat":51.5,"lon":-0.12,"tst":1700000000,"acc":10,"tid":"JD","event":"enter","desc":"Home","t":"c","rid":"5f2a01"}"#,
        #"{"_type":"waypoint","desc":"Home","lat":51.5,"lon":-0.12,"rad":100,"tst":1699990000,"rid":"5f2a01"}"#,
        #"{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":51.5,"lon":-0.12,"rad":100,"tst":1699990000}]}"#,
        #"{"_type":"card","name":"Jane","face":"iVBORw0KGgo=","tid":"JD"}"#,
        #"{"_type":"status","android":{"hib":1,"bo":1,"loc":0}}"#,
        #"{"_type":"steps","tst":1700000000,"steps":1234,"from":1699990000,"to":1700000000}"#,
        #"{"_type":"beacon","uuid":"CA271EAE-5FA8-4E80-8F08-2A302A95A959","major":1,"minor":2,"tst":1700000000,"acc":1,"rssi":-60,"prox":1}"#,
        #"{"_type":"encrypted","data":"bm90IHJlYWxseSBlbmNyeXB0ZWQ="}"#,
        #"{"_type":"cmd","action":"reportLocation"}"#,
        #"{"_type":"somethingNew","lat":"whatever"}"#,
        #"{"_type":"Location","lat":1,"lon":2,"tst":1700000000}"#, // types are case-sensitive
    ])
    func otherTypesAreAcceptedAndIgnored(body: String) throws {
        #expect(try OwnTracksFormat.parse(try json(body), now: testNow) == nil)
    }

    @Test(arguments: [
        ("[]", "invalid_body", "an OwnTracks message must be a JSON object, not an array"),
        ("{}", "invalid_body", "an OwnTracks message must have a _type string"),
        (#"{"_type":5}"#, "invalid_body", "an OwnTracks message must have a _type string"),
        (#"{"_type":"location","lon":-0.12,"tst":1700000000}"#, "invalid_location", "an OwnTracks location needs numeric lat and lon"),
        (#"{"_type":"location","lat":"51.5","lon":-0.12,"tst":1700000000}"#, "invalid_location", "an OwnTracks location needs numeric lat and lon"),
        (#"{"_type":"location","lat":91,"lon":-0.12,"tst":1700000000}"#, "invalid_location", "longitude/latitude is out of bounds, lng: -0.12 lat: 91"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12}"#, "invalid_timestamp", "an OwnTracks location needs tst, a number of epoch seconds"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":"1700000000"}"#, "invalid_timestamp", "an OwnTracks location needs tst, a number of epoch seconds"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1800000000}"#, "timestamp_in_future", "timestamp is more than 24 h in the future"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":0}"#, "timestamp_too_old", "timestamp is before 2000-01-01T00:00:00.000Z"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"vel":4000}"#, "invalid_speed", "vel must be a number from 0 to 3600 (km/h)"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"batt":150}"#, "invalid_battery", "batt must be a number from 0 to 100 (percent)"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"cog":361}"#, "invalid_heading", "cog must be a number from 0 to 360 (degrees clockwise from north)"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"acc":200000}"#, "invalid_accuracy", "acc must be a number from 0 to 100000 (meters)"),
        (#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"alt":"high"}"#, "invalid_altitude", "alt must be a number from -12000 to 100000 (meters)"),
    ])
    func invalidMessagesThrow(body: String, code: String, message: String) throws {
        let value = try json(body)
        #expect(fixError { try OwnTracksFormat.parse(value, now: testNow) } == FixError(code: code, message: message))
    }

    @Test func millisecondTstIsUnderstood() throws {
        let fix = try OwnTracksFormat.parse(try json(#"{"_type":"location","lat":1,"lon":2,"tst":1699999999123}"#), now: testNow)
        #expect(fix?.timestamp == 1_699_999_999_123)
    }
}
