import ErrorCodes
import JSONCore
import Timestamps

/// Reads the JSON history formats as a stream of tokens, never holding more than one record.
///
/// The root decides the format: an object's first record array (`locations`, `timelineObjects`,
/// `semanticSegments` / `rawSignals`, `features`), or a root array whose elements say what they
/// are. Other root members are skipped without being built. Elements of `locations` are read
/// field by field straight from the tokens (the fast path for multi-gigabyte `Records.json`);
/// every other element is kept as bytes (at most `maxRecordBytes`), parsed whole with
/// `JSONParser` and handed to its format's reader. A second family of record arrays in the same
/// file stops the import with `mixed_formats`.
struct JSONImportReader: Sendable {
    /// The arrays whose elements are records.
    enum RecordArray: Sendable, Equatable {
        case locations, timelineObjects, semanticSegments, rawSignals, features, root
    }

    enum State: Sendable, Equatable {
        case start
        /// In the root object, between members.
        case rootMembers
        /// After a root member name: its value comes next (nil: a member we skip).
        case rootValue(RecordArray?)
        /// In a record array whose `[` has depth `depth`: an element or `]` comes next.
        case elements(RecordArray, depth: Int)
        /// In a `locations` element (an object of depth `depth`), read field by field.
        case locationRecord(depth: Int)
        /// In the `location` array of a `locations` element.
        case locationArray(depth: Int)
        case done
    }

    /// A value being passed over: until the end token at `depth`; with `captureStart`, its bytes
    /// are kept and parsed at the end as an element of `array`.
    struct Pending: Sendable, Equatable {
        var depth: Int
        var captureStart: Int?
        var array: RecordArray
        var rejectAsTooLarge = false
    }

    var tokenizer: JSONStreamTokenizer
    let maxRecordBytes: Int
    var state = State.start
    var pending: Pending?
    /// Root object bytes kept while it may still be a single GeoJSON Feature or fix.
    var rootKeptFrom: Int?
    var record = GoogleRecordFields()
    var recordSlot: GoogleRecordFields.Slot?
    /// Whether a record array was entered (an empty `locations` is still Records.json).
    var sawRecordArray = false

    init(options: ImportOptions) {
        tokenizer = JSONStreamTokenizer(limits: .init(maxDepth: options.jsonLimits.maxDepth,
                                                      maxTokenBytes: options.jsonLimits.maxTokenBytes))
        maxRecordBytes = options.maxRecordBytes
    }

    mutating func append(_ chunk: UnsafeRawBufferPointer) { tokenizer.append(chunk) }
    mutating func finish() { tokenizer.finish() }

    /// Reads until `collector` holds a batch, the input runs out (true: give more or finish), or
    /// the document ends or stops (false).
    mutating func run(_ collector: inout ImportCollector) -> Bool {
        while collector.ready.count < collector.options.batchSize {
            // After the root value only white space may follow: keep reading until `.end`.
            guard collector.summary.stopped == nil else { return false }
            if let p = pending {
                // Skipped and captured values are consumed inside the tokenizer, token by token.
                let end: JSONStreamToken?
                do { end = try tokenizer.skipContainer(depth: p.depth) } catch { stop(error, &collector); return false }
                collector.summary.bytesRead = tokenizer.position
                guard let end else {
                    limitCapture()
                    limitRootKeep()
                    return true
                }
                finishPending(end, &collector)
                continue
            }
            let step: JSONStreamTokenizer.Step
            do { step = try tokenizer.next() } catch { stop(error, &collector); return false }
            collector.summary.bytesRead = tokenizer.position
            switch step {
            case .needInput: return true
            case .end: state = .done; return false
            case .token(let token): handle(token, &collector)
            }
        }
        return true
    }

