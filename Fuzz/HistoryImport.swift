// fuzz-modules: LocationFormats JSONCore Timestamps TestRandom
// fuzz-support: FuzzCheck FixInvariants Chunking
// fuzz-max-len: 16384
//
// The streaming history import (LocationFormats/Import: HistoryImporter with its JSON — Google
// Records.json, Semantic Location History, Timeline exports, GeoJSON, native fixes —, NDJSON,
// OwnTracks Recorder, GPX and CSV readers, the format detected from the content). The first input byte picks the options
// (batch size 1–4, records of at most 1 KiB or 16 MiB, JSON depth 8 or 64, tokens of at most
// 300 bytes or 1 MiB) and the chunking; the rest is the file. Invariants:
// - the summary adds up (points = emitted + rejected, the codes' counts sum to rejected, samples
//   in file order within their limits), every error and stop has a snake_case code and a
//   message, a stop lies inside the file, and every fix passes the native fix rules with a
//   timestamp from the file and a client id (its own or a derived one; in NDJSON its own if
//   any, in Recorder files none: both keep the timestamp rule);
// - batches are full except the last one, and hold at most the batch size;
// - chunking changes nothing: fixes and summary (but for the progress counter `bytesRead`) are
//   the same whether the file comes at once or in pieces of 1–64 bytes;
// - memory stays bounded: after each piece the importer holds at most that piece, one record
//   and one JSON token;
// - a prefix of the file gives a prefix of its fixes, but for the last (a cut CSV line still
//   reads as a line).
import LocationFormats

/// "Now" of the imports: 2026-12-01T00:00:00Z (the tests' Takeout samples date from 2019–2023).
let importNow: Int64 = 1_796_083_200_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistoryImport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, file) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let options = ImportOptions(
        now: importNow, batchSize: Int(selector & 3) + 1,
        maxRecordBytes: selector & 4 == 0 ? 1024 : 16 << 20,
        jsonLimits: .init(maxDepth: selector & 8 == 0 ? 8 : 64, maxTokenBytes: selector & 16 == 0 ? 300 : 1 << 20))
    let context = { "selector \(selector): \(shown(file))" }

    let whole = ImportRun(file, options: options, pieces: file.isEmpty ? [] : [file[...]])
    whole.check(options: options, fileSize: file.count, context: context())

    let maxChunk = [1, 3, 16, 64][Int(selector >> 5 & 3)]
    let chunked = ImportRun(file, options: options, pieces: chunks(of: file, seed: UInt64(selector) << 32 | UInt64(file.count), maxChunk: maxChunk))
    chunked.check(options: options, fileSize: file.count, context: context())
    require(chunked.fixes == whole.fixes, "pieces of up to \(maxChunk) bytes give \(chunked.fixes.count) fixes, at once \(whole.fixes.count): \(context())")
    require(chunked.comparableSummary == whole.comparableSummary,
            "pieces of up to \(maxChunk) bytes give \(chunked.summary), at once \(whole.summary): \(context())")
    let bound = maxChunk + options.maxRecordBytes + options.jsonLimits.maxTokenBytes + 64
    require(chunked.peakBuffered <= bound, "\(chunked.peakBuffered) bytes buffered with pieces of up to \(maxChunk): \(context())")

    guard !file.isEmpty else { return 0 }
    let cut = Int(selector) * 131 % file.count
    let prefix = ImportRun(Array(file[..<cut]), options: options, pieces: cut == 0 ? [] : [file[..<cut]])
    prefix.check(options: options, fileSize: cut, context: context())
    require(whole.fixes.starts(with: prefix.fixes.dropLast()),
            "the first \(cut) bytes give fixes the whole file does not start with: \(context())")
    return 0
}

/// One import of a file fed in `pieces`: the fixes, batch sizes, summary and the most bytes the
/// importer held after a piece.
struct ImportRun {
    var fixes: [Fix] = []
    var batchSizes: [Int] = []
    var summary: ImportSummary
    var peakBuffered = 0

    init(_ file: [UInt8], options: ImportOptions, pieces: [ArraySlice<UInt8>]) {
        var importer = HistoryImporter(options: options)
        var fixes: [Fix] = [], sizes: [Int] = [], peak = 0
        for piece in pieces {
            importer.append(Array(piece))
            peak = max(peak, importer.bufferedBytes)
            while let batch = importer.nextBatch() {
                fixes += batch
                sizes.append(batch.count)
            }
        }
        importer.finish()
        while let batch = importer.nextBatch() {
            fixes += batch
            sizes.append(batch.count)
        }
        require(importer.nextBatch() == nil, "a batch after the importer said it was done")
        require(importer.bytesAppended == file.count, "\(importer.bytesAppended) bytes appended of \(file.count)")
        self.fixes = fixes
        batchSizes = sizes
        summary = importer.summary
        peakBuffered = peak
    }

    /// The summary without the progress counter, which depends on the chunking.
    var comparableSummary: ImportSummary {
        var s = summary
        s.bytesRead = 0
        return s
    }

    func check(options: ImportOptions, fileSize: Int, context: @autoclosure () -> String) {
        let s = summary
        require(s.points == s.emitted + s.rejected && s.emitted == fixes.count, "counts do not add up in \(s): \(context())")
        require(s.rejectedByCode.values.reduce(0, +) == s.rejected && s.rejectedByCode.values.allSatisfy { $0 > 0 },
                "rejections by code \(s.rejectedByCode) for \(s.rejected): \(context())")
        let indices = s.samples.map(\.index)
        require(s.samples.count <= options.maxSamples && indices == indices.sorted() && Set(indices).count == indices.count
                && indices.allSatisfy { $0 >= 0 && $0 < s.points }, "samples \(indices) of \(s.points) points: \(context())")
        for code in Set(s.samples.map(\.error.code)) {
            require(s.samples.filter { $0.error.code == code }.count <= options.maxSamplesPerCode && s.rejectedByCode[code] != nil,
                    "samples of \(code): \(context())")
        }
        for sample in s.samples { checkError(sample.error, context: context()) }
        if let stop = s.stopped {
            checkError(stop.error, context: context())
            require(stop.offset >= 0 && stop.offset <= fileSize, "stopped at \(stop.offset) of \(fileSize) bytes: \(context())")
        }
        require(s.bytesRead >= 0 && s.bytesRead <= fileSize, "read \(s.bytesRead) of \(fileSize) bytes: \(context())")
        if let last = batchSizes.last {
            require(batchSizes.dropLast().allSatisfy { $0 == options.batchSize } && last >= 1 && last <= options.batchSize,
                    "batches of \(batchSizes) with a batch size of \(options.batchSize): \(context())")
        }
        for fix in fixes {
            checkFix(fix, rules: options.rules, now: options.now, context: context())
            let idKept = s.format == .ndjson || (s.format == .owntracksRecorder && fix.clientID == nil)
            require(fix.timestampWasGiven && (fix.clientID != nil || idKept), "fix \(fix) without its own time or a client id: \(context())")
            require(s.format != .owntracksRecorder || fix.clientID == nil, "a Recorder fix with an id \(fix): \(context())")
        }
    }
}
