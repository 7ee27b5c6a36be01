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
    /// history cannot be placed at "now". A fix without id gets a derived one when the format
    /// says so (`ImportFormat.derivesClientIDs`).
    mutating func point(_ format: ImportFormat, _ make: () throws(FixError) -> Fix) {
        do throws(FixError) {
            var fix = try make()
            guard fix.timestampWasGiven else { throw ImportCollector.missingTimestamp }
            if fix.clientID == nil && format.derivesClientIDs { fix.clientID = ImportPointID.make(for: fix, format: format) }
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
}