    mutating func handle(_ token: JSONStreamToken, _ collector: inout ImportCollector) {
        limitRootKeep()
        switch state {
        case .start:
            switch token.kind {
            case .beginObject:
                rootKeptFrom = token.start
                tokenizer.keep(from: token.start)
                state = .rootMembers
            case .beginArray:
                state = .elements(.root, depth: 0)
            default:
                stop(.unknownFormat, "the file is a single JSON value (\(token.typeWithArticle)), not location history", token, &collector)
            }
        case .rootMembers:
            if token.kind == .endObject { finishRoot(token, &collector); return }
            let array = recordArray(named: token)
            if let array, !enterFamily(array, token, &collector) { return }
            state = .rootValue(array)
        case .rootValue(let array):
            guard let array else { skip(token); state = .rootMembers; return }
            guard token.kind == .beginArray else {
                stop(.invalidFile, "\(array.memberName) must be an array, not \(token.typeWithArticle)", token, &collector)
                return
            }
            releaseRoot()
            sawRecordArray = true
            state = .elements(array, depth: token.depth)
        case .elements(let array, let depth):
            if token.kind == .endArray && token.depth == depth {
                state = depth == 0 ? .done : .rootMembers
            } else if array == .locations && token.kind == .beginObject {
                record = GoogleRecordFields()
                recordSlot = nil
                state = .locationRecord(depth: token.depth)
            } else if token.kind == .beginObject || token.kind == .beginArray {
                tokenizer.keep(from: token.start)
                pending = Pending(depth: token.depth, captureStart: token.start, array: array)
            } else {
                collector.reject(.invalidFix("each element of \(array.memberName) must be an object, not \(token.typeWithArticle)"))
            }
        case .locationRecord(let depth):
            readRecordField(token, depth: depth, &collector)
        case .locationArray(let depth):
            if token.kind == .endArray && token.depth == depth {
                state = .locationRecord(depth: depth - 1)
            } else if token.kind == .number, let n = tokenizer.number(token) {
                record.appendCoordinate(n)
            } else {
                record.invalidateCoordinates()
                skip(token)
            }
        case .done:
            break
        }
    }

    /// One token inside a `locations` element at `depth`.
    mutating func readRecordField(_ token: JSONStreamToken, depth: Int, _ collector: inout ImportCollector) {
        switch token.kind {
        case .endObject where token.depth == depth:
            state = .elements(.locations, depth: depth - 1)
            finishRecord(&collector)
        case .key:
            recordSlot = GoogleRecordFields.slot(for: token, in: tokenizer)
        case .beginArray where recordSlot == .location:
            record.startCoordinates()
            state = .locationArray(depth: token.depth)
        case .beginArray, .beginObject:
            if let slot = recordSlot { record[slot] = .container(isArray: token.kind == .beginArray) }
            skip(token)
        default:
            if let slot = recordSlot { record[slot] = field(token, slot: slot) }
        }
        if token.kind != .key { recordSlot = nil }
    }

    mutating func finishRecord(_ collector: inout ImportCollector) {
        guard let format = record.format else {
            collector.reject(.invalidFix("each element of locations needs latitudeE7 and longitudeE7 (Google Records.json) or location (this server's fixes)"))
            return
        }
        if let known = collector.summary.format, known != format {
            stop(.mixedFormats, "locations mixes Google Records.json records and this server's fixes", nil, &collector)
            return
        }
        collector.summary.format = format
        let fields = record
        let now = collector.now, rules = collector.rules
        collector.point(format) { () throws(FixError) in try fields.fix(now: now, rules: rules) }
    }

    /// The value of a scalar token as the field of `slot`: times are read from the bytes
    /// directly (no String on the hot path), other strings decoded only where kept.
    func field(_ token: JSONStreamToken, slot: GoogleRecordFields.Slot) -> GoogleRecordFields.Field {
        switch token.kind {
        case .number:
            return tokenizer.number(token).map(GoogleRecordFields.Field.number) ?? .null
        case .string where !token.hasEscapes && (slot == .timestamp || slot == .timestampMs):
            let ms = tokenizer.withBytes(from: token.start, to: token.end) { raw -> Int64? in
                guard let raw else { return nil }
                let bytes = raw.assumingMemoryBound(to: UInt8.self)
                return slot == .timestamp ? Timestamp.parseRFC3339(utf8: bytes) : ImportText.integer(utf8: bytes)
            }
            return ms.map(GoogleRecordFields.Field.milliseconds) ?? .invalidText
        case .string:
            guard let text = tokenizer.string(token) else { return .invalidText }
            return GoogleRecordFields.field(.string(text), slot: slot)
        case .bool:
            return .bool(token.boolValue)
        default:
            return .null
        }
    }

    // MARK: Skipping and capturing values

