import LocationFormats
import Testing

/// A small Records.json as Takeout writes it (fields from the published export format).
let recordsJSON = """
{
  "locations": [{
    "latitudeE7": 481234567,
    "longitudeE7": 115678901,
    "accuracy": 13,
    "altitude": 520,
    "verticalAccuracy": 3,
    "velocity": 2,
    "heading": 270,
    "activity": [{"activity": [{"type": "STILL", "confidence": 100}], "timestamp": "2019-04-01T08:00:01Z"}],
    "source": "WIFI",
    "deviceTag": 1234567,
    "batteryCharging": false,
    "platformType": "ANDROID",
    "timestamp": "2019-04-01T08:00:00.000Z"
  }, {
    "timestampMs": "1554105660000",
    "latitudeE7": 481234600,
    "longitudeE7": 115679000,
    "accuracy": 20
  }, {
    "latitudeE7": -338688197,
    "longitudeE7": 4287974419,
    "timestamp": "2019-04-01T08:02:00+02:00"
  }]
}
"""

@Suite struct GoogleRecordsImportTests {
    @Test func readsRecordsWithUnitsNormalised() throws {
        let (fixes, summary) = importText(recordsJSON)
        #expect(summary.format == .googleRecords)
        #expect(summary.stopped == nil)
        #expect(summary.points == 3 && summary.emitted == 3 && summary.rejected == 0)
        try #require(fixes.count == 3)
        #expect(fixes[0].latitude == 48.1234567 && fixes[0].longitude == 11.5678901)
        #expect(fixes[0].timestamp == april2019)
        #expect(fixes[0].accuracy == 13 && fixes[0].altitude == 520 && fixes[0].speed == 2 && fixes[0].heading == 270)
        #expect(fixes[0].battery == nil)
        #expect(fixes[1].timestamp == april2019 + 60_000)
        // 4287974419 is Google's unsigned form of −7 … : 4287974419 − 2³² = −6992877.
        #expect(approximatelyEqual(fixes[2].longitude, -0.6992877))
        #expect(fixes[2].timestamp == april2019 + 120_000 - 7_200_000)
        #expect(fixes[0].clientID == "gr:1554105600000:481234567:115678901")
    }

    @Test func chunkingDoesNotChangeTheResult() {
        let whole = importText(recordsJSON)
        for chunk in [1, 2, 7, 64, 500] {
            let pieces = importText(recordsJSON, chunk: chunk)
            #expect(pieces.fixes == whole.fixes, "chunk \(chunk)")
            #expect(pieces.summary.points == whole.summary.points)
        }
    }

