import ErrorCodes

/// Where every reader puts its points: valid ones become fixes with a derived client id (ready
/// for the next batch), invalid ones are counted by code with a few samples. One index per point.
struct ImportCollector: Sendable {
    let options: ImportOptions
    var ready: [Fix] = []
    var summary = ImportSummary()
    var samplesPerCode: [ErrorCode: Int] = [:]

    init(options: ImportOptions) {
        self.options = options
        ready.reserveCapacity(options.batchSize)
    }

    var rules: FixRules { options.rules }
    var now: Int64 { options.now }

    /// Validates and keeps one point: `make` builds the fix with the native checks or throws
    /// the first `FixError`. A point without its own time is rejected (`missing_timestamp`):
    /// history cannot be placed at "now".
    mutating func point(_ format: ImportFormat, _ make: () throws(FixError) -> Fix) {
        do throws(FixError) {
            var fix = try make()
            guard fix.timestampWasGiven else { throw ImportCollector.missingTimestamp }
            if fix.clientID == nil { fix.clientID = ImportCollector.clientID(for: fix, format: format) }
            summary.points += 1
            summary.emitted += 1
            ready.append(fix)
        } catch {
            reject(error)
        }
    }

    /// Counts a point that cannot be imported.
    mutating func reject(_ error: FixError) {
        let index = summary.points
        summary.points += 1
        summary.rejected += 1
        summary.rejectedByCode[error.code, default: 0] += 1
        let forCode = samplesPerCode[error.code, default: 0]
        if summary.samples.count < options.maxSamples && forCode < options.maxSamplesPerCode {
            summary.samples.append(ImportRejection(index: index, error: error))
            samplesPerCode[error.code] = forCode + 1
        }
    }

    static let missingTimestamp = FixError(code: .missingTimestamp, message: "the point has no timestamp: history needs the time of each point")

    static func recordTooLarge(_ limit: Int) -> FixError {
        FixError(code: .recordTooLarge, message: "the record is larger than \(limit) bytes and was skipped")
    }

    /// A client id derived from the content: `<format tag>:<epoch ms>:<latitude E7>:<longitude E7>`,
    /// so the same point of the same file imports once however often the file is imported.
    /// Coordinates are validated (|lat| ≤ 90, |lng| ≤ 180) before this is called, so the E7
    /// values fit easily in `Int64`.
    static func clientID(for fix: Fix, format: ImportFormat) -> String {
        let latE7 = Int64((fix.latitude * 1e7).rounded())
        let lngE7 = Int64((fix.longitude * 1e7).rounded())
        // Written digit by digit into one buffer: this runs for every imported fix.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 80) { buffer in
            var n = 0
            for c in format.clientIDTag.utf8 { buffer[n] = c; n += 1 }
            for value in [fix.timestamp, latE7, lngE7] {
                buffer[n] = UInt8(ascii: ":")
                n += 1
                n += writeDecimal(value, into: UnsafeMutableBufferPointer(rebasing: buffer[n...]))
            }
            return String(decoding: buffer[..<n], as: UTF8.self)
        }
    }

    /// Writes `value` in decimal at the start of `out` (room for 20 bytes); returns the length.
    static func writeDecimal(_ value: Int64, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var n = 0
        if value < 0 { out[0] = UInt8(ascii: "-"); n = 1 }
        let start = n
        repeat {
            out[n] = UInt8(truncatingIfNeeded: 48 &+ magnitude % 10)
            magnitude /= 10
            n += 1
        } while magnitude > 0
        var i = start, j = n - 1
        while i < j { out.swapAt(i, j); i += 1; j -= 1 }
        return n
    }
}
