import LocationFormats
import Timestamps

/// Imports a history file into a device through the normal ingest path: the file is read as a
/// stream (`HistoryImporter`: format from the content, native validation, derived client ids),
/// its fixes are stored in large batches by `LocationService.ingest` (same duplicates, index,
/// latest location, which never moves backwards), and the live feed gets one summary per group
/// at the end (`ImportEventTally`) instead of an event per fix.
///
/// Memory: one chunk of the file, two batches of fixes (one parsed while the other is stored)
/// and the store's bounded backlog (`HistoryImportStore.awaitIngestCapacity`), whatever the
/// file's size. Importing the same file again stores nothing new (every fix's client id is
/// derived from its content).
public final class HistoryImportService: Sendable {
    let locations: LocationService
    let store: any HistoryImportStore
    /// Fixes per stored batch.
    public let batchSize: Int

    public init(locations: LocationService, store: any HistoryImportStore, batchSize: Int = 5_000) {
        self.locations = locations
        self.store = store
        self.batchSize = max(1, batchSize)
    }

    /// How far an import got (for progress lines).
    public struct Progress: Sendable {
        public var bytesRead: Int
        public var points: Int
        public var accepted: Int
        public var duplicates: Int
        public var rejected: Int
    }

    /// What an import did: the reader's summary (format, points, rejections by code with
    /// samples, where it stopped) plus what the store kept.
    public struct Report: Sendable {
        public var summary: ImportSummary
        public var accepted = 0
        public var duplicates = 0
        public var bytes = 0
    }

    /// Checks that `credential` may write the device's locations (its own device token) and
    /// counts one ingest request; call before reading any of the body.
    public func admit(deviceID: DeviceID, credential: Credential, countsAsRequest: Bool = true) throws {
        try PartitionRules(facts: locations.directory).requireWrite(credential, .device(deviceID))
        guard case .device = credential else { throw TrackingError.cannotWrite(.device(deviceID)) }
        if countsAsRequest { try locations.admitRequest(deviceID: deviceID) }
    }

    /// Reads the file with `read` (the next chunk, nil at the end) and stores its fixes.
    /// `progress` is called after every stored batch. The caller ran `admit` first.
    public func run(deviceID: DeviceID, credential: Credential, now: Int64 = Timestamp.nowMilliseconds(),
                    read: () async throws -> [UInt8]?, progress: ((Progress) -> Void)? = nil) async throws -> Report {
        var importer = HistoryImporter(options: ImportOptions(rules: locations.rules, now: now, batchSize: batchSize))
        var tally = ImportEventTally(deviceID: deviceID, sharing: try store.sharingWindows(deviceID: deviceID))
        var report = Report(summary: importer.summary)
        // One batch is stored while the next is parsed: the writer and the parser each keep a
        // core busy instead of taking turns. At most one batch is in flight, so batches are
        // stored in file order (duplicates across batches, latest location) and memory holds
        // two batches. The group awaits the batch in flight whatever happens (nothing is
        // stored after `run` returns or throws).
        try await withThrowingTaskGroup(of: IngestOutcome.self) { inFlight in
            func record(_ outcome: IngestOutcome) {
                report.accepted += outcome.accepted
                report.duplicates += outcome.duplicates
                tally.add(outcome)
                let summary = importer.summary
                progress?(Progress(bytesRead: importer.bytesAppended, points: summary.points, accepted: report.accepted,
                                   duplicates: report.duplicates, rejected: summary.rejected))
            }
            /// Waits for the batch in flight, if any (`next()` is nil at once when there is none).
            func waitForStoring() async throws {
                if let outcome = try await inFlight.next() { record(outcome) }
            }
            func store(_ batch: [Fix]) async throws {
                try await waitForStoring()
                await self.store.awaitIngestCapacity()
                inFlight.addTask { [locations] in
                    try await locations.ingest(batch, deviceID: deviceID, credential: credential, countsAsRequest: false, events: .quiet)
                }
            }
            // Once the reader stopped (a defect made the rest unreadable) the rest is not read.
            while importer.summary.stopped == nil, let chunk = try await read() {
                importer.append(chunk)
                while let batch = importer.nextBatch() { try await store(batch) }
            }
            importer.finish()
            while let batch = importer.nextBatch() { try await store(batch) }
            try await waitForStoring()
        }
        report.summary = importer.summary
        report.bytes = importer.bytesAppended
        if tally.groups.contains(where: { $0.count > 0 }) || tally.latest != nil {
            _ = try await self.store.logImportEvents(tally)   // announced by the store
        }
        return report
    }
}
