import LocationFormats
import Testing

/// Record limits and memory bounds of the streaming import, whatever the chunking (found by the
/// `historyimport` fuzzer, Fuzz/README.md).
@Suite struct ImportLimitTests {
    static let chunkings: [Int?] = [nil, 1, 7, 64]

    @Test func aCSVLineLongerThanTheLimitIsRejectedHoweverTheFileArrives() throws {
        let long = String(repeating: "x", count: 1_500)
        let text = """
        lat,lon,time,note
        48.1,11.5,2023-11-14T00:00:00Z,\(long)
        48.3,11.7,2023-11-14T00:02:00Z,"\(long)
        48.4,11.8,2023-11-14T00:03:00Z, still inside the quotes"
        48.2,11.6,2023-11-14T00:01:00Z,

        """
        for chunk in Self.chunkings {
            let (fixes, summary) = importText(text, chunk: chunk, options: importOptions(maxRecordBytes: 1024))
            #expect(summary.sampleCodes == ["record_too_large", "record_too_large"], "chunk \(String(describing: chunk))")
            #expect(fixes.map(\.latitude) == [48.2], "the quoted line break belongs to the long record, chunk \(String(describing: chunk))")
        }
    }

    /// Found by the `historyimport` fuzz target (`Fuzz/Corpus/historyimport/regress-csv-header-offset`):
    /// a text that is not CSV stopped "at byte" wherever the reader's window began, 0 when the
    /// file came at once, the header line's start when it came in pieces.
    @Test func aTextThatIsNotCSVStopsAtItsHeaderLineHoweverTheFileArrives() {
        let text = String(repeating: "z", count: 1_100) + "\n\nname,place\nx,y\n"
        for chunk in Self.chunkings {
            let (fixes, summary) = importText(text, chunk: chunk, options: importOptions(maxRecordBytes: 1024))
            #expect(fixes.isEmpty && summary.sampleCodes == ["record_too_large"], "chunk \(String(describing: chunk))")
            #expect(summary.stopped?.error.code == .unknownFormat && summary.stopped?.offset == 1_102,
                    "chunk \(String(describing: chunk)): \(String(describing: summary.stopped))")
        }
    }

    /// Found by the `historyimport` fuzz target (`Fuzz/Corpus/historyimport/regress-bom-after-blank`):
    /// a byte order mark after white space was content when the file came at once, but was taken
    /// for a mark (and the file for GPX) when the white space came in a chunk of its own.
    @Test func aByteOrderMarkCountsOnlyAtTheFileStartHoweverTheFileArrives() {
        // Offsets are the file's: the refused header starts after the skipped "\r", at byte 1.
        let text = "\r\u{FEFF}<gpx><trk><trkseg><trkpt lat=\"48.2\" lon=\"11.6\"><time>2023-11-14T00:01:00Z</time></trkpt></trkseg></trk></gpx>\n"
        for chunk in Self.chunkings {
            let (fixes, summary) = importText(text, chunk: chunk, options: importOptions(maxRecordBytes: 1024))
            #expect(fixes.isEmpty && summary.stopped?.error.code == .unknownFormat && summary.stopped?.offset == 1,
                    "chunk \(String(describing: chunk)): \(String(describing: summary.stopped))")
        }
        let marked = importText("\u{FEFF}<gpx><trk><trkseg><trkpt lat=\"48.2\" lon=\"11.6\"><time>2023-11-14T00:01:00Z</time></trkpt></trkseg></trk></gpx>", chunk: 1,
                                options: importOptions(maxRecordBytes: 1024))
        #expect(marked.fixes.map(\.latitude) == [48.2], "a mark at the start is still skipped")
    }

    @Test func aGPXPointLongerThanTheLimitStopsHoweverTheFileArrives() {
        let text = #"<gpx><trk><trkseg><trkpt lat="48.2" lon="11.6"><time>2023-11-14T00:01:00Z</time></trkpt>"#
            + #"<trkpt lat="48.1" lon="11.5"><time>2023-11-14T00:00:00Z</time><name>"# + String(repeating: "y", count: 1_500)
            + #"</name></trkpt></trkseg></trk></gpx>"#
        for chunk in Self.chunkings {
            let (fixes, summary) = importText(text, chunk: chunk, options: importOptions(maxRecordBytes: 1024))
            #expect(fixes.map(\.latitude) == [48.2], "chunk \(String(describing: chunk))")
            #expect(summary.stopped?.error.code == .limitExceeded && summary.stopped?.offset == 88, "chunk \(String(describing: chunk)): \(String(describing: summary.stopped))")
        }
        let comment = "<gpx><!--" + String(repeating: "z", count: 1_500) + "-->"
        for chunk in Self.chunkings {
            #expect(importText(comment, chunk: chunk, options: importOptions(maxRecordBytes: 1024)).summary.stopped?.error.code == .limitExceeded)
        }
        #expect(importText("<gpx><!-- short", options: importOptions(maxRecordBytes: 1024)).summary.stopped?.error.code == .truncatedFile)
    }

    @Test func semanticTimesAtTheEndsOfInt64DoNotTrap() throws {
        let text = """
        {"timelineObjects": [{"activitySegment": {
          "startLocation": {"latitudeE7": 481374000, "longitudeE7": 115755000},
          "endLocation": {"latitudeE7": 481500000, "longitudeE7": 115800000},
          "duration": {"startTimestampMs": -9223372036854775808, "endTimestampMs": 9223372036854775807},
          "waypointPath": {"waypoints": [{"latE7": 481400000, "lngE7": 115760000}]}}}]}
        """
        let (fixes, summary) = importText(text)
        #expect(fixes.isEmpty)
        #expect(summary.points == 3)
        #expect(summary.rejectedByCodeText == ["timestamp_too_old": 1, "invalid_timestamp": 1, "timestamp_in_future": 1])
    }

    @Test func aLargeMemberBeforeTheRecordsIsNotHeld() {
        let text = #"{"x": ["# + Array(repeating: "1", count: 3_000).joined(separator: ",")
            + #"], "locations": [{"latitudeE7": 481000000, "longitudeE7": 115000000, "timestamp": "2023-11-14T00:00:00Z"}]}"#
        var importer = HistoryImporter(options: importOptions(maxRecordBytes: 1024))
        let bytes = Array(text.utf8)
        var peak = 0, fixes: [Fix] = []
        for start in stride(from: 0, to: bytes.count, by: 64) {
            importer.append(Array(bytes[start..<min(bytes.count, start + 64)]))
            peak = max(peak, importer.bufferedBytes)
            while let batch = importer.nextBatch() { fixes += batch }
        }
        importer.finish()
        while let batch = importer.nextBatch() { fixes += batch }
        #expect(fixes.count == 1 && importer.summary.format == .googleRecords)
        #expect(peak <= 1024 + 2 * 64, "held \(peak) bytes")
    }
}