    /// Passes over the value that starts with `token` (nothing to do for a scalar).
    mutating func skip(_ token: JSONStreamToken) {
        guard token.kind == .beginObject || token.kind == .beginArray else { return }
        pending = Pending(depth: token.depth, captureStart: nil, array: .root)
    }

    /// A captured value that outgrew `maxRecordBytes` is skipped instead (and rejected at its end).
    mutating func limitCapture() {
        guard var p = pending, let start = p.captureStart, tokenizer.position - start > maxRecordBytes else { return }
        p.captureStart = nil
        p.rejectAsTooLarge = true
        pending = p
        tokenizer.keep(from: nil)
    }

    /// The value being skipped or captured ended with `token`.
    mutating func finishPending(_ token: JSONStreamToken, _ collector: inout ImportCollector) {
        guard let p = pending else { return }
        pending = nil
        if p.rejectAsTooLarge || p.captureStart.map({ token.end - $0 > maxRecordBytes }) == true {
            if p.captureStart != nil { tokenizer.keep(from: nil) }
            collector.reject(ImportCollector.recordTooLarge(maxRecordBytes))
            return
        }
        guard let start = p.captureStart else { return }
        let parsed: Result<JSONValue, JSONParseError> = tokenizer.withBytes(from: start, to: token.end) { bytes in
            guard let bytes else { return .failure(JSONParseError(kind: .syntax, offset: 0, line: 1, column: 1, reason: "record no longer buffered")) }
            return Result { () throws(JSONParseError) in try JSONParser.parse(bytes, limits: .init(maxDepth: tokenizer.limits.maxDepth)) }
        }
        tokenizer.keep(from: nil)
        switch parsed {
        case .success(let value): element(value, of: p.array, &collector)
        case .failure(let error): collector.reject(FixError(code: .invalidRecord, message: "the record is not valid JSON: \(error.reason)"))
        }
    }

    /// Hands a whole element to its format's reader.
    mutating func element(_ value: JSONValue, of array: RecordArray, _ collector: inout ImportCollector) {
        switch array {
        case .timelineObjects: SemanticHistoryReader.timelineObject(value, &collector)
        case .semanticSegments: TimelineExportReader.segment(value, &collector)
        case .rawSignals: TimelineExportReader.rawSignal(value, &collector)
        case .features: GeoJSONImportReader.feature(value, &collector)
        case .locations: break  // read field by field, never captured
        case .root: rootElement(value, &collector)
        }
    }

    /// An element of a root array: iOS Timeline segments, GeoJSON features, Google records or
    /// this server's fixes; the first element decides, another kind stops with `mixed_formats`.
    mutating func rootElement(_ value: JSONValue, _ collector: inout ImportCollector) {
        guard case .object(let object) = value else {
            collector.reject(.invalidFix("each element of the array must be an object, not \(value.typeWithArticle)"))
            return
        }
        let format: ImportFormat
        if object["startTime"] != nil || object["endTime"] != nil { format = .googleTimeline }
        else if object["type"]?.stringValue == "Feature" { format = .geojson }
        else if object["latitudeE7"] != nil || object["longitudeE7"] != nil { format = .googleRecords }
        else if object["location"] != nil { format = .native }
        else {
            collector.reject(FixError(code: .invalidRecord, message: "the element is neither a Timeline segment, a GeoJSON Feature, a Google record nor a fix"))
            return
        }
        if let known = collector.summary.format, known != format {
            stop(.mixedFormats, "the array mixes \(known.rawValue) and \(format.rawValue) elements", nil, &collector)
            return
        }
        collector.summary.format = format
        switch format {
        case .googleTimeline: TimelineExportReader.segment(value, &collector)
        case .geojson: GeoJSONImportReader.feature(value, &collector)
        case .googleRecords:
            let fields = GoogleRecordFields(object)
            let now = collector.now, rules = collector.rules
        collector.point(format) { () throws(FixError) in try fields.fix(now: now, rules: rules) }
        default:
            let now = collector.now, rules = collector.rules
            collector.point(format) { () throws(FixError) in try NativeFormat.fix(object, now: now, rules: rules) }
        }
    }

    // MARK: The root object

    func recordArray(named token: JSONStreamToken) -> RecordArray? {
        if tokenizer.matches(token, "locations") { return .locations }
        if tokenizer.matches(token, "timelineObjects") { return .timelineObjects }
        if tokenizer.matches(token, "semanticSegments") { return .semanticSegments }
        if tokenizer.matches(token, "rawSignals") { return .rawSignals }
        if tokenizer.matches(token, "features") { return .features }
        return nil
    }

