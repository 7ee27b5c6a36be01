import JSONCore
import LocationFormats
import Testing

/// The readers the phone-app endpoints use: they never fail, list what cannot be stored with a
/// sample, and read batteries and region events besides fixes.
@Suite struct AppPayloadTests {
    // MARK: OwnTracks

    static func ownTracks(_ text: String) throws -> AppPayload {
        guard case .plain(let payload) = OwnTracksFormat.read(try json(text), now: testNow) else {
            Issue.record("not read as a plain message: \(text)")
            return AppPayload()
        }
        return payload
    }

    @Test func ownTracksLocationIsAFix() throws {
        let payload = try Self.ownTracks(OwnTracksFormatTests.androidLocation)
        #expect(payload.fixes.count == 1 && payload.unusable.isEmpty && payload.battery == nil)
        #expect(payload.fixes.first?.battery == 85)
    }

    /// Overland's OwnTracks mode counts `tst` from 2001-01-01 (`timeIntervalSinceReferenceDate`):
    /// 721,692,800 s is 2023-11-14T22:13:20Z then.
    @Test func overlandsOwnTracksModeTimeIsReadFromTheReferenceDate() throws {
        let payload = try Self.ownTracks(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":721692800,"acc":5,"batt":64,"topic":"owntracks/phone"}"#)
        #expect(payload.fixes.first?.timestamp == testNow)
        #expect(payload.fixes.first?.battery == 64)
        // Counted from 2001 it would lie more than 7 days back: an unset clock, refused.
        let old = try Self.ownTracks(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":720000000,"batt":64}"#)
        #expect(old.fixes.isEmpty && old.unusable.map(\.error.code) == [.timestampTooOld] && old.battery == nil)
    }

    @Test func ownTracksLocationThatCannotBeStoredKeepsItsBatteryAndSample() throws {
        let text = #"{"_type":"location","lat":91,"lon":-0.12,"tst":1699999000,"batt":42}"#
        let payload = try Self.ownTracks(text)
        #expect(payload.fixes.isEmpty)
        #expect(payload.unusable == [UnusableMessage(error: FixError(code: .invalidLocation, message: "longitude/latitude is out of bounds, lng: -0.12 lat: 91"),
                                                     sample: try json(text).serializedString())])
        #expect(payload.battery == BatteryReading(percent: 42, timestamp: 1_699_999_000_000))
    }

    /// Android's `MessageTransition` fields: event, desc, tid, t, tst, wtst, acc, lon, lat.
    @Test func ownTracksTransitionIsARegionEvent() throws {
        let payload = try Self.ownTracks(#"{"_type":"transition","_id":"a1b2","event":"leave","desc":"Home","tid":"JD","t":"c","tst":1699999900,"wtst":1690000000,"acc":14,"lon":-0.1276,"lat":51.5034}"#)
        #expect(payload.fixes.isEmpty && payload.unusable.isEmpty)
        #expect(payload.transitions == [RegionTransition(event: .leave, region: "Home", timestamp: 1_699_999_900_000,
                                                         longitude: -0.1276, latitude: 51.5034, accuracy: 14, trigger: "c")])
        // A beacon transition without a position keeps the event alone.
        let beacon = try Self.ownTracks(#"{"_type":"transition","event":"enter","desc":"Car","t":"b","tst":1699999901,"wtst":1690000000,"acc":0,"lon":0,"lat":0}"#)
        #expect(beacon.transitions.first?.event == .enter && beacon.transitions.first?.trigger == "b")
    }

    @Test(arguments: [
        (#"{"_type":"transition","event":"dwell","tst":1699999900}"#, "invalid_body"),
        (#"{"_type":"transition","event":"enter"}"#, "invalid_timestamp"),
        (#"{"_type":"somethingNew","lat":"whatever"}"#, "unsupported_message"),
        (#"{"_type":"encrypted"}"#, "invalid_body"),
        (#"{"tst":1699999900}"#, "invalid_body"),
        ("[]", "invalid_body"),
    ])
    func ownTracksMessagesThatCannotBeStoredAreUnusable(text: String, code: String) throws {
        let payload = try Self.ownTracks(text)
        #expect(payload.unusable.map(\.error.code.rawValue) == [code])
        #expect(payload.unusable.first?.sample == (try json(text).serializedString()))
    }

    @Test(arguments: [
        #"{"_type":"lwt","tst":1699999000,"created_at":1699999000}"#,
        #"{"_type":"status","android":{"wifi":1,"ps":0,"bo":1,"hib":0,"loc":0,"version":420500,"flavour":"gms"}}"#,
        #"{"_type":"card","name":"Jane","face":"iVBORw0KGgo=","tid":"JD"}"#,
        #"{"_type":"waypoint","desc":"Home","lat":51.5,"lon":-0.12,"rad":100,"tst":1699990000}"#,
        #"{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":51.5,"lon":-0.12,"rad":100,"tst":1699990000}]}"#,
        #"{"_type":"cmd","action":"reportLocation"}"#,
        #"{"_type":"steps","tst":1700000000,"steps":1234,"from":1699990000,"to":1700000000}"#,
        #"{"_type":"beacon","uuid":"CA271EAE-5FA8-4E80-8F08-2A302A95A959","major":1,"minor":2,"tst":1700000000,"acc":1,"rssi":-60,"prox":1}"#,
    ])
    func ownTracksMessagesWithoutAFixAreAccepted(text: String) throws {
        #expect(try Self.ownTracks(text) == AppPayload())
    }

    @Test func anEncryptedMessageIsHandedBackToBeOpened() throws {
        let message = OwnTracksFormat.read(try json(#"{"_type":"encrypted","data":"bm90IHJlYWxseQ==","_id":"x"}"#), now: testNow)
        #expect(message == .encrypted(data: "bm90IHJlYWxseQ=="))
    }

    // MARK: OsmAnd and Traccar Client

    static func form(_ text: String) throws -> [(name: String, value: String)] {
        try OsmAndFormat.decodeForm(Array(text.utf8))
    }

    /// Traccar Client 10's heartbeat without a fix: `id, timestamp, batt, charge`.
    @Test func traccarHeartbeatIsABatteryNotAFixNorARejection() throws {
        let items = try Self.form("id=tok&timestamp=1699999990&batt=57&charge=false")
        #expect(OsmAndFormat.deviceToken(items) == "tok")
        #expect(OsmAndFormat.read(items, now: testNow) == AppPayload(battery: BatteryReading(percent: 57, timestamp: 1_699_999_990_000)))
        // Without a time, the battery is from now; without batt, nothing at all.
        #expect(OsmAndFormat.read(try Self.form("id=tok&batt=57"), now: testNow).battery?.timestamp == testNow)
        #expect(OsmAndFormat.read(try Self.form("id=tok"), now: testNow) == AppPayload())
    }

    @Test func aFixMarkedNotValidIsUnusableButItsBatteryCounts() throws {
        let payload = OsmAndFormat.read(try Self.form("id=tok&lat=51.5&lon=-0.12&timestamp=1699999990&valid=false&batt=33"), now: testNow)
        #expect(payload.fixes.isEmpty)
        #expect(payload.unusable.map(\.error.code) == [.fixNotValid])
        #expect(payload.unusable.first?.sample == "lat=51.5&lon=-0.12&timestamp=1699999990&valid=false&batt=33")  // no id
        #expect(payload.battery == BatteryReading(percent: 33, timestamp: 1_699_999_990_000))
    }

    /// Traccar Client 10 with "JSON" on: an array of the form's parameters per position.
    @Test func traccarClientJSONBatch() throws {
        let body = try json("""
            [{"id":"tok","lat":51.5,"lon":-0.12,"timestamp":1699999900,"accuracy":8.5,"altitude":40.0,"speed":5.4,"bearing":90.0,"batt":80,"charge":true},
             {"id":"tok","lat":51.6,"lon":-0.13,"timestamp":1699999960,"batt":79,"charge":false,"alarm":"sos"},
             {"id":"tok","timestamp":1699999990,"batt":78},
             {"id":"other","lat":1,"lon":2,"timestamp":1699999991},
             {"id":"tok","lat":1,"lon":2,"timestamp":1699999992,"valid":false}]
            """)
        #expect(OsmAndFormat.deviceToken(json: body) == "tok")
        let payload = OsmAndFormat.readJSON(body, token: "tok", now: testNow)
        #expect(payload.fixes.map(\.timestamp) == [1_699_999_900_000, 1_699_999_960_000])
        #expect(approximatelyEqual(payload.fixes.first?.speed, 5.4 * 1852 / 3600))
        #expect(payload.unusable.map(\.error.code) == [.deviceIDMismatch, .fixNotValid])
        #expect(payload.unusable.map(\.sample) == ["lat=1&lon=2&timestamp=1699999991", "lat=1&lon=2&timestamp=1699999992&valid=false"])
        #expect(payload.battery == BatteryReading(percent: 78, timestamp: 1_699_999_990_000))
    }

    /// The background-geolocation plugin with batches on: `location` is an array.
    @Test func backgroundGeolocationBatch() throws {
        let location = { (time: String, lat: Double) in
            #"{"timestamp":"\#(time)","coords":{"latitude":\#(lat),"longitude":-0.12,"accuracy":5,"speed":-1,"heading":-1,"altitude":20},"is_moving":true,"odometer":0,"event":"","battery":{"level":0.5,"is_charging":false},"activity":{"type":"still"},"extras":{},"_":"&id=tok&lat=\#(lat)&"}"#
        }
        let body = try json(#"{"device_id":"tok","location":[\#(location("2023-11-14T22:00:00Z", 51.5)),\#(location("2023-11-14T22:01:00Z", 95))]}"#)
        #expect(OsmAndFormat.deviceToken(json: body) == "tok")
        let payload = OsmAndFormat.readJSON(body, token: "tok", now: testNow)
        #expect(payload.fixes.count == 1 && payload.fixes.first?.battery == 50)
        #expect(payload.unusable.map(\.error.code) == [.invalidLocation])
    }

    @Test func aJSONBodyOfAnotherShapeIsUnusable() throws {
        #expect(OsmAndFormat.readJSON(try json("42"), token: "tok", now: testNow).unusable.map(\.error.code) == [.invalidBody])
        #expect(OsmAndFormat.readJSON(try json(#"["x"]"#), token: "tok", now: testNow).unusable.map(\.error.code) == [.invalidFix])
        #expect(OsmAndFormat.deviceToken(json: try json(#"{"location":{}}"#)) == nil)
    }

    // MARK: Overland

    @Test func overlandBadFeaturesAreUnusableWithTheFeatureAsSample() throws {
        let bad = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.4,37.7]},"properties":{"timestamp":"1999-01-01T00:00:00Z"}}"#
        let good = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.4,37.7]},"properties":{"timestamp":"2023-11-14T22:00:00Z","battery_level":0.9}}"#
        let payload = OverlandFormat.read(try json(#"{"locations":[\#(good),\#(bad)]}"#), now: testNow)
        #expect(payload.fixes.count == 1 && payload.fixes.first?.battery == 90)
        #expect(payload.unusable == [UnusableMessage(error: FixError(code: .timestampTooOld, message: "timestamp is before 2000-01-01T00:00:00.000Z"),
                                                     sample: try json(bad).serializedString())])
        #expect(OverlandFormat.read(try json(#"{"points":[]}"#), now: testNow).unusable.map(\.error.code) == [.invalidBody])
    }

    // MARK: Bounds

    @Test func samplesAreCutAtACharacterBoundary() {
        let long = String(repeating: "é", count: 600)  // 1,200 bytes
        let sample = UnusableMessage(error: FixError(code: .invalidBody, message: "x"), sample: long).sample
        #expect(sample.utf8.count <= UnusableMessage.maxSampleBytes && sample.hasSuffix("…"))
        #expect(sample.dropLast().allSatisfy { $0 == "é" })
        #expect(UnusableMessage.cut("short") == "short")
        #expect(RegionTransition(event: .enter, region: String(repeating: "ß", count: 150), timestamp: 0).region.utf8.count == 200)
    }

    @Test func theNewestBatteryWins() {
        let fixes = [Fix(longitude: 0, latitude: 0, timestamp: 30, battery: 50), Fix(longitude: 0, latitude: 0, timestamp: 20, battery: 70),
                     Fix(longitude: 0, latitude: 0, timestamp: 40)]
        #expect(BatteryReading.newest(in: fixes) == BatteryReading(percent: 50, timestamp: 30))
        #expect(BatteryReading(percent: 1, timestamp: 5).newer(than: BatteryReading(percent: 2, timestamp: 5)).percent == 1)
        #expect(BatteryReading(percent: 1, timestamp: 5).newer(than: BatteryReading(percent: 2, timestamp: 6)).percent == 2)
    }
}
