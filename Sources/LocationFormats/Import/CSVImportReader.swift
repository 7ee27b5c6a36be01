import JSONCore
import Timestamps

/// CSV with a header row, read line by line (quoted fields may hold the delimiter, doubled
/// quotes and line breaks). The delimiter is the header's most frequent of `,` `;` and tab.
///
/// Columns (case-insensitive): `lon|lng|long|longitude`, `lat|latitude`,
/// `timestamp|time|datetime|date` (RFC 3339, epoch seconds/milliseconds, or a date-time without
/// a zone read as UTC), and optionally `alt|altitude|ele|elevation` (m), `accuracy|acc|
/// horizontal_accuracy` (m), `speed` (m/s) or `speed_kmh|speed_kph|kmh` (km/h),
/// `heading|course|bearing` (degrees), `battery` (percent) or `battery_level` (fraction 0–1),
/// `id`. Each row then goes through `NativeFormat.fix`. A text without such a header is not CSV:
/// the import stops with `unknown_format`.
struct CSVImportReader: Sendable {
    struct Columns: Sendable {
        var delimiter: UInt8
        var lon: Int, lat: Int
        var time: Int?, altitude: Int?, accuracy: Int?, speed: Int?, speedKmh: Int?, heading: Int?
        var battery: Int?, batteryLevel: Int?, id: Int?
    }

    var lines: ImportLines
    var columns: Columns?
    var done = false

    init(options: ImportOptions) { lines = ImportLines(maxRecordBytes: options.maxRecordBytes, quotes: true) }

    mutating func append(_ chunk: UnsafeRawBufferPointer) { lines.append(chunk) }
    mutating func finish() { lines.finish() }

    mutating func run(_ collector: inout ImportCollector) -> Bool {
        var columns = self.columns
        defer { self.columns = columns }
        return lines.run(&collector, done: &done) { line, offset, collector in
            Self.handle(line, at: offset, columns: &columns, &collector)
        }
    }

    /// One line starting at byte `offset`: the header (which sets `columns`) or a row.
    static func handle(_ line: ArraySlice<UInt8>, at offset: Int, columns: inout Columns?, _ collector: inout ImportCollector) {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return }
        guard let known = columns else {
            columns = readHeader(line, at: offset, &collector)
            return
        }
        let fields = Self.fields(line, delimiter: known.delimiter)
        let rules = collector.rules, now = collector.now
        collector.point(.csv) { () throws(FixError) in
            try NativeFormat.fix(try Self.fixObject(fields, known, rules: rules), now: now, rules: rules)
        }
    }

    /// The columns the header names; nil (and reading stopped) when it names no coordinates.
    static func readHeader(_ line: ArraySlice<UInt8>, at offset: Int, _ collector: inout ImportCollector) -> Columns? {
        let counts = [UInt8(ascii: ","), UInt8(ascii: ";"), 9].map { d in (d, line.lazy.filter { $0 == d }.count) }
        let delimiter = counts.max { $0.1 < $1.1 }.map { $0.1 > 0 ? $0.0 : UInt8(ascii: ",") } ?? UInt8(ascii: ",")
        let names = Self.fields(line, delimiter: delimiter).map { $0.lowercased().trimmingSpaces() }
        func column(_ options: String...) -> Int? { names.firstIndex { options.contains($0) } }
        guard let lon = column("lon", "lng", "long", "longitude"), let lat = column("lat", "latitude") else {
            collector.summary.stopped = ImportStop(code: .unknownFormat,
                message: "not a known history format: expected JSON (Google Takeout, Timeline, GeoJSON, this server's NDJSON), GPX, OwnTracks Recorder .rec lines, or CSV with a header naming lat/latitude and lon/lng/longitude columns",
                offset: offset)
            return nil
        }
        collector.summary.format = .csv
        return Columns(delimiter: delimiter, lon: lon, lat: lat, time: column("timestamp", "time", "datetime", "date"),
                       altitude: column("alt", "altitude", "ele", "elevation"),
                       accuracy: column("accuracy", "acc", "horizontal_accuracy"), speed: column("speed"),
                       speedKmh: column("speed_kmh", "speed_kph", "kmh"), heading: column("heading", "course", "bearing"),
                       battery: column("battery"), batteryLevel: column("battery_level"), id: column("id"))
    }

    /// One row as a native fix object: numeric text becomes a number, other text a string (so
    /// the native checks report its type).
    static func fixObject(_ fields: [String], _ c: Columns, rules: FixRules) throws(FixError) -> JSONObject {
        func text(_ i: Int?) -> String? {
            guard let i, i < fields.count else { return nil }
            let t = fields[i].trimmingSpaces()
            return t.isEmpty ? nil : t
        }
        func value(_ i: Int?) -> JSONValue? {
            text(i).map { t in FixCheck.decimal(t).map { .number(JSONNumber($0)) } ?? .string(t) }
        }
        var object: JSONObject = ["location": .array([value(c.lon) ?? .null, value(c.lat) ?? .null])]
        if let t = text(c.time) {
            if let n = FixCheck.decimal(t) { object["timestamp"] = .number(JSONNumber(n)) }
            else if Timestamp.parseRFC3339(t) == nil, let utc = Timestamp.parseRFC3339(t, assumeUTC: true) {
                object["timestamp"] = .number(JSONNumber(utc))
            } else { object["timestamp"] = .string(t) }
        }
        object["altitude"] = value(c.altitude)
        object["accuracy"] = value(c.accuracy)
        if let kmh = value(c.speedKmh), value(c.speed) == nil {
            object["speed"] = try Measure.speed("speed_kmh", unit: "km/h", metersPerHour: 1000, rules: rules, app: false)
                .value(kmh).map { .number(JSONNumber($0)) }
        } else {
            object["speed"] = value(c.speed)
        }
        object["heading"] = value(c.heading)
        if let fraction = value(c.batteryLevel), value(c.battery) == nil {
            object["battery"] = try Measure.battery("battery_level", fraction: true, app: false).value(fraction).map { .number(JSONNumber($0)) }
        } else {
            object["battery"] = value(c.battery)
        }
        if let id = text(c.id) { object["id"] = .string(id) }
        return object
    }

    /// Splits one line into fields: quoted fields may hold the delimiter, line breaks and `""`.
    static func fields(_ line: ArraySlice<UInt8>, delimiter: UInt8) -> [String] {
        var out: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if quoted {
                if c == UInt8(ascii: "\"") {
                    if i + 1 < line.endIndex && line[i + 1] == UInt8(ascii: "\"") { current.append(c); i += 1 } else { quoted = false }
                } else {
                    current.append(c)
                }
            } else if c == UInt8(ascii: "\"") {
                quoted = true
            } else if c == delimiter {
                out.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else if c != 13 {
                current.append(c)
            }
            i += 1
        }
        out.append(String(decoding: current, as: UTF8.self))
        if let first = out.first, first.hasPrefix("\u{FEFF}") { out[0] = String(first.dropFirst()) }
        return out
    }
}
