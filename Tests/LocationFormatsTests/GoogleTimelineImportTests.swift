import LocationFormats
import Testing

/// Semantic Location History as Takeout writes it (one month file), written by hand from the
/// published field list.
let semanticJSON = """
{"timelineObjects": [
  {"activitySegment": {
     "startLocation": {"latitudeE7": 481374000, "longitudeE7": 115755000, "sourceInfo": {"deviceTag": 1}},
     "endLocation": {"latitudeE7": 481500000, "longitudeE7": 115800000},
     "duration": {"startTimestamp": "2019-04-01T08:00:00Z", "endTimestamp": "2019-04-01T08:30:00.000Z"},
     "distance": 1500, "activityType": "WALKING", "confidence": "HIGH",
     "waypointPath": {"waypoints": [{"latE7": 481400000, "lngE7": 115760000}, {"latE7": 481450000, "lngE7": 115780000}], "source": "INFERRED"},
     "simplifiedRawPath": {"points": [{"latE7": 481420000, "lngE7": 115770000, "accuracyMeters": 12, "timestamp": "2019-04-01T08:10:00Z"}]}
  }},
  {"placeVisit": {
     "location": {"latitudeE7": 481500000, "longitudeE7": 115800000, "placeId": "ChIJ", "address": "Marienplatz", "name": "Cafe"},
     "duration": {"startTimestampMs": "1554107400000", "endTimestampMs": "1554111000000"},
     "placeConfidence": "HIGH_CONFIDENCE", "centerLatE7": 481500100, "centerLngE7": 115800100
  }},
  {"placeVisit": {"location": {"latitudeE7": 481500000, "longitudeE7": 115800000}, "duration": {"startTimestamp": "yesterday"}}},
  {"somethingElse": {}}
]}
"""

@Suite struct GoogleTimelineImportTests {
    @Test func semanticLocationHistory() throws {
        let (fixes, summary) = importText(semanticJSON)
        #expect(summary.format == .googleSemantic)
        #expect(summary.stopped == nil)
        // Segment: start, 2 waypoints, 1 raw point, end; visit: start and end; bad visit; unknown object.
        #expect(summary.points == 9 && summary.emitted == 7)
        #expect(summary.sampleCodes == ["invalid_timestamp", "invalid_record"])
        try #require(fixes.count == 7)
        #expect(fixes[0].latitude == 48.1374 && fixes[0].longitude == 11.5755 && fixes[0].timestamp == april2019)
        #expect(fixes[1].timestamp == april2019 + 600_000, "waypoints evenly spaced between start and end")
        #expect(fixes[2].timestamp == april2019 + 1_200_000)
        #expect(fixes[3].accuracy == 12 && fixes[3].timestamp == april2019 + 600_000)
        #expect(fixes[4].timestamp == april2019 + 1_800_000)
        #expect(fixes[5].timestamp == 1_554_107_400_000 && fixes[6].timestamp == 1_554_111_000_000)
        #expect(fixes[5].latitude == 48.15 && fixes[5].longitude == 11.58)
        #expect(fixes[5].clientID == "gs:1554107400000:481500000:115800000")
    }

