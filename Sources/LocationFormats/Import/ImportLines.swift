/// Line-based import formats: the bytes in a window, cut into lines (LF, or CRLF) as they come.
/// Memory holds at most one line (`maxRecordBytes`) plus one chunk.

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

/// The lines of a text file read in chunks, for CSV (where `"` quotes line breaks) and the
/// formats of one record per line (this server's NDJSON, the OwnTracks Recorder's files).
struct ImportLines: Sendable {
    var window = ImportByteWindow()
    let maxRecordBytes: Int
    /// Whether `"` quotes line breaks (CSV) or is a byte like any other.
    let quotes: Bool
    /// Where the scan for the current line's end resumes, and whether it is inside quotes there.
    var scan = 0
    var inQuotes = false
    var skippingLongLine = false

    init(maxRecordBytes: Int, quotes: Bool) {
        self.maxRecordBytes = maxRecordBytes
        self.quotes = quotes
    }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let shift = window.consumed
        window.append(chunk)
        scan -= shift
    }

    mutating func finish() { window.finished = true }

    /// Hands each line, with the offset of its first byte in the file, to `handle` until
    /// `collector` holds a batch (true: call again), the input runs out before the end (true:
    /// give more), or the file ends or `handle` stopped reading (false, and `done` is set).
    mutating func run(_ collector: inout ImportCollector, done: inout Bool,
                      handle: (ArraySlice<UInt8>, Int, inout ImportCollector) -> Void) -> Bool {
        while collector.ready.count < collector.options.batchSize {
            guard !done, collector.summary.stopped == nil else {
                done = true
                return false
            }
            guard let line = next(&collector) else {
                if window.finished { done = true; return false }
                return true
            }
            collector.summary.bytesRead = window.position
            handle(line, window.base + line.startIndex, &collector)
        }
        return !done
    }

    /// The next complete line (without its line break), or nil when more input is needed or the
    /// input is exhausted. A line longer than `maxRecordBytes` is rejected and skipped (with
    /// `quotes`, line breaks inside quotes included whether or not it is skipped), so record
    /// boundaries and rejections never depend on how the file was chunked. A CR before the LF
    /// is dropped.
    mutating func next(_ collector: inout ImportCollector) -> ArraySlice<UInt8>? {
        let bytes = window.bytes
        var i = scan
        while i < bytes.count {
            let c = bytes[i]
            if quotes && c == UInt8(ascii: "\"") { inQuotes.toggle() }
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

}
