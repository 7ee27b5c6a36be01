import ErrorCodes
import JSONCore

/// GPX 1.0/1.1 read tag by tag: every `trkpt`, `rtept` and `wpt` (any namespace prefix) with
/// `lat` / `lon` attributes becomes a point, with its child elements `time`, `ele` (m), `speed`
/// (m/s, GPX 1.0 or an extension such as this server's `fod:speed`), `course` (degrees),
/// `accuracy` (m, this server's extension; else `hdop` × `FixRules.metersPerHDOP`) and
/// `battery` (percent, this server's extension). Comments, CDATA, processing instructions and the DOCTYPE are
/// skipped. The first element must be `gpx`; anything else (KML, say) stops with `unknown_format`.
/// Any element (a point with its children, a tag, a comment) may be at most `maxRecordBytes`:
/// a longer one stops with `limit_exceeded`, decided from the first `maxRecordBytes` bytes only,
/// so the outcome never depends on how the file was chunked; a document cut inside a shorter
/// element stops with `truncated_file`.
struct GPXImportReader: Sendable {
    var window = ImportByteWindow()
    let maxRecordBytes: Int
    var sawRoot = false
    var done = false

    init(options: ImportOptions) { maxRecordBytes = options.maxRecordBytes }

    mutating func append(_ chunk: UnsafeRawBufferPointer) { window.append(chunk) }
    mutating func finish() { window.finished = true }

    mutating func run(_ collector: inout ImportCollector) -> Bool {
        while collector.ready.count < collector.options.batchSize {
            guard !done, collector.summary.stopped == nil else { return false }
            collector.summary.bytesRead = window.position
            switch step(&collector) {
            case .progress: continue
            case .needInput:
                guard window.finished else { return true }
                if window.pending > 0 && !onlyWhitespace(window.bytes[window.consumed...]) {
                    stop(.truncatedFile, "the file is cut short inside a GPX element", &collector)
                } else if !sawRoot {
                    stop(.unknownFormat, "the XML file has no gpx element", &collector)
                }
                done = true
                return false
            }
        }
        return !done
    }

    enum Step { case progress, needInput }

