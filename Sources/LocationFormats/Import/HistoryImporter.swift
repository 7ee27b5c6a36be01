/// Reads a location history file of any supported format as a stream: bytes in chunks, fixes out
/// in batches, memory bounded by one chunk plus one record whatever the file's size.
///
/// The format is detected from the content, never a file name: after an optional UTF-8 byte
/// order mark and white space, `{` is this server's NDJSON export when the first line is a whole
/// fix object (`LineRecordReader.isNDJSONLine`), else JSON like `[` (Google Records.json,
/// Semantic Location History, the Timeline export, GeoJSON, or this server's fixes: decided by
/// the root's members or elements, see `JSONImportReader`); `<` is XML (GPX); a line starting
/// `2015-08-24T08:40:01Z` and a tab is the OwnTracks Recorder's; anything else CSV with a header.
///
/// Every point is validated exactly like native ingest (`NativeFormat` / `FixCheck` /
/// `Measure`); an invalid point is counted and sampled in `summary` and never stops the import.
/// A defect that makes the rest of the file unreadable (cut short, not JSON any more, a second
/// format) stops reading: `summary.stopped` says why and where, and everything before it is kept.
/// Each fix without a client id gets one derived from its content (`ImportPointID`), so
/// importing the same file twice stores nothing new under the native duplicate rule — except
/// in NDJSON (read back exactly as exported) and Recorder files (as from the app), where a fix
/// without id is a duplicate by its timestamp.
///
/// ```swift
/// var importer = HistoryImporter(options: ImportOptions(now: Timestamp.nowMilliseconds()))
/// while let chunk = read(1 << 20) {
///     chunk.withUnsafeBytes { importer.append($0) }
///     while let batch = importer.nextBatch() { try await ingest(batch) }
/// }
/// importer.finish()
/// while let batch = importer.nextBatch() { try await ingest(batch) }
/// let summary = importer.summary   // format, counts, rejections by code, samples, stopped
/// ```
public struct HistoryImporter: Sendable {
    var collector: ImportCollector
    /// Bytes seen before the format is known (only leading white space and a byte order mark).
    var undecided: [UInt8] = []
    /// Leading white space dropped from `undecided` so far: a byte order mark counts only at
    /// the very start of the file, however the file was chunked.
    var droppedBlanks = 0
    var json: JSONImportReader?
    var csv: CSVImportReader?
    var gpx: GPXImportReader?
    var lineRecords: LineRecordReader?
    var finished = false
    var exhausted = false
    var appended = 0

    public init(options: ImportOptions) {
        collector = ImportCollector(options: options)
    }

    /// What was read so far (complete once `nextBatch()` returned nil after `finish()`).
    /// Byte offsets are the file's: the readers count from the first significant byte, so the
    /// white space and byte order mark skipped before it are added here, in one place.
    public var summary: ImportSummary {
        var summary = collector.summary
        guard readerBase > 0 else { return summary }
        summary.bytesRead += readerBase
        if let stop = summary.stopped {
            summary.stopped = ImportStop(code: stop.error.code, message: stop.error.message, offset: stop.offset + readerBase)
        }
        return summary
    }

    /// Bytes skipped before the first significant byte, which every reader counts as its 0.
    var readerBase = 0

    /// The detected format, once the content has decided it.
    public var format: ImportFormat? { collector.summary.format }

    /// Total bytes appended.
    public var bytesAppended: Int { appended }

    /// Bytes held now (unread input plus the record being read): stays near one chunk plus one
    /// record, whatever the file's size.
    public var bufferedBytes: Int {
        undecided.count + (json.map { $0.tokenizer.windowEnd - $0.tokenizer.windowStart } ?? 0)
            + (csv?.lines.window.bytes.count ?? 0) + (gpx?.window.bytes.count ?? 0) + (lineRecords?.lines.window.bytes.count ?? 0)
    }

    /// Adds the next chunk of the file. Call `nextBatch()` until it returns nil before the next
    /// `append`, so the unread part stays small. The bytes are copied.
    public mutating func append(_ chunk: UnsafeRawBufferPointer) {
        appended += chunk.count
        // Once reading has stopped nothing more is read: drop the bytes instead of holding them.
        guard collector.summary.stopped == nil else { return }
        if json != nil { json?.append(chunk); return }
        if csv != nil { csv?.append(chunk); return }
        if gpx != nil { gpx?.append(chunk); return }
        if lineRecords != nil { lineRecords?.append(chunk); return }
        undecided.append(contentsOf: chunk)
        detect()
    }

    /// Adds a chunk held in an array.
    public mutating func append(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { append($0) }
    }

    /// Declares the end of the file.
    public mutating func finish() {
        finished = true
        if !hasReader {
            detect()
            if !hasReader {
                collector.summary.stopped = ImportStop(code: .emptyFile, message: "the file is empty", offset: appended)
            }
        }
        json?.finish()
        csv?.finish()
        gpx?.finish()
        lineRecords?.finish()
    }

    /// Whether the content has chosen a reader.
    var hasReader: Bool { json != nil || csv != nil || gpx != nil || lineRecords != nil }

