import JSONCore
import Testing
@testable import LocationFormats

@Suite struct HistoryFileTests {
    func parsed(_ text: String, _ kind: HistoryFile.Kind) throws -> FixBatch {
        let objects = try HistoryFile.fixes(from: Array(text.utf8), kind: kind)
        return try NativeFormat.parse(.object(["locations": .array(objects)]), now: 1_800_000_000_000)
    }

    @Test func gpxTrackPointsWithTimeAndElevation() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>ride</name><trkseg>
              <trkpt lat="51.5782653" lon="16.116775"><ele>118.0</ele><time>2023-06-01T10:00:00Z</time></trkpt>
              <trkpt lon='16.1167411' lat='51.5782647'>
                <ele>119.5</ele>
                <time>2023-06-01T10:00:05.250Z</time>
              </trkpt>
              <trkpt lat="95" lon="16"><time>2023-06-01T10:00:10Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let batch = try parsed(gpx, .gpx)
        #expect(batch.fixes.count == 2 && batch.rejected.map(\.index) == [2])
        #expect(batch.fixes[0].fix.longitude == 16.116775 && batch.fixes[0].fix.altitude == 118)
        #expect(batch.fixes[1].fix.timestamp == 1_685_613_605_250 && batch.fixes[1].fix.altitude == 119.5)
    }

    /// Found by `Fuzz/History.swift` (round trip): track points were searched for first, so
    /// waypoints and route points before the track were dropped. Every point, in file order.
    @Test func gpxWaypointsRoutesAndTracksInFileOrder() throws {
        let gpx = """
            <gpx version="1.1" creator="test"><wpt lat="1" lon="2"><time>2023-06-01T10:00:00Z</time></wpt>
            <rte><rtept lat="3" lon="4"><time>2023-06-01T10:00:01Z</time></rtept></rte>
            <trk><trkseg><trkpt lat="5" lon="6"><time>2023-06-01T10:00:02Z</time></trkpt></trkseg></trk>
            <wpt lat="7" lon="8"/><wptExtension lat="9" lon="9"/></gpx>
            """
        let batch = try parsed(gpx, .gpx)
        #expect(batch.rejected.isEmpty)
        #expect(batch.fixes.map(\.fix.latitude) == [1, 3, 5, 7])
        #expect(batch.fixes.map(\.fix.longitude) == [2, 4, 6, 8])
        #expect(batch.fixes.map(\.fix.timestampWasGiven) == [true, true, true, false])
    }

    /// Found while fuzzing `Fuzz/History.swift`: every unclosed point searched the rest of the
    /// file for its close tag (400 of them took 1.8 s under the sanitizers). A point's close tag
    /// is searched for only up to the next point; unclosed points still count, without a time
    /// (as before).
    @Test func unclosedGPXPointsEndAtTheNextPoint() throws {
        let unclosed = String(repeating: "<wpt lat='1' lon='2'><time>2023-06-01T10:00:00Z</time>", count: 3)
        let gpx = "<gpx>" + unclosed + "<trkpt lat='3' lon='4'><time>2023-06-01T10:00:01Z</time></trkpt></gpx>"
        let batch = try parsed(gpx, .gpx)
        #expect(batch.fixes.map(\.fix.latitude) == [1, 1, 1, 3])
        #expect(batch.fixes.map(\.fix.timestampWasGiven) == [false, false, false, true])
    }

    @Test func geoJSONPointsAndTimedLineStrings() throws {
        let geojson = """
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"timestamp":"2023-06-01T10:00:00Z","id":"p1"}},
              {"type":"Feature","geometry":{"type":"LineString","coordinates":[[2.36,48.86,30],[2.37,48.87,31]]},
               "properties":{"coordTimes":["2023-06-01T10:01:00Z","2023-06-01T10:02:00Z"]}}]}
            """
        let batch = try parsed(geojson, .geojson)
        #expect(batch.fixes.count == 3)
        #expect(batch.fixes[0].fix.clientID == "p1")
        #expect(batch.fixes[2].fix.altitude == 31 && batch.fixes[2].fix.timestamp == 1_685_613_720_000)
        #expect(throws: FixError.self) { _ = try HistoryFile.fixes(from: Array("[1]".utf8), kind: .geojson) }
    }

    @Test func csvWithHeaderQuotesAndCRLF() throws {
        let csv = "Time,Latitude,Longitude,Altitude,Speed,ID\r\n2023-06-01T10:00:00Z,52.5,13.4,34,1.5,\"a,1\"\r\n1685613660,52.6,13.5,,,\r\n1685613720000,x,13.6,,,\r\n"
        let batch = try parsed(csv, .csv)
        #expect(batch.fixes.count == 2 && batch.rejected.map(\.index) == [2])
        #expect(batch.fixes[0].fix.clientID == "a,1" && batch.fixes[0].fix.speed == 1.5 && batch.fixes[0].fix.altitude == 34)
        #expect(batch.fixes[1].fix.timestamp == 1_685_613_660_000)
        #expect(throws: FixError.self) { _ = try HistoryFile.fixes(from: Array("a,b\n1,2\n".utf8), kind: .csv) }
    }

    @Test func kindsByExtension() {
        #expect(HistoryFile.kind(ofPath: "x.GPX") == .gpx)
        #expect(HistoryFile.kind(ofPath: "x.geojson") == .geojson)
        #expect(HistoryFile.kind(ofPath: "x.csv") == .csv)
        #expect(HistoryFile.kind(ofPath: "x.txt") == nil)
    }
}
