import LocationFormats
import Testing

/// Import options for tests: the fixed `testNow`, small batches so batching is exercised.
func importOptions(batchSize: Int = 3, maxRecordBytes: Int = 16 << 20, maxDepth: Int = 64) -> ImportOptions {
    ImportOptions(now: testNow, batchSize: batchSize, maxRecordBytes: maxRecordBytes,
                  jsonLimits: .init(maxDepth: maxDepth))
}

/// Reads `text` in chunks of `chunk` bytes (nil: at once) and returns every fix and the summary.
func importText(_ text: String, chunk: Int? = nil, options: ImportOptions = importOptions()) -> (fixes: [Fix], summary: ImportSummary) {
    let bytes = Array(text.utf8)
    guard let chunk else { return HistoryImporter.read(bytes, options: options) }
    var importer = HistoryImporter(options: options)
    var fixes: [Fix] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + chunk)
        importer.append(Array(bytes[start..<end]))
        while let batch = importer.nextBatch() {
            #expect(batch.count <= options.batchSize)
            fixes += batch
        }
        start = end
    }
    importer.finish()
    while let batch = importer.nextBatch() { fixes += batch }
    return (fixes, importer.summary)
}

/// 2019-04-01T08:00:00Z and 2023-11-14T00:00:00Z in milliseconds.
let april2019: Int64 = 1_554_105_600_000
let nov2023: Int64 = 1_699_920_000_000

extension ImportSummary {
    /// The codes of the samples, in order.
    var sampleCodes: [String] { samples.map(\.error.code.rawValue) }
    /// `rejectedByCode` with the codes as text.
    var rejectedByCodeText: [String: Int] {
        Dictionary(uniqueKeysWithValues: rejectedByCode.map { ($0.key.rawValue, $0.value) })
    }
}
