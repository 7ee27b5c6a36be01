/// Helpers every fuzz target uses: reading libFuzzer's input and failing on a broken invariant.

/// Stops the process when an invariant does not hold. libFuzzer treats the trap as a crash
/// and saves the input, so logic bugs are found like crashes.
func require(_ condition: Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("invariant failed: \(message())", file: file, line: line) }
}

/// libFuzzer's input as an array (a null pointer is an empty input).
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The input split into a selector (its first byte) and the rest, for targets that fuzz
/// several entry points from one corpus.
func splitSelector(_ bytes: [UInt8]) -> (selector: UInt8, rest: [UInt8])? {
    guard let first = bytes.first else { return nil }
    return (first, Array(bytes.dropFirst()))
}

/// A readable rendering of an input for invariant messages (at most `limit` characters).
func shown(_ bytes: some Collection<UInt8>, limit: Int = 300) -> String {
    let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
    return bytes.count > limit ? text + "…" : text
}
