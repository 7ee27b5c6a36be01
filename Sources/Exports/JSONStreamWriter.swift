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