    /// The next batch of at most `ImportOptions.batchSize` valid fixes, or nil when more input is
    /// needed (after `finish()`: when everything has been handed out).
    public mutating func nextBatch() -> [Fix]? {
        let size = collector.options.batchSize
        if !exhausted && collector.ready.count < size {
            // Each reader returns true while it needs more input, false once it is done.
            let needsInput: Bool
            if json != nil { needsInput = json?.run(&collector) ?? false }
            else if csv != nil { needsInput = csv?.run(&collector) ?? false }
            else if gpx != nil { needsInput = gpx?.run(&collector) ?? false }
            else if lineRecords != nil { needsInput = lineRecords?.run(&collector) ?? false }
            else { needsInput = !finished }
            if !needsInput { exhausted = true }
        }
        // Partial batches only at the end, so batch sizes do not depend on how the file was chunked.
        guard collector.ready.count >= size || (exhausted && !collector.ready.isEmpty) else { return nil }
        if collector.ready.count <= size {
            let batch = collector.ready
            collector.ready = []
            collector.ready.reserveCapacity(size)
            return batch
        }
        let batch = Array(collector.ready[..<size])
        collector.ready.removeFirst(size)
        return batch
    }

    /// Reads everything from one buffer (tests, small request bodies).
    public static func read(_ bytes: [UInt8], options: ImportOptions) -> (fixes: [Fix], summary: ImportSummary) {
        var importer = HistoryImporter(options: options)
        var fixes: [Fix] = []
        importer.append(bytes)
        while let batch = importer.nextBatch() { fixes += batch }
        importer.finish()
        while let batch = importer.nextBatch() { fixes += batch }
        return (fixes, importer.summary)
    }

    /// Chooses the reader from the first significant byte.
    mutating func detect() {
        var start = 0
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        // A byte order mark may arrive split over chunks: wait for all of it. It is one only at
        // the file's first byte (after white space it is content, as when the file comes at once).
        let atFileStart = droppedBlanks == 0
        if atFileStart && !finished && undecided.count < 3 && bom.starts(with: undecided) { return }
        if atFileStart && undecided.starts(with: bom) { start = 3 }
        while start < undecided.count, [32, 9, 10, 13].contains(undecided[start]) { start += 1 }
        guard start < undecided.count else {
            // Only white space so far: nothing to keep (a file of blanks must not fill memory).
            if start > 0 {
                droppedBlanks += start
                undecided.removeAll(keepingCapacity: true)
            }
            return
        }
        guard let reader = chooseReader(undecided[start...]) else { return }  // more bytes decide
        let options = collector.options
        let rest = Array(undecided[start...])
        readerBase = droppedBlanks + start
        undecided = []
        switch reader {
        case .json:
            json = JSONImportReader(options: options)
            rest.withUnsafeBytes { json?.append($0) }
            if finished { json?.finish() }
        case .gpx:
            gpx = GPXImportReader(options: options)
            rest.withUnsafeBytes { gpx?.append($0) }
            if finished { gpx?.finish() }
        case .ndjson, .recorder:
            lineRecords = LineRecordReader(reader == .ndjson ? .ndjson : .recorder, options: options)
            rest.withUnsafeBytes { lineRecords?.append($0) }
            if finished { lineRecords?.finish() }
        case .csv:
            csv = CSVImportReader(options: options)
            rest.withUnsafeBytes { csv?.append($0) }
            if finished { csv?.finish() }
        }
    }

    enum Reader { case json, ndjson, gpx, recorder, csv }

    /// Bytes of the first line looked at for NDJSON (at most `maxRecordBytes`): a longer first
    /// line is JSON's.
    static let ndjsonSniffBytes = 64 * 1024

    /// First members that make an object a JSON document (Records.json, Timeline exports,
    /// GeoJSON), never a line of fixes.
    static let documentMembers: Set<String> = ["locations", "timelineObjects", "semanticSegments", "rawSignals", "features", "type"]

    /// The name of the first member of the object `bytes` start with (`{` then white space and
    /// a string without escapes): "" when it is no such name, nil while the bytes end before it.
    static func firstMemberName(_ bytes: ArraySlice<UInt8>) -> String? {
        var i = bytes.index(after: bytes.startIndex)
        while i < bytes.endIndex, [32, 9, 10, 13].contains(bytes[i]) { i += 1 }
        guard i < bytes.endIndex else { return nil }
        guard bytes[i] == UInt8(ascii: "\"") else { return "" }
        let start = bytes.index(after: i)
        guard let end = bytes[start...].prefix(64).firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return bytes.count - (start - bytes.startIndex) >= 64 ? "" : nil
        }
        return bytes[end] == UInt8(ascii: "\"") ? String(decoding: bytes[start..<end], as: UTF8.self) : ""
    }

    /// The reader for a file starting with `rest` (its first significant byte on), or nil while
    /// more bytes are needed to decide (the first line of a `{`, the time of a Recorder line).
    func chooseReader(_ rest: ArraySlice<UInt8>) -> Reader? {
        switch rest.first {
        case UInt8(ascii: "{"):
            // The first member's name decides a JSON document at once (no line is waited for).
            switch Self.firstMemberName(rest) {
            case nil: return finished ? .json : nil
            case let name?: if Self.documentMembers.contains(name) { return .json }
            }
            let sniff = min(Self.ndjsonSniffBytes, collector.options.maxRecordBytes)
            let lineEnd = rest.prefix(sniff).firstIndex(of: 10)
            guard lineEnd != nil || finished || rest.count >= sniff else { return nil }
            guard lineEnd != nil || finished else { return .json }
            var line = rest[..<(lineEnd ?? rest.endIndex)]
            if line.last == 13 { line = line.dropLast() }
            return LineRecordReader.isNDJSONLine(line) ? .ndjson : .json
        case UInt8(ascii: "["):
            return .json
        case UInt8(ascii: "<"):
            return .gpx
        default:
            switch LineRecordReader.startsRecorderLine(rest) {
            case true?: return .recorder
            case false?: return .csv
            case nil: return finished ? .csv : nil
            }
        }
    }
}
