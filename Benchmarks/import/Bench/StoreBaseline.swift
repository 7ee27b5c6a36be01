import API
import Foundation
import LocationFormats
import SQLiteStore
import Timestamps
import Tracking

/// `--store <dir>`: the raw batched ingest of the same rows, for the HTTP import to be compared
/// with. The file is parsed into batches first (not timed); then the batches are stored in a
/// fresh database through the same path an import takes — `LocationService.ingest` with the
/// same batch size, no events, waiting for the store's capacity before each batch — without
/// HTTP and without parsing. Prints rows/s acknowledged, then the time until the merge caught up.
enum StoreBaseline {
    static func run(path: String, directory: String, batchSize: Int, indexBuffer: Int?) async throws {
        var importer = HistoryImporter(options: ImportOptions(now: Timestamp.nowMilliseconds(), batchSize: batchSize))
        var batches: [[Fix]] = []
        guard let file = FileHandle(forReadingAtPath: path) else { print("cannot open \(path)"); exit(1) }
        while let data = try file.read(upToCount: 1 << 20), !data.isEmpty {
            importer.append([UInt8](data))
            while let batch = importer.nextBatch() { batches.append(batch) }
        }
        importer.finish()
        while let batch = importer.nextBatch() { batches.append(batch) }
        var merging = MergePolicy.standard
        if let indexBuffer { merging.highWater = indexBuffer }
        let backend = try SQLiteBackend.open(directory: directory, merging: merging)
        defer { backend.close() }
        var policy = AccountService.Policy()
        policy.passwordCost = .minimal
        let accounts = try AccountService(store: backend, directory: backend, policy: policy, hashing: PasswordWork(policy: policy))
        let user = try await accounts.signUp(email: "baseline@example.org", password: "baseline-password", displayName: "Baseline").user
        let (device, _) = try await DeviceService(store: backend).add(ownerID: user.id, name: "baseline", platformID: nil)
        let locations = LocationService(store: backend, directory: backend, requestLimit: .none)
        let credential = Credential.device(deviceID: device.id, ownerID: user.id)
        let rows = batches.reduce(0) { $0 + $1.count }
        let t0 = Timestamp.monotonicNanoseconds()
        var accepted = 0
        for batch in batches {
            await backend.awaitIngestCapacity()
            accepted += try await locations.ingest(batch, deviceID: device.id, credential: credential, countsAsRequest: false, events: .quiet).accepted
        }
        let acknowledged = Double(Timestamp.monotonicNanoseconds() - t0) / 1e9
        _ = backend.waitUntilAllMerged(deadline: Date().addingTimeInterval(3600))
        let merged = Double(Timestamp.monotonicNanoseconds() - t0) / 1e9
        print("store baseline: \(rows) rows in \(batches.count) batches of \(batchSize), \(accepted) stored; index buffer \(merging.highWater)")
        print("store baseline: acknowledged in \(fixed(acknowledged, 2)) s = \(fixed(Double(accepted) / acknowledged, 0)) rows/s; "
              + "merged after \(fixed(merged, 2)) s = \(fixed(Double(accepted) / merged, 0)) rows/s")
    }
}
