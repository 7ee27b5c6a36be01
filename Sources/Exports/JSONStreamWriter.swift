import JSONCore

/// A streaming JSON export whose `JSONWriter` appends straight to the caller's buffer: the two
/// buffers are swapped around each write, so no byte is copied.
protocol JSONStreamWriter {
    /// The writer; its own bytes are the caller's while a write runs.
    var json: JSONWriter { get set }
}

extension JSONStreamWriter {
    /// Runs `body` on this export with `json` appending to the end of `out`.
    mutating func writing(into out: inout [UInt8], _ body: (inout Self) -> Void) {
        swap(&json.bytes, &out)
        defer { swap(&json.bytes, &out) }
        body(&self)
    }
}

/// Where a streamed JSON document is: nothing written yet, open, or closed (nothing more is
/// written).
enum JSONDocumentPhase: Sendable {
    case notStarted, writing, finished
}

/// A streaming export that writes one JSON document: opened before the first thing written
/// into it (or by `finish` when nothing was), closed once.
protocol JSONDocumentWriter: JSONStreamWriter {
    var phase: JSONDocumentPhase { get set }
    /// Writes the document's opening.
    mutating func open()
}

extension JSONDocumentWriter {
    /// `JSONStreamWriter.writing`, opening the document first if nothing was written yet.
    mutating func writingDocument(into out: inout [UInt8], _ body: (inout Self) -> Void) {
        writing(into: &out) { export in
            if export.phase == .notStarted {
                export.open()
                export.phase = .writing
            }
            body(&export)
        }
    }

    /// Closes the document with `close` (opened first if nothing was written); later calls
    /// write nothing.
    mutating func finishDocument(into out: inout [UInt8], _ close: (inout Self) -> Void) {
        guard phase != .finished else { return }
        writingDocument(into: &out, close)
        phase = .finished
    }
}
