import Exports
import JSONCore
import Testing

private typealias T = ExportTestSupport

@Suite("NDJSON export (every stored field, read back exactly)")
struct NDJSONExportTests {
    private func lines(_ points: [ExportPoint], includeDevice: Bool = false) -> [String] {
        var writer = NDJSONExport(includeDevice: includeDevice)
        var out: [UInt8] = []
        for point in points { writer.add(point, into: &out) }
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.isEmpty || text.hasSuffix("\n"))
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test("one line per fix, members in a fixed order, absent fields left out")
    func lineShape() {
        var full = T.fix("d1", lon: 151.2093048, lat: -33.8688197, minutes: 0, altitude: 58)
        full.details = ExportPointDetails(accuracy: 20, speed: 1.5, heading: 90, battery: 80, clientID: "gr:1:2:3")
        let bare = T.fix("d1", lon: 2, lat: 48, minutes: 1)
        #expect(lines([full, bare]) == [
            #"{"id":"gr:1:2:3","location":[151.2093048,-33.8688197],"timestamp":"2026-11-30T08:00:00.000Z","accuracy":20,"altitude":58,"speed":1.5,"heading":90,"battery":80}"#,
            #"{"location":[2,48],"timestamp":"2026-11-30T08:01:00.000Z"}"#,
        ])
        #expect(lines([bare], includeDevice: true) == [#"{"deviceId":"d1","location":[2,48],"timestamp":"2026-11-30T08:01:00.000Z"}"#])
    }

    @Test("numbers are the shortest text that parses back to the same double")
    func numbersRoundTrip() throws {
        let awkward: [Double] = [0.1, 1.0 / 3.0, 12.0 * 1000 / 3600, -0.0, Double.leastNonzeroMagnitude, 1e-7, 179.99999999999997, 48.137154,
                                 -33.8688197, 1e21, 123_456_789.123_456_78]
        for value in awkward {
            var point = T.fix("d", lon: 10, lat: 10)
            point.altitude = value
            point.details = ExportPointDetails(accuracy: value, speed: value, heading: value, battery: value)
            let line = try #require(lines([point]).first)
            let parsed = try JSONParser.parse(Array(line.utf8))
            for key in ["accuracy", "altitude", "speed", "heading", "battery"] {
                let back = try #require(parsed[key]?.doubleValue)
                #expect(back.bitPattern == value.bitPattern || (back == 0 && value == 0), "\(key) \(value) came back as \(back) from \(line)")
            }
        }
    }

    @Test("invalid coordinates are skipped and counted; non-finite measurements are left out")
    func invalid() {
        var writer = NDJSONExport()
        var out: [UInt8] = []
        writer.add(T.fix("d", lon: 200, lat: 1), into: &out)
        var point = T.fix("d", lon: 1, lat: 1)
        point.details.speed = .nan
        writer.add(point, into: &out)
        #expect(writer.skippedPointCount == 1 && writer.lineCount == 1)
        #expect(String(decoding: out, as: UTF8.self) == #"{"location":[1,1],"timestamp":"2026-11-30T08:00:00.000Z"}"# + "\n")
    }
}
