import Exports
import Foundation
import Testing

private typealias T = ExportTestSupport

@Suite("SVG scatter map and basemap")
struct SVGScatterMapTests {
    private static let smallBasemap = Array(#"""
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"name":"Square"},
          "geometry":{"type":"Polygon","coordinates":[[[4,51],[6,51],[6,53],[4,53],[4,51]],[[4.5,51.5],[5,51.5],[5,52],[4.5,51.5]]]}},
         {"type":"Feature","properties":{"name":"Islands"},
          "geometry":{"type":"MultiPolygon","coordinates":[[[[179,-17],[180,-17],[180,-16],[179,-17]]],[[[-180,-17],[-179,-17],[-180,-16],[-180,-17]]]]}},
         {"type":"Feature","properties":{"name":"A city"},"geometry":{"type":"Point","coordinates":[4.9,52.4]}},
         {"type":"Feature","properties":{"name":"Nothing"},"geometry":null}]}
        """#.utf8)

    private func render(_ points: [ExportPoint], basemap: Basemap?, title: String = "Group positions",
                        options: (inout SVGScatterMap.Options) -> Void = { _ in }) -> (svg: [UInt8], map: SVGScatterMap) {
        var accumulator = GeoBoundsAccumulator()
        for point in points { accumulator.add(longitudeDegrees: point.longitude, latitudeDegrees: point.latitude) }
        var settings = SVGScatterMap.Options(title: title)
        options(&settings)
        var map = SVGScatterMap(bounds: accumulator.bounds, colorField: .device, basemap: basemap, options: settings)
        var out: [UInt8] = []
        for point in points { map.add(point, into: &out) }
        map.finish(into: &out)
        return (out, map)
    }

    @Test("xmllint is installed (libxml2-utils): the XML tests depend on it")
    func xmllintPresent() {
        #expect(FileManager.default.isExecutableFile(atPath: T.xmllintPath),
                "install libxml2-utils: apt-get install -y libxml2-utils")
    }

    @Test("well-formed SVG with escaped text, points per series, legend and scale bar")
    func wellFormed() throws {
        let points = [
            T.fix("d_1", lon: 4.90, lat: 52.37, name: "Tom & Jerry <1>"),
            T.fix("d_1", lon: 4.95, lat: 52.40, name: "Tom & Jerry <1>"),
            T.fix("d_2", lon: 4.80, lat: 52.30, name: "\"Quoted\" 'name'\u{7}"),
        ]
        let (svg, map) = render(points, basemap: try Basemap.parse(Self.smallBasemap), title: "Trips <today> & more")
        let lint = try T.xmllint(svg)
        #expect(lint.status == 0, "\(lint.output)")
        let text = String(decoding: svg, as: UTF8.self)
        #expect(text.contains(#"<svg xmlns="http://www.w3.org/2000/svg" width="960" height="540" viewBox="0 0 960 540""#))
        #expect(text.contains("<title>Trips &lt;today&gt; &amp; more</title>"))
        #expect(text.components(separatedBy: "<circle cx=").count - 1 == 3 + 2)  // points + legend dots
        #expect(text.contains(">Tom &amp; Jerry &lt;1&gt;</text>"))
        #expect(text.contains(">&quot;Quoted&quot; &apos;name&apos;\u{FFFD}</text>"))
        let colors = ScatterPalette.assignColors(toKeys: ["d_1", "d_2"])
        #expect(text.contains("<g fill=\"\(colors["d_1"]!.hex)\">"))
        #expect(text.contains("<g fill=\"\(colors["d_2"]!.hex)\">"))
        #expect(text.contains(">Device</text>"))
        #expect(text.contains("fill-rule=\"evenodd\""))  // the square with its hole
        #expect(map.pointCount == 3)
        #expect(map.series.map(\.label) == ["Tom & Jerry <1>", "\"Quoted\" 'name'\u{7}"])
    }

    @Test("the projection fits the data: every point lands inside the canvas")
    func fitted() throws {
        let points = (0..<50).map { i in
            T.fix("d_\(i % 3)", lon: 178 + Double(i) * 0.08, lat: -18 + Double(i % 7) * 0.3)  // crosses ±180
        }.map { point -> ExportPoint in
            var wrapped = point
            if wrapped.longitude > 180 { wrapped.longitude -= 360 }
            return wrapped
        }.sorted { ($0.deviceID, $0.timestamp) < ($1.deviceID, $1.timestamp) }
        let (svg, _) = render(points, basemap: try Basemap.parse(Self.smallBasemap))
        #expect(try T.xmllint(svg).status == 0)
        let text = String(decoding: svg, as: UTF8.self)
        let circles = text.components(separatedBy: "<circle cx=\"").dropFirst().prefix(50)
        #expect(circles.count == 50)
        for circle in circles {
            let x = Double(circle.prefix { $0 != "\"" }) ?? -1
            let y = Double(circle.components(separatedBy: "cy=\"")[1].prefix { $0 != "\"" }) ?? -1
            #expect(x >= 24 && x <= 960 - 24, "x \(x)")
            #expect(y >= 64 && y <= 540 - 44, "y \(y)")
        }
        // Both halves of the island straddling ±180 are drawn next to the data.
        #expect(text.components(separatedBy: "<path fill-rule").count - 1 >= 2)
    }

    @Test("the scale bar uses the 6,378,100 m sphere and a round length")
    func scaleBar() throws {
        // 1° of latitude tall box at the equator: 111,319 m over the plot height.
        let points = [T.fix("a", lon: 0, lat: 0), T.fix("a", lon: 0.2, lat: 1)]
        let (svg, _) = render(points, basemap: nil)
        let text = String(decoding: svg, as: UTF8.self)
        // Plot height 540 − 64 − 44 = 432 px for 1.12° (6% margin each side): 288.6 m/px; a
        // bar of at most 240 px is at most 69 km, rounded down to 50 km.
        #expect(text.contains(">50 km</text>"))
        #expect(text.contains(">0</text>"))
        #expect(try T.xmllint(svg).status == 0)
    }

    @Test("no points: a world map with a notice, still well-formed")
    func empty() throws {
        let basemap = try Basemap.parse(T.countriesGeoJSON())
        let (svg, map) = render([], basemap: basemap) { $0.attribution = "Basemap: Natural Earth" }
        #expect(try T.xmllint(svg).status == 0)
        let text = String(decoding: svg, as: UTF8.self)
        #expect(text.contains("No positions to show"))
        #expect(text.contains("Basemap: Natural Earth"))
        #expect(map.series.isEmpty)
        #expect(text.components(separatedBy: "<path fill-rule").count - 1 > 150)
    }

    @Test("many series: the legend lists the first entries and counts the rest")
    func legendOverflow() throws {
        let points = (0..<30).map { T.fix(String(format: "d_%02d", $0), lon: Double($0), lat: 10) }
        let (svg, _) = render(points, basemap: nil) { $0.maximumLegendEntries = 10 }
        let text = String(decoding: svg, as: UTF8.self)
        #expect(text.contains(">+ 20 more</text>"))
        #expect(text.components(separatedBy: "r=\"5\"").count - 1 == 10)
        #expect(try T.xmllint(svg).status == 0)
    }

    @Test("Basemap.parse reads Polygon and MultiPolygon features and skips others")
    func basemapParse() throws {
        let basemap = try Basemap.parse(Self.smallBasemap)
        #expect(basemap.polygons.count == 3)
        #expect(basemap.polygons[0].rings.count == 2)
        #expect(basemap.polygons[0].longitudeRange == 4...6 && basemap.polygons[0].latitudeRange == 51...53)
        #expect(basemap.featureCollectionJSON == Self.smallBasemap)

        let countries = try Basemap.parse(T.countriesGeoJSON())
        #expect(countries.polygons.count >= 177)
    }

    @Test("Basemap.parse rejects what is not a FeatureCollection of valid polygons", arguments: [
        "not json", #"{"type":"Feature"}"#, #"[1,2]"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[0,0]]]}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,"x"],[1,1],[0,0]]]}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,91],[0,0]]]}}]}"#,
    ])
    func basemapRejects(_ text: String) {
        #expect {
            try Basemap.parse(Array(text.utf8))
        } throws: { error in
            (error as? ExportError)?.code == .invalidBasemap
        }
    }

    @Test("Basemap(polygons:) closes rings, drops broken ones and serialises a FeatureCollection")
    func basemapFromPolygons() throws {
        let basemap = Basemap(polygons: [
            [[(0, 0), (1, 0), (1, 1)]],  // open ring: closed
            [[(0, 0), (1, 1)]],  // too short: dropped
            [[(0, 0), (.nan, 0), (1, 1), (0, 0)]],  // invalid: dropped
        ])
        #expect(basemap.polygons.count == 1)
        #expect(basemap.polygons[0].rings[0].count == 4)
        let reparsed = try Basemap.parse(basemap.featureCollectionJSON)
        #expect(reparsed.polygons.count == 1)
    }
}
