import JSONCore
import Timestamps

/// The formats of one record per line: this server's NDJSON export and the OwnTracks
/// Recorder's month files. Blank lines are passed over; a line longer than `maxRecordBytes` is
/// rejected as `record_too_large` (`ImportLines`); a line that cannot be read is rejected on its
/// own and reading goes on (one bad line never costs the rest of a file).
struct LineRecordReader: Sendable {
    enum Kind: Sendable { case ndjson, recorder }

    let kind: Kind
    let jsonLimits: JSONParser.Limits
    var lines: ImportLines
    var done = false

    init(_ kind: Kind, options: ImportOptions) {
        self.kind = kind
        jsonLimits = JSONParser.Limits(maxDepth: options.jsonLimits.maxDepth)
        lines = ImportLines(maxRecordBytes: options.maxRecordBytes, quotes: false)
    }

    mutating func append(_ chunk: UnsafeRawBufferPointer) { lines.append(chunk) }
    mutating func finish() { lines.finish() }

    mutating func run(_ collector: inout ImportCollector) -> Bool {
        let kind = self.kind, limits = jsonLimits
        collector.summary.format = kind == .ndjson ? .ndjson : .owntracksRecorder
        return lines.run(&collector, done: &done) { line, _, collector in
            guard !line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) else { return }
            switch kind {
            case .ndjson: Self.ndjsonLine(line, limits: limits, &collector)
            case .recorder: Self.recorderLine(line, limits: limits, &collector)
            }
        }
    }

    // MARK: This server's NDJSON

    /// Whether `line` (the file's first line) is a line of this server's NDJSON: a JSON object
    /// with a `location` member. (A Records.json or GeoJSON object has none at its top level; a
    /// whole native fix on one line reads the same either way, but keeps its missing id.)
    static func isNDJSONLine(_ line: ArraySlice<UInt8>) -> Bool {
        guard case .object(let object)? = try? JSONParser.parse(line) else { return false }
        return object["location"] != nil && object["locations"] == nil
    }

    /// One fix object, read as native ingest reads it (`id` kept as it is; `deviceId` of a
    /// group's export ignored).
    static func ndjsonLine(_ line: ArraySlice<UInt8>, limits: JSONParser.Limits, _ collector: inout ImportCollector) {
        guard let object = object(line, limits: limits, &collector) else { return }
        let now = collector.now, rules = collector.rules
        collector.point(.ndjson) { () throws(FixError) in try NativeFormat.fix(object, now: now, rules: rules) }
    }

    // MARK: The OwnTracks Recorder

    /// Bytes of the time that starts every Recorder line: `2015-08-24T08:40:01Z`.
    static let recorderTimeLength = 20

    /// Whether `bytes` (the file's start) is a Recorder line so far: an RFC 3339 UTC time to the
    /// second, then a tab. Nil while fewer bytes than that decide it.
    static func startsRecorderLine(_ bytes: ArraySlice<UInt8>) -> Bool? {
        let pattern = Array("dddd-dd-ddTdd:dd:ddZ\t".utf8)
        for (k, expected) in pattern.enumerated() {
            guard k < bytes.count else { return nil }
            let byte = bytes[bytes.startIndex + k]
            let matches = expected == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
            if !matches { return false }
        }
        return true
    }

    /// `<time>\t<topic tag>\t<JSON message>`: a `location` message becomes a fix as the OwnTracks
    /// endpoint reads it (its `tst`, else the line's time, as the Recorder would have written
    /// it); any other message is skipped and counted.
    static func recorderLine(_ line: ArraySlice<UInt8>, limits: JSONParser.Limits, _ collector: inout ImportCollector) {
        let tab = UInt8(ascii: "\t")
        guard let firstTab = line.firstIndex(of: tab), let secondTab = line[(firstTab + 1)...].firstIndex(of: tab) else {
            collector.reject(FixError(code: .invalidRecord, message: "a Recorder line is <time>, a tab, a topic tag, a tab and a JSON message"))
            return
        }
        guard var message = object(line[(secondTab + 1)...], limits: limits, &collector) else { return }
        if message["_type"]?.stringValue != "location" {
            collector.summary.skipped += 1
            return
        }
        if message["tst"] == nil, let milliseconds = Timestamp.parseRFC3339(String(decoding: line[..<firstTab], as: UTF8.self)) {
            message["tst"] = .number(JSONNumber(milliseconds / 1000))
        }
        let now = collector.now, rules = collector.rules, fixed = message
        collector.point(.owntracksRecorder) { () throws(FixError) in
            guard let fix = try OwnTracksFormat.parse(.object(fixed), now: now, rules: rules) else {
                throw FixError(code: .invalidRecord, message: "the location message holds no fix")
            }
            return fix
        }
    }

    /// The line's JSON object, or nil after rejecting the line.
    static func object(_ text: ArraySlice<UInt8>, limits: JSONParser.Limits, _ collector: inout ImportCollector) -> JSONObject? {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text, limits: limits)
        } catch {
            collector.reject(FixError(code: .invalidRecord, message: "the line is not valid JSON: \(error.reason)"))
            return nil
        }
        guard case .object(let object) = value else {
            collector.reject(.invalidFix("each line must be a JSON object, not \(value.typeWithArticle)"))
            return nil
        }
        return object
    }
}