    @Test func androidTimelineExport() throws {
        let text = """
        {"semanticSegments": [
           {"startTime": "2023-04-01T10:00:00.000+02:00", "endTime": "2023-04-01T11:00:00.000+02:00",
            "timelinePath": [{"point": "48.1374°, 11.5755°", "time": "2023-04-01T10:05:00.000+02:00"},
                             {"point": "48.14°, 11.58°", "time": "2023-04-01T10:10:00.000+02:00"}]},
           {"startTime": "2023-04-01T11:00:00.000+02:00", "endTime": "2023-04-01T12:00:00.000+02:00",
            "startTimeTimezoneUtcOffsetMinutes": 120,
            "visit": {"hierarchyLevel": 0, "probability": 0.9,
                      "topCandidate": {"placeId": "ChIJ", "semanticType": "HOME", "probability": 0.8,
                                       "placeLocation": {"latLng": "48.15°, 11.59°"}}}},
           {"startTime": "2023-04-01T12:00:00.000+02:00", "endTime": "2023-04-01T12:30:00.000+02:00",
            "activity": {"start": {"latLng": "48.15°, 11.59°"}, "end": {"latLng": "-33.8688°, 151.2093°"},
                         "distanceMeters": 1234.5, "topCandidate": {"type": "WALKING", "probability": 0.9}}},
           {"startTime": "2023-04-01T13:00:00.000+02:00", "endTime": "2023-04-01T13:30:00.000+02:00",
            "timelinePath": [{"point": "148.1°, 11.5°", "time": "2023-04-01T13:05:00.000+02:00"},
                             {"point": "somewhere", "time": "2023-04-01T13:06:00.000+02:00"}]}
         ],
         "rawSignals": [
           {"position": {"LatLng": "48.1374°, 11.5755°", "accuracyMeters": 13, "altitudeMeters": 520.5,
                         "source": "WIFI", "timestamp": "2023-04-01T10:05:30.000+02:00", "speedMetersPerSecond": 1.25}},
           {"wifiScan": {"deliveryTime": "2023-04-01T10:05:30.000+02:00", "devicesRecords": []}},
           {"activityRecord": {"probableActivities": [], "timestamp": "2023-04-01T10:05:30.000+02:00"}}
         ],
         "userLocationProfile": {"frequentPlaces": [{"placeId": "ChIJ", "placeLocation": "48.15°, 11.59°"}]}}
        """
        let base: Int64 = 1_680_336_000_000  // 2023-04-01T08:00:00Z
        let (fixes, summary) = importText(text)
        #expect(summary.format == .googleTimeline)
        #expect(summary.stopped == nil)
        #expect(summary.points == 9 && summary.emitted == 7)
        #expect(summary.samples.map(\.error.message) == ["longitude/latitude is out of bounds, lng: 11.5 lat: 148.1",
                                                          "point must be a point written \"48.1°, 11.5°\" or \"geo:48.1,11.5\": \"somewhere\""])
        try #require(fixes.count == 7)
        #expect(fixes[0].latitude == 48.1374 && fixes[0].longitude == 11.5755 && fixes[0].timestamp == base + 300_000)
        #expect(fixes[2].timestamp == base + 3_600_000 && fixes[3].timestamp == base + 7_200_000, "a visit at both ends")
        #expect(fixes[5].latitude == -33.8688 && fixes[5].longitude == 151.2093)
        let raw = fixes[6]
        #expect(raw.accuracy == 13 && raw.altitude == 520.5 && raw.speed == 1.25 && raw.timestamp == base + 330_000)
    }

    @Test func iosTimelineExport() throws {
        let text = """
        [{"endTime": "2023-04-01T11:00:00.000+02:00", "startTime": "2023-04-01T10:00:00.000+02:00",
          "visit": {"hierarchyLevel": "0", "topCandidate": {"probability": "0.9", "semanticType": "Home",
                    "placeID": "ChIJ", "placeLocation": "geo:48.150000,11.590000"}, "probability": "0.8"}},
         {"endTime": "2023-04-01T12:00:00.000+02:00", "startTime": "2023-04-01T11:00:00.000+02:00",
          "activity": {"probability": "0.9", "end": "geo:48.200000,11.600000", "topCandidate": {"type": "walking"},
                       "distanceMeters": "100", "start": "geo:48.150000,11.590000"}},
         {"endTime": "2023-04-01T13:00:00.000+02:00", "startTime": "2023-04-01T12:00:00.000+02:00",
          "timelinePath": [{"point": "geo:48.210000,11.610000", "durationMinutesOffsetFromStartTime": "12"}]}]
        """
        let base: Int64 = 1_680_336_000_000
        let (fixes, summary) = importText(text, chunk: 13)
        #expect(summary.format == .googleTimeline)
        #expect(summary.points == 5 && summary.rejected == 0)
        try #require(fixes.count == 5)
        #expect(fixes[0].latitude == 48.15 && fixes[0].longitude == 11.59 && fixes[0].timestamp == base)
        #expect(fixes[4].latitude == 48.21 && fixes[4].timestamp == base + 7_200_000 + 720_000)
    }

    @Test func aRecordLargerThanTheLimitIsSkipped() {
        let big = String(repeating: #"{"point": "48.1°, 11.5°", "time": "2023-04-01T10:05:00.000+02:00"},"#, count: 40)
        let text = """
        {"semanticSegments": [
          {"startTime": "2023-04-01T10:00:00Z", "timelinePath": [\(big.dropLast())]},
          {"startTime": "2023-04-01T10:00:00Z", "visit": {"topCandidate": {"placeLocation": {"latLng": "48.1°, 11.5°"}}}}
        ]}
        """
        let (fixes, summary) = importText(text, chunk: 100, options: importOptions(maxRecordBytes: 1024))
        #expect(summary.stopped == nil)
        #expect(summary.sampleCodes == ["record_too_large"])
        #expect(fixes.count == 1)
    }
}
