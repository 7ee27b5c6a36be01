import Foundation
import Exports
import JSONCore
import Testing

private typealias T = ExportTestSupport

/// Feeds latest positions, then track fixes, and returns the parsed document and raw bytes.
private func export(
    positions: [ExportPoint] = [], track: [ExportPoint] = [],
    layout: GeoJSONExport.TrackLayout = .multiLineString(gapMilliseconds: 30 * 60_000)
) -> (document: JSONValue, bytes: [UInt8]) {
    var writer = GeoJSONExport(trackLayout: layout)
    var out: [UInt8] = []
    for point in positions { writer.addPosition(point, into: &out) }
    for point in track { writer.addTrackPoint(point, into: &out) }
    writer.finish(into: &out)
    return (T.parseJSON(out), out)
}

private func features(_ document: JSONValue) -> [JSONValue] {
    document["features"]?.arrayValue ?? []
}

private func feature(_ document: JSONValue, kind: String, device: String) -> JSONValue? {
    features(document).first {
        $0["properties"]?["kind"]?.stringValue == kind && $0["properties"]?["deviceId"]?.stringValue == device
    }
}

@Suite("GeoJSON export (RFC 7946)")
struct GeoJSONExportTests {
    @Test("empty input gives a valid empty FeatureCollection without bbox")
    func emptyInput() {
        let (document, bytes) = export()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"type":"FeatureCollection","features":[]}"#)
        #expect(document["type"]?.stringValue == "FeatureCollection")
        #expect(document["bbox"] == nil)
    }

    @Test("one device with one fix: its latest position and the fix as Points, no degenerate track")
    func oneDeviceOneFix() {
        let fix = T.fix("d1", lon: 4.8951679, lat: 52.3702157, name: "Ann's phone", userName: "Ann")
        let (document, _) = export(positions: [fix], track: [fix])
        let all = features(document)
        #expect(all.count == 2)
        let point = feature(document, kind: "position", device: "d1")
        #expect(point?["type"]?.stringValue == "Feature")
        #expect(point?["geometry"]?["type"]?.stringValue == "Point")
        #expect(point?["geometry"]?["coordinates"] == [4.8951679, 52.3702157])
        let properties = point?["properties"]
        #expect(properties?["deviceId"]?.stringValue == "d1")
        #expect(properties?["deviceName"]?.stringValue == "Ann's phone")
        #expect(properties?["userId"]?.stringValue == "u_d1")
        #expect(properties?["displayName"]?.stringValue == "Ann")
        #expect(properties?["timestamp"]?.stringValue == "2026-11-30T08:00:00.000Z")
        let lone = feature(document, kind: "fix", device: "d1")
        #expect(lone?["geometry"] == point?["geometry"])
        #expect(lone?["properties"]?["timestamp"]?.stringValue == "2026-11-30T08:00:00.000Z")
        #expect(!all.contains { $0["geometry"]?["type"]?.stringValue?.contains("LineString") == true })
        #expect(document["bbox"] == [4.8951679, 52.3702157, 4.8951679, 52.3702157])
    }

    @Test("structure follows RFC 7946: types, [lon, lat] order, ranges, bbox, no crs")
    func rfc7946Rules() {
        let positions = [T.fix("a", lon: -74.0445, lat: 40.6892), T.fix("b", lon: 2.2945, lat: 48.8584, altitude: 35.25)]
        let track = [
            T.fix("a", lon: -74.0, lat: 40.7, minutes: 0), T.fix("a", lon: -73.99, lat: 40.71, minutes: 1),
            T.fix("a", lon: -73.98, lat: 40.72, minutes: 2),
            T.fix("b", lon: 2.29, lat: 48.85, minutes: 0, altitude: 30), T.fix("b", lon: 2.30, lat: 48.86, minutes: 5, altitude: 31),
        ]
        let (document, _) = export(positions: positions, track: track)
        #expect(document["type"]?.stringValue == "FeatureCollection")
        #expect(!T.allKeys(in: document).contains("crs"))
        let all = features(document)
        #expect(all.count == 4)
        for feature in all {
            #expect(feature["type"]?.stringValue == "Feature")
            #expect(feature["properties"]?.objectValue != nil)
            let type = feature["geometry"]?["type"]?.stringValue ?? ""
            #expect(["Point", "MultiLineString"].contains(type))
            for position in T.allPositions(in: feature["geometry"]?["coordinates"] ?? .null) {
                #expect((2...3).contains(position.count))
                #expect(abs(position[0]) <= 180 && abs(position[1]) <= 90)
            }
        }
        // Longitude first: New York is west (negative) and north (positive).
        let nyc = T.position(feature(document, kind: "position", device: "a")?["geometry"]?["coordinates"])
        #expect(nyc?.lon == -74.0445 && nyc?.lat == 40.6892)
        // Altitude, when known, is the third element.
        #expect(feature(document, kind: "position", device: "b")?["geometry"]?["coordinates"] == [2.2945, 48.8584, 35.25])
        #expect(document["bbox"] == [-74.0445, 40.6892, 2.30, 48.86])
        let trackB = feature(document, kind: "track", device: "b")
        #expect(trackB?["geometry"]?["coordinates"] == [[[2.29, 48.85, 30], [2.3, 48.86, 31]]])
        #expect(trackB?["properties"]?["start"]?.stringValue == "2026-11-30T08:00:00.000Z")
        #expect(trackB?["properties"]?["end"]?.stringValue == "2026-11-30T08:05:00.000Z")
        #expect(trackB?["properties"]?["pointCount"]?.intValue == 2)
    }

    @Test("coordinates keep at most 7 decimals, trailing zeros trimmed")
    func coordinatePrecision() {
        let (_, bytes) = export(positions: [T.fix("a", lon: 4.123456789, lat: -33.100000049)])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""coordinates":[4.1234568,-33.1]"#))
    }

    @Test("a gap longer than gapMilliseconds splits the track into MultiLineString parts")
    func gapSplitting() {
        let track = [
            T.fix("a", lon: 10.00, lat: 50.00, minutes: 0), T.fix("a", lon: 10.01, lat: 50.01, minutes: 1),
            T.fix("a", lon: 10.02, lat: 50.02, minutes: 2),
            // 2 h later: new part.
            T.fix("a", lon: 11.00, lat: 51.00, minutes: 122), T.fix("a", lon: 11.01, lat: 51.01, minutes: 123),
            // Exactly the gap (30 min) is not longer than it: same part.
            T.fix("a", lon: 11.02, lat: 51.02, minutes: 153),
        ]
        let (document, _) = export(track: track)
        let line = feature(document, kind: "track", device: "a")
        #expect(line?["geometry"]?["type"]?.stringValue == "MultiLineString")
        #expect(line?["geometry"]?["coordinates"] == [
            [[10, 50], [10.01, 50.01], [10.02, 50.02]],
            [[11, 51], [11.01, 51.01], [11.02, 51.02]],
        ])
        #expect(line?["properties"]?["pointCount"]?.intValue == 6)
    }

    @Test("a fix isolated by gaps on both sides is a Point of kind fix (a line needs 2 positions)")
    func isolatedFixIsAPoint() {
        let track = [
            T.fix("a", lon: 1, lat: 1, minutes: 0), T.fix("a", lon: 1.1, lat: 1.1, minutes: 1),
            T.fix("a", lon: 5, lat: 5, minutes: 100),
            T.fix("a", lon: 2, lat: 2, minutes: 200), T.fix("a", lon: 2.1, lat: 2.1, minutes: 201),
        ]
        let (document, _) = export(track: track)
        let line = feature(document, kind: "track", device: "a")
        #expect(line?["geometry"]?["coordinates"]?.arrayValue?.count == 2)
        #expect(line?["properties"]?["pointCount"]?.intValue == 4)
        #expect(line?["properties"]?["start"]?.stringValue == "2026-11-30T08:00:00.000Z")
        #expect(line?["properties"]?["end"]?.stringValue == "2026-11-30T11:21:00.000Z")
        let lone = feature(document, kind: "fix", device: "a")
        #expect(lone?["geometry"]?["type"]?.stringValue == "Point")
        #expect(lone?["geometry"]?["coordinates"] == [5, 5])
        #expect(lone?["properties"]?["timestamp"]?.stringValue == "2026-11-30T09:40:00.000Z")
        #expect(features(document).count == 2)
        #expect(document["bbox"] == [1, 1, 5, 5])
    }

    @Test("issue #45: one Sydney fix of 2013 between fixes in Europe is exported")
    func lonelySydneyFix() {
        let day: Double = 24 * 60
        let track = [
            T.fix("a", lon: 2.35, lat: 48.85, minutes: -400 * day), T.fix("a", lon: 2.36, lat: 48.86, minutes: -400 * day + 1),
            T.fix("a", lon: 151.2093, lat: -33.8688, minutes: -300 * day),
            T.fix("a", lon: 2.35, lat: 48.85, minutes: -200 * day), T.fix("a", lon: 2.36, lat: 48.86, minutes: -200 * day + 1),
        ]
        let (document, _) = export(track: track)
        let sydney = feature(document, kind: "fix", device: "a")
        #expect(sydney?["geometry"]?["coordinates"] == [151.2093, -33.8688])
        #expect(T.exportedFixes(document).count == track.count)
    }

    @Test("track LineStrings carry coordTimes parallel to their coordinates, null where no fix is")
    func coordTimes() {
        let track = [
            T.fix("a", lon: 179.0, lat: -16.0, minutes: 0), T.fix("a", lon: 179.5, lat: -16.5, minutes: 1),
            T.fix("a", lon: -179.5, lat: -17.5, minutes: 2), T.fix("a", lon: -179.0, lat: -18.0, minutes: 3),
            T.fix("a", lon: -178.0, lat: -18.0, minutes: 100), T.fix("a", lon: -177.0, lat: -18.0, minutes: 101),
        ]
        let (document, _) = export(track: track)
        let line = feature(document, kind: "track", device: "a")
        let t = { (minutes: Int) -> JSONValue in .string("2026-11-30T\(String(format: "%02d:%02d", 8 + minutes / 60, minutes % 60)):00.000Z") }
        #expect(line?["properties"]?["coordTimes"] == .array([
            [t(0), t(1), .null], [.null, t(2), t(3)], [t(100), t(101)],
        ]))
        for (part, times) in zip(line?["geometry"]?["coordinates"]?.arrayValue ?? [], line?["properties"]?["coordTimes"]?.arrayValue ?? []) {
            #expect(part.arrayValue?.count == times.arrayValue?.count)
        }
        let flat = export(track: Array(track.prefix(2)), layout: .lineString).document
        #expect(feature(flat, kind: "track", device: "a")?["properties"]?["coordTimes"] == [t(0), t(1)])
    }

    @Test("every fix comes out once: as a line vertex with its time or as a Point, whatever the gaps")
    func everyFixComesOut() {
        // A fixed scramble (Knuth's multiplicative hash) picks gaps around the 30-minute split
        // and positions anywhere, the antimeridian crossed often.
        func scramble(_ i: Int, _ salt: Int) -> Int { Int((UInt32(truncatingIfNeeded: i &* 7 &+ salt) &* 2_654_435_761) >> 8) }
        for layout in [GeoJSONExport.TrackLayout.multiLineString(gapMilliseconds: 30 * 60_000), .lineString] {
            var track: [ExportPoint] = []
            var minutes = 0.0
            var i = 0
            for (d, device) in ["a", "b", "c"].enumerated() {
                for _ in 0..<(1 + scramble(d, 1) % 300) {
                    i += 1
                    minutes += [1, 5, 29, 31, 120][scramble(i, 2) % 5]
                    track.append(T.fix(device, lon: Double(scramble(i, 3) % 36_000) / 100 - 180,
                                       lat: Double(scramble(i, 4) % 17_800) / 100 - 89, minutes: minutes))
                }
            }
            let (document, _) = export(track: track, layout: layout)
            let written = T.exportedFixes(document)
            #expect(written.sorted() == track.map { T.timeText($0.timestamp) }.sorted(), "\(layout)")
        }
    }

    @Test("many lone fixes while a line is open close it early: nothing is held without bound")
    func manyLoneFixes() {
        var track = [T.fix("a", lon: 1, lat: 1, minutes: 0), T.fix("a", lon: 1.1, lat: 1.1, minutes: 1)]
        for k in 0..<(GeoJSONExport.maxWaitingLoneFixes + 10) { track.append(T.fix("a", lon: 2, lat: 2, minutes: 100 + Double(k) * 60)) }
        let (document, _) = export(track: track)
        #expect(T.exportedFixes(document).count == track.count)
        #expect(features(document).filter { $0["properties"]?["kind"]?.stringValue == "fix" }.count == track.count - 2)
    }

    @Test("a track longer than a feature holds continues in the next feature from its last position")
    func longTrackContinues() {
        let count = GeoJSONExport.maxFeaturePositions + 500
        let track = (0..<count).map { T.fix("a", lon: Double($0 % 3600) / 20, lat: 10, minutes: Double($0) / 60) }
        let (document, _) = export(track: track)
        let lines = features(document).filter { $0["properties"]?["kind"]?.stringValue == "track" }
        #expect(lines.count == 2)
        let first: [JSONValue] = lines.first?["geometry"]?["coordinates"]?[0]?.arrayValue ?? []
        let second: [JSONValue] = lines.last?["geometry"]?["coordinates"]?[0]?.arrayValue ?? []
        #expect(first.count == GeoJSONExport.maxFeaturePositions)
        #expect(second.first == first.last)
        let continued: JSONValue? = lines.last?["properties"]?["coordTimes"]?[0]?[0]
        #expect(continued == JSONValue.null)
        #expect(lines.map { $0["properties"]?["pointCount"]?.intValue ?? 0 }.reduce(0, +) == count)
        #expect(T.exportedFixes(document).count == count)
    }

    @Test("lineString layout writes one LineString per device, never split")
    func lineStringLayout() {
        let track = [
            T.fix("a", lon: 1, lat: 1, minutes: 0), T.fix("a", lon: 2, lat: 2, minutes: 500),
            T.fix("b", lon: 3, lat: 3, minutes: 0), T.fix("b", lon: 4, lat: 4, minutes: 1),
        ]
        let (document, _) = export(track: track, layout: .lineString)
        #expect(features(document).count == 2)
        let a = feature(document, kind: "track", device: "a")
        #expect(a?["geometry"]?["type"]?.stringValue == "LineString")
        #expect(a?["geometry"]?["coordinates"] == [[1, 1], [2, 2]])
        #expect(feature(document, kind: "track", device: "b")?["geometry"]?["coordinates"] == [[3, 3], [4, 4]])
    }

    @Test("a track crossing the antimeridian is cut at ±180 and the bbox has west > east")
    func antimeridian() {
        let track = [
            T.fix("a", lon: 179.0, lat: -16.0, minutes: 0), T.fix("a", lon: 179.5, lat: -16.5, minutes: 1),
            T.fix("a", lon: -179.5, lat: -17.5, minutes: 2), T.fix("a", lon: -179.0, lat: -18.0, minutes: 3),
        ]
        let (document, _) = export(track: track)
        let line = feature(document, kind: "track", device: "a")
        #expect(line?["geometry"]?["coordinates"] == [
            [[179, -16], [179.5, -16.5], [180, -17]],
            [[-180, -17], [-179.5, -17.5], [-179, -18]],
        ])
        #expect(line?["properties"]?["pointCount"]?.intValue == 4)
        #expect(document["bbox"] == [179, -18, -179, -16])
    }

    @Test("invalid coordinates are skipped and counted, never written")
    func invalidPointsSkipped() {
        var writer = GeoJSONExport()
        var out: [UInt8] = []
        writer.addPosition(T.fix("a", lon: .nan, lat: 1), into: &out)
        writer.addTrackPoint(T.fix("a", lon: 200, lat: 1), into: &out)
        writer.addPosition(T.fix("b", lon: 1, lat: 1), into: &out)
        writer.finish(into: &out)
        #expect(writer.skippedPointCount == 2)
        #expect(writer.featureCount == 1)
        #expect(features(T.parseJSON(out)).count == 1)
    }

    @Test("1,000,000 track points stream with a small, constant retained buffer")
    func boundedMemory() {
        var writer = GeoJSONExport(trackLayout: .multiLineString(gapMilliseconds: 60_000))
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var emitted = 0
        var largestRetained = 0
        var largestChunk = 0
        for i in 0..<1_000_000 {
            let device = "device-\(i / 250_000)"
            // A new part every 1,000 fixes (a 2-minute pause).
            let minutes = Double(i) / 6 + Double(i / 1000) * 2
            writer.addTrackPoint(
                T.fix(device, lon: -180 + Double(i % 36_000) / 100, lat: Double(i % 1000) / 20, minutes: minutes), into: &out)
            if i % 10_000 == 9_999 {
                largestRetained = max(largestRetained, writer.retainedByteCount)
                largestChunk = max(largestChunk, out.count)
                emitted += out.count
                out.removeAll(keepingCapacity: true)
            }
        }
        writer.finish(into: &out)
        emitted += out.count
        // The times of one feature's 10,000 vertices (80 KB), the bbox bins and a small buffer.
        #expect(largestRetained < 128 * 1024, "writer retained \(largestRetained) bytes")
        // Output leaves as it is produced: each drained chunk holds ~10,000 positions' worth.
        #expect(largestChunk < 10_000 * 48, "largest chunk \(largestChunk) bytes")
        #expect(emitted > 1_000_000 * 12)
        // 4 devices of 250,000 fixes, 10,000 vertices a feature.
        #expect(writer.featureCount == 4 * 25)
    }
}
