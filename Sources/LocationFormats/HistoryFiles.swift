import JSONCore

/// Readers for history files people already have: GeoJSON, GPX and CSV. Each turns a file into
/// native-format fix objects (`{"location": [lon, lat], "timestamp": …}`), which then go through
/// `NativeFormat.parse`, so imports are validated exactly like live ingest.
public enum HistoryFile {
    public enum Kind: String, Sendable { case geojson, gpx, csv }

    /// The kind of a file by its extension (`.geojson`/`.json`, `.gpx`, `.csv`).
    public static func kind(ofPath path: String) -> Kind? {
        let lower = path.lowercased()
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return .geojson }
        if lower.hasSuffix(".gpx") { return .gpx }
        if lower.hasSuffix(".csv") { return .csv }
        return nil
    }

    /// Fix objects in file order.
    public static func fixes(from bytes: [UInt8], kind: Kind) throws(FixError) -> [JSONValue] {
        switch kind {
        case .geojson: return try GeoJSONHistory.fixes(from: bytes)
        case .gpx: return GPXHistory.fixes(from: bytes)
        case .csv: return try CSVHistory.fixes(from: bytes)
        }
    }

    static func fix(lon: JSONValue, lat: JSONValue, time: JSONValue?, altitude: JSONValue? = nil,
                    extra: [(String, JSONValue)] = []) -> JSONValue {
        var object: JSONObject = ["location": .array([lon, lat])]
        if let time { object["timestamp"] = time }
        if let altitude { object["altitude"] = altitude }
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }
}

/// GeoJSON: Point features (time in `properties.timestamp` or `properties.time`, optional
/// `properties.id`), and LineString / MultiLineString features with per-vertex times in
/// `properties.coordTimes` or `properties.times` (as GPX converters write them).
enum GeoJSONHistory {
    static func fixes(from bytes: [UInt8]) throws(FixError) -> [JSONValue] {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes, limits: .init(maxDepth: 64)) } catch {
            throw FixError(code: .invalidFile, message: "not valid JSON: \(error)")
        }
        var out: [JSONValue] = []
        let features: [JSONValue]
        switch root["type"]?.stringValue {
        case "FeatureCollection": features = root["features"]?.arrayValue ?? []
        case "Feature": features = [root]
        default: throw FixError(code: .invalidFile, message: "expected a GeoJSON FeatureCollection or Feature")
        }
        for feature in features {
            let properties = feature["properties"]?.objectValue ?? [:]
            let geometry = feature["geometry"]
            let time = properties["timestamp"] ?? properties["time"]
            switch geometry?["type"]?.stringValue {
            case "Point":
                let c = geometry?["coordinates"]?.arrayValue ?? []
                let extra: [(String, JSONValue)] = properties["id"].map { [("id", $0)] } ?? []
                out.append(HistoryFile.fix(lon: c.first ?? .null, lat: c.count > 1 ? c[1] : .null, time: time,
                                           altitude: c.count > 2 ? c[2] : nil, extra: extra))
            case "LineString":
                let times = (properties["coordTimes"] ?? properties["times"])?.arrayValue
                line(geometry?["coordinates"]?.arrayValue ?? [], times: times, into: &out)
            case "MultiLineString":
                let times = (properties["coordTimes"] ?? properties["times"])?.arrayValue
                for (k, part) in (geometry?["coordinates"]?.arrayValue ?? []).enumerated() {
                    line(part.arrayValue ?? [], times: times?[safe: k]?.arrayValue, into: &out)
                }
            default:
                continue
            }
        }
        return out
    }

    static func line(_ coordinates: [JSONValue], times: [JSONValue]?, into out: inout [JSONValue]) {
        for (i, position) in coordinates.enumerated() {
            let c = position.arrayValue ?? []
            out.append(HistoryFile.fix(lon: c.first ?? .null, lat: c.count > 1 ? c[1] : .null, time: times?[safe: i] ?? .null,
                                       altitude: c.count > 2 ? c[2] : nil))
        }
    }
}

/// GPX 1.0/1.1: every `trkpt`, `rtept` and `wpt` with `lat`/`lon` attributes, `<time>` and `<ele>`,
/// in file order.
enum GPXHistory {
    static func fixes(from bytes: [UInt8]) -> [JSONValue] {
        let text = String(decoding: bytes, as: UTF8.self)
        var out: [JSONValue] = []
        var rest = Substring(text)
        while let (open, tagName) = nextPointTag(in: rest) {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let attributes = rest[open.upperBound..<tagEnd]
            let selfClosing = attributes.hasSuffix("/")
            var body = Substring("")
            var next = rest.index(after: tagEnd)
            // Points do not nest: the close tag comes before the next point, so only that stretch
            // is searched (a file of unclosed points stays linear).
            let following = nextPointTag(in: rest[next...])?.range.lowerBound ?? rest.endIndex
            if !selfClosing, let close = rest[next..<following].firstRange(of: "</\(tagName)>") {
                body = rest[next..<close.lowerBound]
                next = close.upperBound
            }
            let lat = attribute("lat", in: attributes).flatMap(Double.init)
            let lon = attribute("lon", in: attributes).flatMap(Double.init)
            let time = element("time", in: body)
            let ele = element("ele", in: body).flatMap(Double.init)
            out.append(HistoryFile.fix(lon: lon.map { .number(JSONNumber($0)) } ?? .null,
                                       lat: lat.map { .number(JSONNumber($0)) } ?? .null,
                                       time: time.map { .string($0) } ?? .null,
                                       altitude: ele.map { .number(JSONNumber($0)) }))
            rest = rest[next...]
        }
        return out
    }

