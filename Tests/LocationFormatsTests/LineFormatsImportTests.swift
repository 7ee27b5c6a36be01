import LocationFormats
import Testing

/// The formats of one record per line: this server's NDJSON export and the OwnTracks Recorder's
/// month files; and what the other readers learned for the round trip (GPX's `fod` extension,
/// GeoJSON's `null` vertex times).
@Suite struct LineFormatsImportTests {
    static let ndjson = """
        {"id":"gr:1554105600000:481000000:115000000","location":[11.5,48.1],"timestamp":"2019-04-01T08:00:00.000Z","accuracy":20,"altitude":520.5,"speed":3.3333333333333335,"heading":90,"battery":80}
        {"location":[11.6,48.2],"timestamp":"2019-04-01T08:01:00.000Z"}

        {"deviceId":"dev_x","location":[11.7,48.3],"timestamp":"2019-04-01T08:02:00.000Z","accuracy":5}\r
        {"location":[11.8,48.4],"timestamp":"2019-04-01T08:03:00.000Z"
        [1, 2]
        {"location":[500,48.4],"timestamp":"2019-04-01T08:04:00.000Z"}
        {"location":[11.9,48.5],"timestamp":"2019-04-01T08:05:00.000Z"}
        """

    @Test(arguments: [nil, 1, 7, 64])
    func ndjsonReadsEveryFieldBackExactly(chunk: Int?) throws {
        let (fixes, summary) = importText(Self.ndjson, chunk: chunk)
        #expect(summary.format == .ndjson)
        #expect(summary.points == 7 && summary.emitted == 4 && summary.rejected == 3)
        #expect(summary.sampleCodes == ["invalid_record", "invalid_fix", "invalid_location"])
        try #require(fixes.count == 4)
        #expect(fixes[0] == Fix(longitude: 11.5, latitude: 48.1, timestamp: april2019, accuracy: 20, altitude: 520.5,
                                speed: 12.0 * 1000 / 3600, heading: 90, battery: 80, clientID: "gr:1554105600000:481000000:115000000"))
        // No id derived: a fix without one stays without (a duplicate by its timestamp).
        #expect(fixes.map(\.clientID) == ["gr:1554105600000:481000000:115000000", nil, nil, nil])
        #expect(fixes[2].accuracy == 5 && fixes[2].longitude == 11.7)
    }

    @Test func aWholeFixOnOneLineIsNDJSONAndAPrettyOneIsNative() {
        let line = #"{"location":[11.5,48.1],"timestamp":"2019-04-01T08:00:00.000Z"}"#
        #expect(importText(line).summary.format == .ndjson)
        #expect(importText(line).fixes.first?.clientID == nil)
        let pretty = "{\n  \"location\": [11.5, 48.1],\n  \"timestamp\": \"2019-04-01T08:00:00.000Z\"\n}\n"
        #expect(importText(pretty).summary.format == .native)
        #expect(importText(pretty).fixes.first?.clientID == "fod:1554105600000:481000000:115000000")
        #expect(importText(#"{"locations": [{"location": [11.5, 48.1], "timestamp": 1554105600}]}"# + "\n").summary.format == .native)
        #expect(importText("{\"type\": \"FeatureCollection\", \"features\": []}\n{}").summary.stopped?.error.code == .invalidFile)
    }

    /// Lines as the Recorder writes them: `%s\t%-18s\t%s\n` (time, topic tag padded, message).
    static func recorderLine(_ time: String, _ tag: String, _ json: String) -> String {
        time + "\t" + tag + String(repeating: " ", count: max(0, 18 - tag.count)) + "\t" + json
    }

    static let recorder = [
        recorderLine("2015-08-24T08:40:01Z", "*", #"{"_type":"location","tid":"JJ","lat":48.858,"lon":2.294,"tst":1440405601,"acc":12,"alt":35,"vel":36,"cog":270,"batt":81,"t":"u"}"#),
        recorderLine("2015-08-24T08:41:00Z", "lwt", #"{"_type":"lwt","tst":1440405660}"#),
        recorderLine("2015-08-24T08:42:00Z", "event", #"{"_type":"transition","event":"leave","desc":"Home","tst":1440405720,"lat":48.858,"lon":2.294}"#),
        recorderLine("2015-08-24T08:43:00Z", "*", #"{"_type":"location","lat":48.86,"lon":2.3,"acc":-1,"vel":-1}"#),
        recorderLine("2015-08-24T08:44:00Z", "*", #"{"_type":"location","lat":48.86,"lon":2.3,"tst":1440405840,"acc":12"#),
        "not a recorder line",
        recorderLine("2015-08-24T08:45:00Z", "*", #"{"_type":"location","lat":95,"lon":2.3,"tst":1440405900}"#),
        recorderLine("2015-08-24T08:46:00Z", "waypoint", #"{"_type":"waypoint","desc":"Office","lat":48.87,"lon":2.31,"rad":50,"tst":1440405960}"#),
    ].joined(separator: "\n") + "\n"

    @Test(arguments: [nil, 1, 13])
    func recorderMonthFiles(chunk: Int?) throws {
        let (fixes, summary) = importText(Self.recorder, chunk: chunk)
        #expect(summary.format == .owntracksRecorder)
        #expect(summary.skipped == 3)
        #expect(summary.points == 5 && summary.emitted == 2)
        #expect(summary.sampleCodes == ["invalid_record", "invalid_record", "invalid_location"])
        try #require(fixes.count == 2)
        #expect(fixes[0] == Fix(longitude: 2.294, latitude: 48.858, timestamp: 1_440_405_601_000, accuracy: 12, altitude: 35,
                                speed: 10, heading: 270, battery: 81, clientID: nil))
        // No `tst`: the line's time, as the Recorder wrote it; -1 is OwnTracks' "unknown".
        #expect(fixes[1] == Fix(longitude: 2.3, latitude: 48.86, timestamp: 1_440_405_780_000, clientID: nil))
    }

    @Test func aTimeThenATabIsWhatMakesARecorderFile() {
        #expect(importText("2015-08-24T08:40:01Z\t*\t{}\n").summary.format == .owntracksRecorder)
        #expect(importText("2015-08-24T08:40:01Z\t*").summary.format == .owntracksRecorder)
        #expect(importText("2015-08-24 08:40:01\tnot\n").summary.stopped?.error.code == .unknownFormat)
        #expect(importText("2015-08-24T08:40:01Z").summary.stopped?.error.code == .unknownFormat)
    }

    @Test func gpxReadsTheFodExtensionBack() throws {
        let text = """
            <gpx version="1.1" creator="Find Our Devices" xmlns="http://www.topografix.com/GPX/1/1" xmlns:fod="urn:find-our-devices:gpx:1">
              <trk><trkseg>
                <trkpt lat="48.1" lon="11.5"><ele>520</ele><time>2019-04-01T08:00:00.000Z</time><extensions><fod:speed>3.3333333</fod:speed><fod:course>271.25</fod:course><fod:accuracy>4.5</fod:accuracy><fod:battery>80</fod:battery></extensions><hdop>9</hdop></trkpt>
                <trkpt lat="48.2" lon="11.6"><time>2019-04-01T08:01:00.000Z</time><hdop>2</hdop></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let (fixes, _) = importText(text)
        try #require(fixes.count == 2)
        #expect(fixes[0].speed == 3.3333333 && fixes[0].heading == 271.25 && fixes[0].accuracy == 4.5 && fixes[0].battery == 80)
        #expect(fixes[0].altitude == 520)
        #expect(fixes[1].accuracy == 10 && fixes[1].battery == nil)  // hdop × 5 m without the extension
    }

    @Test func geoJSONVerticesWithANullTimeAreNoFixes() throws {
        let text = """
            {"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"MultiLineString","coordinates":[[[179,-16],[180,-17]],[[-180,-17],[-179,-18]]]},
             "properties":{"kind":"track","coordTimes":[["2019-04-01T08:00:00.000Z",null],[null,"2019-04-01T08:01:00.000Z"]]}},
             {"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,1],[2,2]]},"properties":{}}]}
            """
        let (fixes, summary) = importText(text)
        #expect(fixes.map(\.timestamp) == [april2019, april2019 + 60_000])
        #expect(summary.points == 4 && summary.sampleCodes == ["missing_timestamp", "missing_timestamp"])
    }
}