    /// Records the format of a root record array; false (and stopped) when another family came first.
    mutating func enterFamily(_ array: RecordArray, _ token: JSONStreamToken, _ collector: inout ImportCollector) -> Bool {
        let format: ImportFormat? = switch array {
        case .timelineObjects: .googleSemantic
        case .semanticSegments, .rawSignals: .googleTimeline
        case .features: .geojson
        case .locations, .root: nil
        }
        let known = collector.summary.format
        let clash = switch (known, format) {
        case (nil, _): false
        case (let k?, let f?): k != f
        case (let k?, nil): k != .googleRecords && k != .native
        }
        if clash, let known {
            stop(.mixedFormats, "the file holds \(known.rawValue) data and then \(array.memberName) (\(format?.rawValue ?? "Google Records.json")): import them as separate files", token, &collector)
            return false
        }
        if let format { collector.summary.format = format }
        return true
    }

    /// The root object outgrew `maxRecordBytes` (a single Feature or fix cannot be that large):
    /// its bytes are no longer kept. Checked at every token and, while a member is skipped, at
    /// every chunk, so a large member ahead of the record array is not held.
    mutating func limitRootKeep() {
        guard let kept = rootKeptFrom, tokenizer.position - kept > maxRecordBytes else { return }
        rootKeptFrom = nil
        tokenizer.keep(from: nil)
    }

    mutating func releaseRoot() {
        if rootKeptFrom != nil { tokenizer.keep(from: nil) }
        rootKeptFrom = nil
    }

    /// The root object ended: a single GeoJSON Feature or fix when no record array decided the
    /// format, else nothing more to do.
    mutating func finishRoot(_ token: JSONStreamToken, _ collector: inout ImportCollector) {
        state = .done
        if collector.summary.format == nil && sawRecordArray { collector.summary.format = .googleRecords }
        guard collector.summary.format == nil else { releaseRoot(); return }
        guard let start = rootKeptFrom else {
            stop(.unknownFormat, "the JSON object has no locations, timelineObjects, semanticSegments, rawSignals or features", token, &collector)
            return
        }
        let root = tokenizer.withBytes(from: start, to: token.end) { bytes in bytes.flatMap { try? JSONParser.parse($0) } }
        releaseRoot()
        guard case .object(let object)? = root else {
            stop(.invalidFile, "the JSON object could not be read", token, &collector)
            return
        }
        if object["type"]?.stringValue == "Feature" {
            collector.summary.format = .geojson
            GeoJSONImportReader.feature(.object(object), &collector)
        } else if object["location"] != nil {
            collector.summary.format = .native
            let now = collector.now, rules = collector.rules
            collector.point(.native) { () throws(FixError) in try NativeFormat.fix(object, now: now, rules: rules) }
        } else {
            stop(.unknownFormat, "the JSON object has no locations, timelineObjects, semanticSegments, rawSignals or features", token, &collector)
        }
    }

    // MARK: Stopping

    mutating func stop(_ code: ErrorCode, _ message: String, _ token: JSONStreamToken?, _ collector: inout ImportCollector) {
        collector.summary.stopped = ImportStop(code: code, message: message, offset: token?.start ?? tokenizer.position)
        state = .done
    }

    mutating func stop(_ error: JSONStreamError, _ collector: inout ImportCollector) {
        let code: ErrorCode = switch error.kind {
        case .syntax: .invalidFile
        case .truncated: .truncatedFile
        case .limitExceeded: .limitExceeded
        }
        let message = switch error.kind {
        case .syntax: "invalid JSON: \(error.reason)"
        case .truncated: "the file is cut short: \(error.reason)"
        case .limitExceeded: error.reason
        }
        collector.summary.stopped = ImportStop(code: code, message: message, offset: error.offset)
        state = .done
    }
}

extension JSONImportReader.RecordArray {
    var memberName: String {
        switch self {
        case .locations: "locations"
        case .timelineObjects: "timelineObjects"
        case .semanticSegments: "semanticSegments"
        case .rawSignals: "rawSignals"
        case .features: "features"
        case .root: "the array"
        }
    }
}
