import Exports
import JSONCore
import Testing

private typealias T = ExportTestSupport

/// Three devices of two users, sorted by device id then time.
private let sortedByDevice: [ExportPoint] = [
    T.fix("d_1", lon: 4.9, lat: 52.37, minutes: 0, name: "Pixel, work", user: "u_ann", userName: "Ann"),
    T.fix("d_1", lon: 4.91, lat: 52.38, minutes: 5, name: "Pixel, work", user: "u_ann", userName: "Ann"),
    T.fix("d_2", lon: 2.35, lat: 48.85, minutes: 0, name: "Phone", user: "u_ann", userName: "Ann"),
    T.fix("d_3", lon: 13.4, lat: 52.52, minutes: 1, name: "Phone", user: "u_bob", userName: "Bob \"B\""),
]

@Suite("Scatter exports")
struct ScatterExportTests {
    @Test("JSON: series per device with key, name, unique label, palette colour and points")
    func jsonShape() {
        var writer = ScatterJSONExport(colorField: .device)
        var out: [UInt8] = []
        for point in sortedByDevice { writer.add(point, into: &out) }
        writer.finish(into: &out)
        let document = T.parseJSON(out)
        let series = document["series"]?.arrayValue ?? []
        #expect(series.map { $0["key"]?.stringValue } == ["d_1", "d_2", "d_3"])
        #expect(series.map { $0["name"]?.stringValue } == ["Pixel, work", "Phone", "Phone"])
        #expect(series.map { $0["label"]?.stringValue } == ["Pixel, work", "Phone", "Phone (d_3)"])
        let expected = ScatterPalette.assignColors(toKeys: ["d_1", "d_2", "d_3"])
        #expect(series.map { $0["color"]?.stringValue } == ["d_1", "d_2", "d_3"].map { expected[$0]?.hex })
        #expect(series.first?["points"] == [
            [4.9, 52.37, "2026-11-30T08:00:00.000Z"], [4.91, 52.38, "2026-11-30T08:05:00.000Z"],
        ])
        #expect(document["bbox"] == [2.35, 48.85, 13.4, 52.52])
        #expect(document["colorField"]?.stringValue == "device")
        #expect(writer.series.map(\.pointCount) == [2, 1, 1])
    }

    @Test("JSON: colouring by user merges that user's devices into one series")
    func jsonByUser() {
        var writer = ScatterJSONExport(colorField: .user)
        var out: [UInt8] = []
        // Sorted by user id: u_ann (d_1, d_2), then u_bob.
        for point in sortedByDevice { writer.add(point, into: &out) }
        writer.finish(into: &out)
        let series = T.parseJSON(out)["series"]?.arrayValue ?? []
        #expect(series.map { $0["name"]?.stringValue } == ["Ann", "Bob \"B\""])
        #expect(series.map { $0["points"]?.arrayValue?.count } == [3, 1])
    }

    @Test("JSON: no points gives empty series and a null bbox")
    func jsonEmpty() {
        var writer = ScatterJSONExport(colorField: .device)
        var out: [UInt8] = []
        writer.finish(into: &out)
        #expect(T.parseJSON(out) == ["colorField": "device", "series": [], "bbox": nil])
    }

    @Test("CSV: header, CRLF records, RFC 4180 quoting, colour column")
    func csv() {
        var writer = ScatterCSVExport(colorField: .device)
        var out: [UInt8] = []
        var points = sortedByDevice
        points[3].deviceName = "Line\nbreak"
        for point in points { writer.add(point, into: &out) }
        writer.finish(into: &out)
        let text = String(decoding: out, as: UTF8.self)
        let colors = ScatterPalette.assignColors(toKeys: ["d_1", "d_2", "d_3"])
        let expected = [
            "lon,lat,timestamp,deviceId,deviceName,userId,displayName,color",
            "4.9,52.37,2026-11-30T08:00:00.000Z,d_1,\"Pixel, work\",u_ann,Ann,\(colors["d_1"]!.hex)",
            "4.91,52.38,2026-11-30T08:05:00.000Z,d_1,\"Pixel, work\",u_ann,Ann,\(colors["d_1"]!.hex)",
            "2.35,48.85,2026-11-30T08:00:00.000Z,d_2,Phone,u_ann,Ann,\(colors["d_2"]!.hex)",
            "13.4,52.52,2026-11-30T08:01:00.000Z,d_3,\"Line\nbreak\",u_bob,\"Bob \"\"B\"\"\",\(colors["d_3"]!.hex)",
        ].joined(separator: "\r\n") + "\r\n"
        #expect(text == expected)
    }

    @Test("CSV: the header alone when there are no points")
    func csvEmpty() {
        var writer = ScatterCSVExport(colorField: .user)
        var out: [UInt8] = []
        writer.finish(into: &out)
        writer.finish(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "lon,lat,timestamp,deviceId,deviceName,userId,displayName,color\r\n")
    }

    @Test("Vega-Lite: schema, basemap geoshape layer, circle layer, encodings, scale, projection fit")
    func vegaLite() throws {
        let basemap = try Basemap.parse(Array(#"""
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Box"},
            "geometry":{"type":"Polygon","coordinates":[[[0,40],[20,40],[20,60],[0,60],[0,40]]]}}]}
            """#.utf8))
        var writer = VegaLiteExport(colorField: .device, basemap: basemap,
                                    options: .init(title: "Group \"A\"", projection: .mercator))
        var out: [UInt8] = []
        for point in sortedByDevice { writer.add(point, into: &out) }
        writer.finish(into: &out)
        let spec = T.parseJSON(out)
        #expect(spec["$schema"]?.stringValue == "https://vega.github.io/schema/vega-lite/v5.json")
        #expect(spec["title"]?.stringValue == "Group \"A\"")
        #expect(spec["width"]?.intValue == 800 && spec["height"]?.intValue == 450)
        let layers = spec["layer"]?.arrayValue ?? []
        #expect(layers.count == 3)
        #expect(layers.first?["data"] == ["sphere": true])
        #expect(layers.first?["mark"]?["type"]?.stringValue == "geoshape")

        let countries = layers[1]
        #expect(countries["mark"]?["type"]?.stringValue == "geoshape")
        #expect(countries["data"]?["format"] == ["type": "json", "property": "features"])
        #expect(countries["data"]?["values"]?["type"]?.stringValue == "FeatureCollection")
        #expect(countries["data"]?["values"]?["features"]?[0]?["properties"]?["name"]?.stringValue == "Box")

        let circles = layers.last
        #expect(circles?["mark"]?["type"]?.stringValue == "circle")
        let values = circles?["data"]?["values"]?.arrayValue ?? []
        #expect(values.count == 4)
        #expect(values.first == [
            "lon": 4.9, "lat": 52.37, "timestamp": "2026-11-30T08:00:00.000Z",
            "device": "Pixel, work", "user": "Ann", "color": "Pixel, work",
        ])
        let encoding = circles?["encoding"]
        #expect(encoding?["longitude"] == ["field": "lon", "type": "quantitative"])
        #expect(encoding?["latitude"] == ["field": "lat", "type": "quantitative"])
        #expect(encoding?["color"]?["field"]?.stringValue == "color")
        #expect(encoding?["color"]?["legend"]?["title"]?.stringValue == "Device")
        let colors = ScatterPalette.assignColors(toKeys: ["d_1", "d_2", "d_3"])
        #expect(encoding?["color"]?["scale"] == [
            "domain": ["Pixel, work", "Phone", "Phone (d_3)"],
            "range": .array(["d_1", "d_2", "d_3"].map { .string(colors[$0]!.hex) }),
        ])
        #expect(encoding?["tooltip"]?.arrayValue?.compactMap { $0["field"]?.stringValue } == ["device", "user", "timestamp"])

        let projection = spec["projection"]
        #expect(projection?["type"]?.stringValue == "mercator")
        #expect(projection?["fit"]?["geometry"]?["type"]?.stringValue == "MultiPoint")
        let fitPoints = T.allPositions(in: projection?["fit"]?["geometry"]?["coordinates"] ?? .null)
        #expect(fitPoints.count == 9)
        // The fit box covers the data with a margin.
        #expect(fitPoints.map { $0[0] }.min()! < 2.35 && fitPoints.map { $0[0] }.max()! > 13.4)
        #expect(fitPoints.map { $0[1] }.min()! < 48.85 && fitPoints.map { $0[1] }.max()! > 52.52)
        #expect(projection?["rotate"]?[0]?.doubleValue.map { abs($0 + 7.875) < 1e-6 } == true)
    }

    @Test("Vega-Lite: without basemap or points the spec is still complete")
    func vegaLiteMinimal() {
        var writer = VegaLiteExport(colorField: .user)
        var out: [UInt8] = []
        writer.finish(into: &out)
        let spec = T.parseJSON(out)
        #expect(spec["layer"]?.arrayValue?.count == 2)
        #expect(spec["layer"]?[1]?["data"]?["values"] == [])
        #expect(spec["projection"] == ["type": "equalEarth"])
        #expect(spec["layer"]?[1]?["encoding"]?["color"]?["legend"] == .null)
        #expect(spec["layer"]?[1]?["encoding"]?["color"]?["title"]?.stringValue == "User")
    }
}