    mutating func step(_ collector: inout ImportCollector) -> Step {
        let bytes = window.bytes
        guard let open = Self.find(UInt8(ascii: "<"), in: bytes, from: window.consumed) else {
            window.consumed = bytes.count
            return .needInput
        }
        window.consumed = open
        // The element must end before `bound`; the search never looks further.
        let bound = open + maxRecordBytes
        let searchEnd = min(bytes.count, bound)
        /// Not found within the first `maxRecordBytes` bytes: too long once that much is here.
        func notFound(_ collector: inout ImportCollector) -> Step {
            guard bytes.count >= bound else { return .needInput }
            stop(.limitExceeded, "a GPX element longer than \(maxRecordBytes) bytes", &collector)
            return .progress
        }
        let rest = bytes[open...]
        for (prefix, terminator) in [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">"), ("</", ">")] {
            guard Self.starts(rest, with: prefix) else { continue }
            guard let end = Self.find(Array(terminator.utf8), in: bytes, from: open + prefix.utf8.count, before: searchEnd) else {
                return notFound(&collector)
            }
            window.consumed = end + terminator.utf8.count
            return .progress
        }
        guard let close = Self.tagEnd(bytes, from: open + 1, before: searchEnd) else { return notFound(&collector) }
        let tag = bytes[(open + 1)..<close]
        let selfClosing = tag.last == UInt8(ascii: "/")
        let qualified = Array(tag.prefix { !Self.isSpace($0) && $0 != UInt8(ascii: "/") })
        let local = Self.localName(qualified)
        if !sawRoot {
            guard local == "gpx" else {
                let hint = local == "kml" ? "KML is not supported: export the history as GPX or GeoJSON" : "an XML file whose root is <\(local)>, not <gpx>"
                stop(.unknownFormat, hint, &collector)
                return .progress
            }
            sawRoot = true
            collector.summary.format = .gpx
        }
        guard local == "trkpt" || local == "rtept" || local == "wpt" else {
            window.consumed = close + 1
            return .progress
        }
        var body = bytes[(close + 1)..<(close + 1)]
        var next = close + 1
        if !selfClosing {
            guard let end = Self.find(Array("</".utf8) + qualified + [UInt8(ascii: ">")], in: bytes, from: close + 1, before: searchEnd) else {
                return notFound(&collector)
            }
            body = bytes[(close + 1)..<end]
            next = end + qualified.count + 3
        }
        window.consumed = next
        point(tag: tag, body: body, name: local, &collector)
        return .progress
    }

    mutating func point(tag: ArraySlice<UInt8>, body: ArraySlice<UInt8>, name: String, _ collector: inout ImportCollector) {
        let attributes = Self.attributes(tag)
        let children = Self.childTexts(body, wanted: ["time", "ele", "speed", "course", "hdop", "accuracy", "battery"])
        let rules = collector.rules, now = collector.now
        collector.point(.gpx) { () throws(FixError) in
            guard let lat = attributes["lat"].flatMap(FixCheck.decimal), let lon = attributes["lon"].flatMap(FixCheck.decimal) else {
                throw FixError.invalidLocation("\(name) needs numeric lat and lon attributes")
            }
            func number(_ key: String) -> JSONValue? {
                children[key].map { t in FixCheck.decimal(t).map { .number(JSONNumber($0)) } ?? .string(t) }
            }
            var object: JSONObject = ["location": .array([.number(JSONNumber(lon)), .number(JSONNumber(lat))])]
            if let time = children["time"] { object["timestamp"] = .string(time) }
            object["altitude"] = number("ele")
            object["speed"] = number("speed")
            object["heading"] = number("course")
            object["battery"] = number("battery")
            if let accuracy = number("accuracy") {
                object["accuracy"] = accuracy
            } else if let perHDOP = rules.metersPerHDOP, case .number(let hdop)? = number("hdop"), hdop.double >= 0 {
                object["accuracy"] = .number(JSONNumber(hdop.double * perHDOP))
            }
            return try NativeFormat.fix(object, now: now, rules: rules)
        }
    }

    mutating func stop(_ code: ErrorCode, _ message: String, _ collector: inout ImportCollector) {
        collector.summary.stopped = ImportStop(code: code, message: message, offset: window.position)
        done = true
    }

    // MARK: Scanning helpers

    static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }

    func onlyWhitespace(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.allSatisfy(Self.isSpace) }

    static func localName(_ qualified: [UInt8]) -> String {
        let local = qualified.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).last ?? []
        return String(decoding: local, as: UTF8.self).lowercased()
    }

    static func starts(_ bytes: ArraySlice<UInt8>, with prefix: String) -> Bool {
        bytes.count >= prefix.utf8.count && bytes.prefix(prefix.utf8.count).elementsEqual(prefix.utf8)
    }

    static func find(_ byte: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        while i < bytes.count { if bytes[i] == byte { return i }; i += 1 }
        return nil
    }

    /// Where `needle` starts, lying wholly before index `end`.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, before end: Int) -> Int? {
        guard let first = needle.first else { return start }
        var i = start
        while i + needle.count <= end {
            if bytes[i] == first && bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The index (before `end`) of the `>` that ends a start tag beginning at `start`, skipping
    /// quoted values.
    static func tagEnd(_ bytes: [UInt8], from start: Int, before end: Int) -> Int? {
        var quote: UInt8?
        var i = start
        while i < end {
            let c = bytes[i]
            if let q = quote { if c == q { quote = nil } }
            else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
            else if c == UInt8(ascii: ">") { return i }
            i += 1
        }
        return nil
    }

    /// `name="value"` pairs of a start tag (names without prefix, lower-cased).
    static func attributes(_ tag: ArraySlice<UInt8>) -> [String: String] {
        var out: [String: String] = [:]
        var i = tag.startIndex
        while i < tag.endIndex && !isSpace(tag[i]) { i += 1 }
        while i < tag.endIndex {
            while i < tag.endIndex && (isSpace(tag[i]) || tag[i] == UInt8(ascii: "/")) { i += 1 }
            let nameStart = i
            while i < tag.endIndex && tag[i] != UInt8(ascii: "=") && !isSpace(tag[i]) { i += 1 }
            let name = localName(Array(tag[nameStart..<i]))
            while i < tag.endIndex && (isSpace(tag[i]) || tag[i] == UInt8(ascii: "=")) { i += 1 }
            guard i < tag.endIndex, tag[i] == UInt8(ascii: "\"") || tag[i] == UInt8(ascii: "'") else { break }
            let quote = tag[i]
            i += 1
            let valueStart = i
            while i < tag.endIndex && tag[i] != quote { i += 1 }
            out[name] = String(decoding: tag[valueStart..<i], as: UTF8.self).trimmingSpaces()
            i += 1
        }
        return out
    }

    /// The text of the first child element (at any depth) of each wanted local name.
    static func childTexts(_ body: ArraySlice<UInt8>, wanted: Set<String>) -> [String: String] {
        var out: [String: String] = [:]
        var i = body.startIndex
        while i < body.endIndex {
            guard body[i] == UInt8(ascii: "<") else { i += 1; continue }
            var j = i + 1
            while j < body.endIndex && body[j] != UInt8(ascii: ">") { j += 1 }
            guard j < body.endIndex else { break }
            let tag = body[(i + 1)..<j]
            i = j + 1
            guard let first = tag.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "!"), first != UInt8(ascii: "?"),
                  tag.last != UInt8(ascii: "/") else { continue }
            let name = localName(Array(tag.prefix { !isSpace($0) }))
            guard wanted.contains(name), out[name] == nil else { continue }
            var k = i
            while k < body.endIndex && body[k] != UInt8(ascii: "<") { k += 1 }
            out[name] = String(decoding: body[i..<k], as: UTF8.self).trimmingSpaces()
        }
        return out
    }
}
