import LocationFormats
import Testing

@Suite struct FileFormatsImportTests {
    @Test func geoJSONPointsLinesAndOverlandProperties() throws {
        let text = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [11.5, 48.1, 520]},
           "properties": {"timestamp": "2023-11-14T00:00:00Z", "horizontal_accuracy": 8, "speed": -1, "course": 90,
                          "battery_level": 0.55, "motion": ["walking"]}},
          {"type": "Feature", "id": 7, "geometry": {"type": "LineString", "coordinates": [[11.5, 48.1], [11.6, 48.2], [11.7, 48.3]]},
           "properties": {"coordTimes": ["2023-11-14T00:01:00Z", "2023-11-14T00:02:00Z"]}},
          {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": []}, "properties": {}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [11.5, 48.1]}, "properties": {"time": 1699920000, "speed_kmh": 36}}
        ]}
        """
        let (fixes, summary) = importText(text, chunk: 9)
        #expect(summary.format == .geojson)
        #expect(summary.points == 6 && summary.emitted == 4)
        #expect(summary.sampleCodes == ["missing_timestamp", "invalid_fix"])
        try #require(fixes.count == 4)
        #expect(fixes[0] == Fix(longitude: 11.5, latitude: 48.1, timestamp: nov2023, accuracy: 8, altitude: 520,
                                heading: 90, battery: 55, clientID: "gj:1699920000000:481000000:115000000"))
        #expect(fixes[1].timestamp == nov2023 + 60_000 && fixes[1].clientID == "7")
        #expect(fixes[3].speed == 10)
    }

    @Test func aSingleFeatureAtTheRoot() {
        let text = #"{"properties": {"timestamp": "2023-11-14T00:00:00Z"}, "geometry": {"type": "Point", "coordinates": [1, 2]}, "type": "Feature"}"#
        let (fixes, summary) = importText(text, chunk: 4)
        #expect(summary.format == .geojson)
        #expect(fixes.map(\.latitude) == [2])
    }

    @Test func gpxTracksRoutesAndWaypoints() throws {
        let text = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
        <!-- exported <trkpt lat="0" lon="0"> in a comment is not a point -->
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <trk><name>Walk &amp; talk</name><trkseg>
            <trkpt lat="48.1" lon="11.5"><ele>520.5</ele><time>2023-11-14T00:00:00Z</time><hdop>2</hdop>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>1.5</gpxtpx:speed><gpxtpx:course>45</gpxtpx:course></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lon='11.6' lat='48.2'><time>2023-11-14T00:01:00Z</time></trkpt>
            <trkpt lat="95" lon="11.6"><time>2023-11-14T00:02:00Z</time></trkpt>
          </trkseg></trk>
          <rte><rtept lat="48.3" lon="11.7"><time>2023-11-14T00:03:00Z</time></rtept></rte>
          <wpt lat="48.4" lon="11.8"/>
        </gpx>
        """
        for chunk: Int? in [nil, 1, 17] {
            let (fixes, summary) = importText(text, chunk: chunk)
            #expect(summary.format == .gpx)
            #expect(summary.stopped == nil)
            #expect(summary.points == 5 && summary.emitted == 3, "chunk \(String(describing: chunk))")
            #expect(summary.sampleCodes == ["invalid_location", "missing_timestamp"])
            try #require(fixes.count == 3)
            #expect(fixes[0] == Fix(longitude: 11.5, latitude: 48.1, timestamp: nov2023, accuracy: 10, altitude: 520.5,
                                    speed: 1.5, heading: 45, clientID: "gpx:1699920000000:481000000:115000000"))
            #expect(fixes[1].longitude == 11.6 && fixes[2].latitude == 48.3)
        }
    }

    @Test func kmlAndOtherXMLAreNotGPX() {
        #expect(importText(#"<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"></kml>"#).summary.stopped?.error.code == .unknownFormat)
        let cut = importText(#"<gpx><trk><trkseg><trkpt lat="1" lon="2"><time>2023-11-14T00:00:00Z</ti"#)
        #expect(cut.summary.stopped?.error.code == .truncatedFile)
    }

    @Test func csvWithHeaderQuotesAndUnits() throws {
        let text = """
        \u{FEFF}Time;Latitude;Longitude;Speed_kmh;Battery_level;Note;ID\r
        2023-11-14 00:00:00;48.1;11.5;36;0.5;"a; quoted \"\"note\"\"\";a-1\r
        1699920060;48.2;11.6;;;"multi
        line";\r
        2023-11-14T00:02:00+01:00;abc;11.7;;;;\r
        ;48.3;11.8;;;;\r
        """
        for chunk: Int? in [nil, 1, 5] {
            let (fixes, summary) = importText(text, chunk: chunk)
            #expect(summary.format == .csv)
            #expect(summary.points == 4 && summary.emitted == 2, "chunk \(String(describing: chunk))")
            #expect(summary.sampleCodes == ["invalid_location", "missing_timestamp"])
            try #require(fixes.count == 2)
            #expect(fixes[0] == Fix(longitude: 11.5, latitude: 48.1, timestamp: nov2023, speed: 10, battery: 50, clientID: "a-1"))
            #expect(fixes[1].timestamp == nov2023 + 60_000 && fixes[1].clientID == "csv:1699920060000:482000000:116000000")
        }
    }

    @Test func unknownAndEmptyInputs() {
        #expect(importText("").summary.stopped?.error.code == .emptyFile)
        #expect(importText(" \n\t ").summary.stopped?.error.code == .emptyFile)
        var blanks = HistoryImporter(options: importOptions())
        for _ in 0..<100 { blanks.append(Array(repeating: 32, count: 10_000)) }
        #expect(blanks.bufferedBytes == 0, "leading white space is not kept")
        #expect(importText("hello world\nthis is text\n").summary.stopped?.error.code == .unknownFormat)
        #expect(importText(#"{"name": "not history", "items": [1, 2]}"#).summary.stopped?.error.code == .unknownFormat)
        #expect(importText("42").summary.stopped?.error.code == .unknownFormat)
        let trailing = importText(#"{"locations": []} {"locations": []}"#)
        #expect(trailing.summary.stopped?.error.code == .invalidFile)
        #expect(importText(#"{"locations": 5}"#).summary.stopped?.error.code == .invalidFile)
    }

    @Test func wrongTypesAreRejectedPerRecord() {
        let text = """
        [{"location": "here", "timestamp": "2023-11-14T00:00:00Z"},
         {"location": [11.5, 48.1], "timestamp": true},
         {"location": [11.5, 48.1], "timestamp": "2023-11-14T00:00:00Z", "accuracy": "good"},
         {"location": [11.5, 48.1], "timestamp": "2023-11-14T00:00:00Z", "id": 5},
         "text", null, [1, 2],
         {"location": [11.5, 48.1], "timestamp": "2023-11-14T00:00:00Z"}]
        """
        let options = ImportOptions(now: testNow, maxSamples: 20, maxSamplesPerCode: 10)
        let (fixes, summary) = importText(text, options: options)
        #expect(summary.format == .native)
        #expect(fixes.count == 1)
        #expect(summary.sampleCodes == ["invalid_location", "invalid_timestamp", "invalid_accuracy", "invalid_id",
                                        "invalid_fix", "invalid_fix", "invalid_fix"])
    }
}