    static let pointTags = ["trkpt", "rtept", "wpt"]
    static let nameEnds: Set<Character> = [" ", "\t", "\n", "\r", "\r\n", "/", ">"]

    /// The first `<trkpt`, `<rtept` or `<wpt` start tag in `text` (the name followed by a space,
    /// `/` or `>`): the range from `<` to the end of the name, and the name.
    static func nextPointTag(in text: Substring) -> (range: Range<Substring.Index>, name: String)? {
        var search = text
        while let open = search.firstIndex(of: "<") {
            let after = search[search.index(after: open)...]
            for name in pointTags where after.hasPrefix(name) {
                let end = after.index(after.startIndex, offsetBy: name.count)
                if end == after.endIndex || nameEnds.contains(after[end]) { return (open..<end, name) }
            }
            search = after
        }
        return nil
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        for quote in ["\"", "'"] {
            if let start = tag.firstRange(of: " \(name)=\(quote)") ?? tag.firstRange(of: "\t\(name)=\(quote)") ?? tag.firstRange(of: "\n\(name)=\(quote)"),
               let end = tag[start.upperBound...].firstIndex(of: Character(quote)) {
                return String(tag[start.upperBound..<end])
            }
        }
        return nil
    }

    static func element(_ name: String, in body: Substring) -> String? {
        guard let open = body.firstRange(of: "<\(name)>"), let close = body[open.upperBound...].firstRange(of: "</\(name)>") else { return nil }
        return String(body[open.upperBound..<close.lowerBound]).trimmingSpaces()
    }
}

/// CSV with a header row. Columns (case-insensitive): `lon|lng|longitude`, `lat|latitude`,
/// `timestamp|time` (RFC 3339 or epoch s/ms), optional `alt|altitude|ele`, `accuracy`, `speed`,
/// `heading`, `battery`, `id`. Quoted fields may hold commas and doubled quotes.
enum CSVHistory {
    static func fixes(from bytes: [UInt8]) throws(FixError) -> [JSONValue] {
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
        guard let header = lines.first else { return [] }
        let names = fields(header).map { $0.lowercased().trimmingSpaces() }
        func column(_ options: [String]) -> Int? { names.firstIndex { options.contains($0) } }
        guard let lonIndex = column(["lon", "lng", "longitude"]), let latIndex = column(["lat", "latitude"]) else {
            throw FixError(code: .invalidFile, message: "CSV header needs lon/longitude and lat/latitude columns")
        }
        let timeIndex = column(["timestamp", "time"])
        let altIndex = column(["alt", "altitude", "ele", "elevation"])
        let optional = ["accuracy", "speed", "heading", "battery"].compactMap { name in column([name]).map { (name, $0) } }
        let idIndex = column(["id"])
        var out: [JSONValue] = []
        for line in lines.dropFirst() where !line.allSatisfy({ $0 == " " || $0 == "\r" }) {
            let f = fields(line)
            func number(_ i: Int?) -> JSONValue? {
                guard let i, i < f.count else { return nil }
                let t = f[i].trimmingSpaces()
                if t.isEmpty { return nil }
                return Double(t).map { .number(JSONNumber($0)) } ?? .string(t)
            }
            var time: JSONValue = .null
            if let timeIndex, timeIndex < f.count {
                let t = f[timeIndex].trimmingSpaces()
                time = Double(t).map { .number(JSONNumber($0)) } ?? (t.isEmpty ? .null : .string(t))
            }
            var extra: [(String, JSONValue)] = optional.compactMap { name, i in number(i).map { (name, $0) } }
            if let idIndex, idIndex < f.count, !f[idIndex].isEmpty { extra.append(("id", .string(f[idIndex]))) }
            out.append(HistoryFile.fix(lon: number(lonIndex) ?? .null, lat: number(latIndex) ?? .null, time: time,
                                       altitude: number(altIndex), extra: extra))
        }
        return out
    }

    static func fields(_ line: Substring) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false
        var chars = line.makeIterator()
        var pending: Character? = nil
        while let c = pending ?? chars.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    if let n = chars.next() {
                        if n == "\"" { current.append("\"") } else { quoted = false; pending = n }
                    } else { quoted = false }
                } else { current.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                out.append(current)
                current = ""
            } else if c != "\r" {
                current.append(c)
            }
        }
        out.append(current)
        return out
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
        return String(s)
    }
}
