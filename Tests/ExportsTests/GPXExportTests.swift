import Exports
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

private typealias T = ExportTestSupport

/// A minimal XML reader: elements with attributes and text, via Foundation's XMLParser.
private final class XMLCollector: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
    }

    var elements: [Element] = []
    private var open: [Int] = []
    var error: String?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append(Element(name: name, attributes: attributes))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        _ = open.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let current = open.last { elements[current].text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        error = "\(parseError)"
    }

    static func parse(_ bytes: [UInt8]) -> XMLCollector {
        let collector = XMLCollector()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = collector
        if !parser.parse() && collector.error == nil { collector.error = "parse failed" }
        return collector
    }

    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }
}

@Suite("GPX export")
struct GPXExportTests {
    private func gpx(_ points: [ExportPoint], metadata: GPXExport.Metadata = .init(), gap: Int64? = 30 * 60_000) -> [UInt8] {
        var writer = GPXExport(metadata: metadata, gapMilliseconds: gap)
        var out: [UInt8] = []
        for point in points { writer.add(point, into: &out) }
        writer.finish(into: &out)
        return out
    }

    @Test("well-formed GPX 1.1 with one trk per device, segments split at gaps, ele and time")
    func structure() throws {
        let points = [
            T.fix("a", lon: 4.8951679, lat: 52.3702157, minutes: 0, altitude: -2.5, name: "Bike"),
            T.fix("a", lon: 4.9, lat: 52.371, minutes: 1, name: "Bike"),
            T.fix("a", lon: 4.91, lat: 52.372, minutes: 90, altitude: 3, name: "Bike"),
            T.fix("b", lon: 180, lat: -16, minutes: 0, name: "Boat"),
        ]
        let bounds = GeoBounds(westDegrees: 4.8951679, southDegrees: -16, eastDegrees: 180, northDegrees: 52.372)
        let bytes = gpx(points, metadata: .init(name: "Group export", timeMilliseconds: T.baseTime, bounds: bounds))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(text.contains(#"xmlns="http://www.topografix.com/GPX/1/1""#))

        let xml = XMLCollector.parse(bytes)
        #expect(xml.error == nil)
        let root = xml.elements.first
        #expect(root?.name == "gpx")
        #expect(root?.attributes["version"] == "1.1")
        #expect(root?.attributes["creator"] == "Find Our Devices")
        #expect(xml.all("bounds").first?.attributes == [
            "minlat": "-16", "minlon": "4.8951679", "maxlat": "52.372", "maxlon": "179.9999999",
        ])
        #expect(xml.all("metadata").count == 1)
        #expect(xml.all("time").first?.text == "2026-11-30T08:00:00.000Z")

        #expect(xml.all("trk").count == 2)
        #expect(xml.all("name").map(\.text) == ["Group export", "Bike", "Boat"])
        #expect(xml.all("trkseg").count == 3)  // Bike: split by the 89-minute gap; Boat: one
        let trackPoints = xml.all("trkpt")
        #expect(trackPoints.count == 4)
        #expect(trackPoints.first?.attributes == ["lat": "52.3702157", "lon": "4.8951679"])
        #expect(trackPoints.last?.attributes["lon"] == "-180")  // GPX longitudes are < 180
        #expect(xml.all("ele").map(\.text) == ["-2.5", "3"])
        #expect(xml.all("time").map(\.text) == [
            "2026-11-30T08:00:00.000Z", "2026-11-30T08:00:00.000Z", "2026-11-30T08:01:00.000Z",
            "2026-11-30T09:30:00.000Z", "2026-11-30T08:00:00.000Z",
        ])
    }

    @Test("names are escaped: <, &, quotes and control characters")
    func escaping() throws {
        let name = "Tom & Jerry's <\"tracker\">\u{01}"
        let bytes = gpx([T.fix("a", lon: 1, lat: 2, name: name)], metadata: .init(name: "A&B <group>"))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("<name>Tom &amp; Jerry&apos;s &lt;&quot;tracker&quot;&gt;\u{FFFD}</name>"))
        let xml = XMLCollector.parse(bytes)
        #expect(xml.error == nil)
        #expect(xml.all("name").map(\.text) == ["A&B <group>", "Tom & Jerry's <\"tracker\">\u{FFFD}"])
        let lint = try T.xmllint(bytes)
        #expect(lint.status == 0, "\(lint.output)")
    }

    @Test("no points: a valid document without tracks")
    func empty() throws {
        let bytes = gpx([])
        let xml = XMLCollector.parse(bytes)
        #expect(xml.error == nil)
        #expect(xml.elements.map(\.name) == ["gpx"])
        #expect(try T.xmllint(bytes).status == 0)
    }

    @Test("gapMilliseconds nil never splits segments; invalid points are skipped")
    func noSplit() {
        var writer = GPXExport(gapMilliseconds: nil)
        var out: [UInt8] = []
        writer.add(T.fix("a", lon: 1, lat: 1, minutes: 0), into: &out)
        writer.add(T.fix("a", lon: 1, lat: .infinity, minutes: 1), into: &out)
        writer.add(T.fix("a", lon: 2, lat: 2, minutes: 10_000), into: &out)
        writer.finish(into: &out)
        let xml = XMLCollector.parse(out)
        #expect(xml.all("trkseg").count == 1)
        #expect(xml.all("trkpt").count == 2)
        #expect(writer.skippedPointCount == 1)
        #expect(writer.trackCount == 1 && writer.pointCount == 2)
    }

    @Test("speed, course, accuracy and battery go in <extensions> of the fod namespace, after <ele> and <time>")
    func extensions() throws {
        var moving = T.fix("a", lon: 1, lat: 2, minutes: 0, altitude: 12)
        moving.details = ExportPointDetails(accuracy: 4.5, speed: 3.3333333333333335, heading: 271.25, battery: 80, clientID: "x")
        let still = T.fix("a", lon: 1, lat: 2, minutes: 1)
        let bytes = gpx([moving, still])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"xmlns:fod="urn:find-our-devices:gpx:1""#))
        #expect(text.contains("<ele>12</ele><time>2026-11-30T08:00:00.000Z</time><extensions><fod:speed>3.3333333</fod:speed>"
                              + "<fod:course>271.25</fod:course><fod:accuracy>4.5</fod:accuracy><fod:battery>80</fod:battery></extensions></trkpt>"))
        #expect(text.contains("<time>2026-11-30T08:01:00.000Z</time></trkpt>"), "no empty <extensions> for a fix without them")
        let xml = XMLCollector.parse(bytes)
        #expect(xml.error == nil)
        #expect(xml.all("fod:speed").count == 1 && xml.all("extensions").count == 1)
        let lint = try T.xmllint(bytes)
        #expect(lint.status == 0, "\(lint.output)")
    }
}
