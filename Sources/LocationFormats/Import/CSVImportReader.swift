import JSONCore
import Timestamps

/// Bytes of a text format read in chunks: what is consumed is dropped at the next append, so
/// the window holds at most one record plus one chunk. Offsets are absolute in the stream.
struct ImportByteWindow: Sendable {
    var bytes: [UInt8] = []
    /// Absolute offset of `bytes[0]`.
    var base = 0
    /// Index of the first byte not consumed yet.
    var consumed = 0
    var finished = false

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        if consumed > 0 {
            bytes.removeSubrange(0..<consumed)
            base += consumed
            consumed = 0
        }
        bytes.append(contentsOf: chunk)
    }

    /// Bytes not consumed yet.
    var pending: Int { bytes.count - consumed }
    var position: Int { base + consumed }
}

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

    var window = ImportByteWindow()
    let maxRecordBytes: Int
    /// Where the scan for the current line's end resumes, and whether it is inside quotes there.
    var scan = 0
    var inQuotes = false
    var skippingLongLine = false
    var columns: Columns?
    var done = false

    init(options: ImportOptions) { maxRecordBytes = options.maxRecordBytes }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let shift = window.consumed
        window.append(chunk)
        scan -= shift
    }

    mutating func finish() { window.finished = true }

    mutating func run(_ collector: inout ImportCollector) -> Bool {
        while collector.ready.count < collector.options.batchSize {
            guard !done, collector.summary.stopped == nil else { return false }
            guard let line = nextLine(&collector) else {
                if window.finished { done = true; return false }
                return true
            }
            collector.summary.bytesRead = window.position
            handle(line, &collector)
        }
        return !done
    }

    /// The next complete line (without its line break), or nil when more input is needed or the
    /// input is exhausted. A line longer than `maxRecordBytes` is rejected and skipped, line
    /// breaks inside quotes included whether or not it is skipped, so record boundaries and
    /// rejections never depend on how the file was chunked.
    mutating func nextLine(_ collector: inout ImportCollector) -> ArraySlice<UInt8>? {
        let bytes = window.bytes
        var i = scan
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { inQuotes.toggle() }
            if c == 10 && !inQuotes {
                let line = bytes[window.consumed..<i]
                window.consumed = i + 1
                scan = i + 1
                if skippingLongLine {
                    skippingLongLine = false
                } else if line.count > maxRecordBytes {
                    collector.reject(ImportCollector.recordTooLarge(maxRecordBytes))
                } else {
                    return line.last == 13 ? line.dropLast() : line
                }
            }
            i += 1
        }
        scan = i
        if window.pending > maxRecordBytes {
            // Dropped as it arrives: memory stays at one record plus one chunk.
            if !skippingLongLine { collector.reject(ImportCollector.recordTooLarge(maxRecordBytes)) }
            skippingLongLine = true
            window.consumed = bytes.count
            scan = bytes.count
            return nil
        }
        guard window.finished, window.pending > 0 else { return nil }
        let line = bytes[window.consumed...]
        window.consumed = bytes.count
        scan = bytes.count
        if skippingLongLine { return nil }
        if line.count > maxRecordBytes {
            collector.reject(ImportCollector.recordTooLarge(maxRecordBytes))
            return nil
        }
        return line
    }

    mutating func handle(_ line: ArraySlice<UInt8>, _ collector: inout ImportCollector) {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return }
        guard let columns else {
            readHeader(line, &collector)
            return
        }
        let fields = Self.fields(line, delimiter: columns.delimiter)
        let rules = collector.rules, now = collector.now
        collector.point(.csv) { () throws(FixError) in
            try NativeFormat.fix(try Self.fixObject(fields, columns, rules: rules), now: now, rules: rules)
        }
    }

    mutating func readHeader(_ line: ArraySlice<UInt8>, _ collector: inout ImportCollector) {
        let counts = [UInt8(ascii: ","), UInt8(ascii: ";"), 9].map { d in (d, line.lazy.filter { $0 == d }.count) }
        let delimiter = counts.max { $0.1 < $1.1 }.map { $0.1 > 0 ? $0.0 : UInt8(ascii: ",") } ?? UInt8(ascii: ",")
        let names = Self.fields(line, delimiter: delimiter).map { $0.lowercased().trimmingSpaces() }
        func column(_ options: String...) -> Int? { names.firstIndex { options.contains($0) } }
        guard let lon = column("lon", "lng", "long", "longitude"), let lat = column("lat", "latitude") else {
            collector.summary.stopped = ImportStop(code: .unknownFormat,
                message: "not a known history format: expected JSON (Google Takeout, Timeline, GeoJSON), GPX, or CSV with a header naming lat/latitude and lon/lng/longitude columns",
                offset: window.base + line.startIndex)
            done = true
            return
        }
        collector.summary.format = .csv
        columns = Columns(delimiter: delimiter, lon: lon, lat: lat, time: column("timestamp", "time", "datetime", "date"),
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