    @Test func rejectsBadRecordsWithNativeMessagesAndKeepsGoing() throws {
        let text = """
        {"locations": [
          {"latitudeE7": 950000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"},
          {"latitudeE7": "48.1", "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"},
          {"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": 1554105600},
          {"latitudeE7": 481000000, "longitudeE7": 115000000, "timestampMs": "99999999999999999999"},
          {"latitudeE7": 481000000, "longitudeE7": 115000000},
          {"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z", "accuracy": -5},
          {"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z", "velocity": 1e308},
          {"latitudeE7": 1e400, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"},
          {"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "1999-12-31T23:59:59Z"},
          42,
          {"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"}
        ]}
        """
        let options = ImportOptions(now: testNow, maxSamples: 20, maxSamplesPerCode: 5)
        let (fixes, summary) = importText(text, options: options)
        #expect(summary.stopped == nil)
        #expect(fixes.count == 1)
        #expect(summary.points == 11 && summary.rejected == 10)
        #expect(summary.samples.map(\.index) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(summary.sampleCodes == ["invalid_location", "invalid_location", "invalid_timestamp", "invalid_timestamp",
                                        "missing_timestamp", "invalid_accuracy", "invalid_speed", "invalid_location",
                                        "timestamp_too_old", "invalid_fix"])
        #expect(summary.samples[0].error.message == "longitude/latitude is out of bounds, lng: 11.5 lat: 95")
        #expect(summary.samples[6].error.message == "velocity must be a number from 0 to 1000 (m/s)")
        #expect(summary.rejectedByCodeText == ["invalid_location": 3, "invalid_timestamp": 2, "missing_timestamp": 1,
                                           "invalid_accuracy": 1, "invalid_speed": 1, "timestamp_too_old": 1, "invalid_fix": 1])
    }

    @Test func samplesAreBoundedPerCode() {
        let bad = Array(repeating: #"{"latitudeE7": 950000000, "longitudeE7": 1, "timestamp": "2019-04-01T08:00:00Z"}"#, count: 50)
        let (_, summary) = importText(#"{"locations": ["# + bad.joined(separator: ",") + "]}")
        #expect(summary.rejected == 50)
        #expect(summary.samples.count == 3)
        #expect(summary.samples.map(\.index) == [0, 1, 2])
    }

    @Test func truncatedFileKeepsWhatCameBefore() {
        let cut = String(recordsJSON.prefix(recordsJSON.utf8.count - 60))
        for chunk: Int? in [nil, 5] {
            let (fixes, summary) = importText(cut, chunk: chunk)
            #expect(fixes.count == 2, "chunk \(String(describing: chunk))")
            #expect(summary.stopped?.error.code == .truncatedFile)
            #expect(summary.stopped?.error.message.contains("cut short") == true)
        }
    }

    @Test func malformedJSONStopsWithItsPosition() {
        let text = #"{"locations": [{"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"}, }"#
        let (fixes, summary) = importText(text)
        #expect(fixes.count == 1)
        #expect(summary.stopped?.error.code == .invalidFile)
        #expect(summary.stopped?.offset == text.utf8.count - 1)
    }

    @Test func bytesAfterAStopAreNotBuffered() {
        var importer = HistoryImporter(options: importOptions())
        importer.append(Array(#"{"locations": [}"#.utf8))
        while importer.nextBatch() != nil {}
        #expect(importer.summary.stopped?.error.code == .invalidFile)
        for _ in 0..<100 { importer.append(Array(repeating: 65, count: 10_000)) }
        #expect(importer.bufferedBytes < 100)
        #expect(importer.bytesAppended == 1_000_016)
    }

    @Test func deepNestingIsALimitNotACrash() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let text = #"{"locations": [{"latitudeE7": 1, "longitudeE7": 1, "activity": "# + deep + "}]}"
        let (fixes, summary) = importText(text)
        #expect(fixes.isEmpty)
        #expect(summary.stopped?.error.code == .limitExceeded)
        #expect(summary.stopped?.error.message.contains("nesting deeper than 64") == true)
    }

    @Test func mixedFormatsAreDetected() {
        let text = """
        {"locations": [{"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"}],
         "timelineObjects": [{"placeVisit": {}}]}
        """
        let (fixes, summary) = importText(text)
        #expect(fixes.count == 1)
        #expect(summary.format == .googleRecords)
        #expect(summary.stopped?.error.code == .mixedFormats)

        let elements = """
        {"locations": [{"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2019-04-01T08:00:00Z"},
                       {"location": [11.5, 48.1], "timestamp": "2019-04-01T08:00:00Z"}]}
        """
        #expect(importText(elements).summary.stopped?.error.code == .mixedFormats)
    }

    @Test func sameFileGivesSameClientIDs() {
        let first = importText(recordsJSON).fixes.map(\.clientID)
        let second = importText(recordsJSON, chunk: 3).fixes.map(\.clientID)
        #expect(first == second)
        #expect(Set(first.compactMap { $0 }).count == 3)
    }

    @Test func memoryStaysBoundedOnALongFile() {
        let record = #"{"latitudeE7": 481234567, "longitudeE7": 115678901, "accuracy": 13, "timestamp": "2019-04-01T08:00:00.000Z", "activity": [{"activity": [{"type": "STILL", "confidence": 100}]}]}"#
        var importer = HistoryImporter(options: ImportOptions(now: testNow, batchSize: 1000))
        importer.append(Array(#"{"locations": ["#.utf8))
        let chunk = Array(Array(repeating: record, count: 100).joined(separator: ",").utf8) + Array(",".utf8)
        var fixes = 0, peak = 0
        for _ in 0..<200 {
            importer.append(chunk)
            while let batch = importer.nextBatch() { fixes += batch.count }
            peak = max(peak, importer.bufferedBytes)
        }
        importer.append(Array((record + "]}").utf8))
        importer.finish()
        while let batch = importer.nextBatch() { fixes += batch.count }
        #expect(fixes == 20_001)
        #expect(importer.summary.stopped == nil)
        #expect(peak < chunk.count + 1024, "buffer \(peak) for chunks of \(chunk.count)")
    }

    @Test func nativeFixesRoundTrip() throws {
        let text = """
        {"locations": [{"location": [11.5, 48.1, 500], "timestamp": "2023-11-14T00:00:00.000Z", "accuracy": 5,
                        "speed": 1.5, "battery": 80, "id": "phone-1"},
                       {"location": [11.6, 48.2], "timestamp": 1699920060}],
         "nextCursor": null}
        """
        let (fixes, summary) = importText(text)
        #expect(summary.format == .native)
        try #require(fixes.count == 2)
        #expect(fixes[0] == Fix(longitude: 11.5, latitude: 48.1, timestamp: nov2023, accuracy: 5, altitude: 500,
                                speed: 1.5, battery: 80, clientID: "phone-1"))
        #expect(fixes[1].timestamp == nov2023 + 60_000)
        #expect(fixes[1].clientID == "fod:1699920060000:482000000:116000000")
    }
}
