// fuzz-modules: LocationFormats JSONCore Timestamps
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 16384
//
// History files (HistoryFiles: GeoJSON, GPX, CSV). The first input byte picks the mode:
// - raw: the rest of the input is a file of one kind; every object the reader returns is a fix
//   object, and the batch they form passes the shared batch rules;
// - round trip: the rest of the input describes fixes, which are written as a GPX, CSV or
//   GeoJSON file the way other tools write them; reading that file back must give exactly those
//   fixes, in file order.
import JSONCore
import LocationFormats
import Timestamps

/// The "now" of imports here: 2027-01-15T08:00:00Z, so generated times up to 2025 are valid.
let historyNow: Int64 = 1_800_000_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistory(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let kinds: [HistoryFile.Kind] = [.geojson, .gpx, .csv]
    let kind = kinds[Int(selector % 3)]
    if selector & 0x80 == 0 {
        raw(input, kind: kind)
    } else {
        roundTrip(input, kind: kind, variant: selector >> 2)
    }
    return 0
}

func raw(_ input: [UInt8], kind: HistoryFile.Kind) {
    let objects: [JSONValue]
    do {
        objects = try HistoryFile.fixes(from: input, kind: kind)
    } catch {
        checkError(error, context: shown(input))
        return
    }
    for object in objects {
        require(object["location"]?.arrayValue?.count == 2, "\(kind) reader returned \(object)")
    }
    guard (1...FixRules.standard.maxBatch).contains(objects.count) else { return }
    do {
        let batch = try NativeFormat.parse(.object(["locations": .array(objects)]), now: historyNow)
        checkBatch(batch, submitted: objects.count, now: historyNow, context: shown(input))
    } catch {
        require(false, "\(kind) reader's objects are not a batch: \(error)")
    }
}

/// One generated fix: where it sits in the file decides its GPX element.
struct HistoryPoint {
    var longitude: Double
    var latitude: Double
    var timestamp: Int64
    var altitude: Double?
    var id: String?
}

/// Reads fixes from the input, 9 bytes each: longitude and latitude (3 bytes each, scaled to
/// their full ranges), seconds after 2000 (2 bytes × 12,000 s) plus a millisecond byte, a flag.
func points(_ bytes: [UInt8]) -> [HistoryPoint] {
    var result: [HistoryPoint] = []
    var i = 0
    while i + 9 <= bytes.count && result.count < 500 {
        func u24(_ k: Int) -> Int { Int(bytes[k]) << 16 | Int(bytes[k + 1]) << 8 | Int(bytes[k + 2]) }
        let lon = (Double(u24(i)) / Double(1 << 24) * 360 - 180)
        let lat = (Double(u24(i + 3)) / Double(1 << 24) * 180 - 90)
        let seconds = Int64(Int(bytes[i + 6]) << 8 | Int(bytes[i + 7])) * 12_000
        let flag = bytes[i + 8]
        let timestamp = FixRules.standard.minTimestamp + seconds * 1000 + Int64(flag & 0x0F) * 37
        let altitude: Double? = flag & 0x10 != 0 ? Double(Int(flag) - 128) * 25.5 : nil
        let id: String? = flag & 0x20 == 0 ? nil : flag & 0x40 == 0 ? "p\(result.count)" : "p\(result.count),\"x\""
        result.append(HistoryPoint(longitude: lon, latitude: lat, timestamp: timestamp, altitude: altitude, id: id))
        i += 9
    }
    return result
}

func roundTrip(_ input: [UInt8], kind: HistoryFile.Kind, variant: UInt8) {
    let fixes = points(input)
    guard !fixes.isEmpty else { return }
    let file: String
    let keepsIDs: Bool
    switch kind {
    case .gpx: file = gpx(fixes, variant: variant); keepsIDs = false
    case .csv: file = csv(fixes, variant: variant); keepsIDs = true
    case .geojson: file = geojson(fixes, asLine: variant & 1 != 0); keepsIDs = variant & 1 == 0
    }
    do {
        let objects = try HistoryFile.fixes(from: Array(file.utf8), kind: kind)
        let batch = try NativeFormat.parse(.object(["locations": .array(objects)]), now: historyNow)
        require(batch.rejected.isEmpty, "\(kind) round trip rejected \(batch.rejected.first.map { "\($0)" } ?? ""): \(file)")
        require(batch.fixes.count == fixes.count, "\(kind) round trip read \(batch.fixes.count) of \(fixes.count) fixes: \(file)")
        for (expected, (_, fix)) in zip(fixes, batch.fixes) {
            require(fix.longitude == expected.longitude && fix.latitude == expected.latitude
                    && fix.timestamp == expected.timestamp && fix.altitude == expected.altitude
                    && fix.clientID == (keepsIDs ? expected.id : nil),
                    "\(kind) round trip: \(expected) came back as \(fix) from \(file)")
        }
    } catch {
        require(false, "\(kind) round trip failed: \(error) for \(file)")
    }
}

func time(_ ms: Int64) -> String { Timestamp.rfc3339(millisecondsSince1970: ms) }

/// GPX 1.1: waypoints, then a route, then a track (the schema's order); `variant` picks how
/// many of the fixes go to each, attribute order and quoting, and self-closing elements.
func gpx(_ fixes: [HistoryPoint], variant: UInt8) -> String {
    let waypoints = Int(variant) % (fixes.count + 1)
    let routePoints = Int(variant >> 2) % (fixes.count - waypoints + 1)
    let quote = variant & 1 == 0 ? "\"" : "'"
    func point(_ tag: String, _ p: HistoryPoint) -> String {
        let attributes = variant & 2 == 0
            ? "lat=\(quote)\(p.latitude)\(quote) lon=\(quote)\(p.longitude)\(quote)"
            : "lon=\(quote)\(p.longitude)\(quote)\n    lat=\(quote)\(p.latitude)\(quote)"
        let ele = p.altitude.map { "<ele>\($0)</ele>" } ?? ""
        return "<\(tag) \(attributes)>\(ele)<time>\(time(p.timestamp))</time><name>\(tag)</name></\(tag)>\n"
    }
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"fuzz\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
    for p in fixes[..<waypoints] { out += point("wpt", p) }
    if routePoints > 0 {
        out += "<rte><name>route</name>\n"
        for p in fixes[waypoints..<(waypoints + routePoints)] { out += point("rtept", p) }
        out += "</rte>\n"
    }
    if waypoints + routePoints < fixes.count {
        out += "<trk><name>track</name><trkseg>\n"
        for p in fixes[(waypoints + routePoints)...] { out += point("trkpt", p) }
        out += "</trkseg></trk>\n"
    }
    return out + "</gpx>\n"
}

/// CSV with a header; `variant` picks column order, CRLF line ends and quoting of ids (always
/// when they hold a comma or quote, doubling the quotes).
func csv(_ fixes: [HistoryPoint], variant: UInt8) -> String {
    let end = variant & 1 == 0 ? "\n" : "\r\n"
    let latFirst = variant & 2 != 0
    var out = (latFirst ? "latitude,longitude" : "lon,lat") + ",time,ele,id" + end
    for p in fixes {
        let position = latFirst ? "\(p.latitude),\(p.longitude)" : "\(p.longitude),\(p.latitude)"
        let id = p.id.map { id in
            variant & 4 != 0 || id.contains(",") || id.contains("\"")
                ? "\"" + id.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\"" : id
        } ?? ""
        out += "\(position),\(time(p.timestamp)),\(p.altitude.map { "\($0)" } ?? ""),\(id)" + end
    }
    return out
}

/// A FeatureCollection of Point features, or one LineString feature with `coordTimes`.
func geojson(_ fixes: [HistoryPoint], asLine: Bool) -> String {
    func position(_ p: HistoryPoint) -> JSONValue {
        var c: [JSONValue] = [.number(JSONNumber(p.longitude)), .number(JSONNumber(p.latitude))]
        if let a = p.altitude { c.append(.number(JSONNumber(a))) }
        return .array(c)
    }
    let root: JSONValue
    if asLine {
        root = ["type": "Feature",
                "geometry": ["type": "LineString", "coordinates": .array(fixes.map(position))],
                "properties": ["coordTimes": .array(fixes.map { .string(time($0.timestamp)) })]]
    } else {
        root = ["type": "FeatureCollection", "features": .array(fixes.map { p in
            var properties: JSONObject = ["time": .string(time(p.timestamp))]
            if let id = p.id { properties["id"] = .string(id) }
            return ["type": "Feature", "geometry": ["type": "Point", "coordinates": position(p)],
                    "properties": .object(properties)]
        })]
    }
    return root.serializedString()
}
