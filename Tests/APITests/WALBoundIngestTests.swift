@testable import SQLiteStore
import Foundation
import GeoQuery
import JSONCore
import LocationFormats
import Synchronization
import Testing
import HTTPTestSupport
@testable import Tracking
import Storage
import HTTPServer
import API

/// With a bound of a few MiB, the write-ahead log stays within it (plus at most one commit)
/// while appends, merges and geo queries all run at once; once they stop the file is truncated,
/// and every fix is in history and in the cell index (`fod db check` agrees).
@Suite(.enabled(if: TestStoreKind.isSQLite, "the bound on the SQLite file's write-ahead log (--wal-limit-mib) and its gauges; PostgreSQL's WAL is the server's"))
struct WALBoundIngestTests {
    static func walBytes(_ directory: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: directory + "/fod.sqlite-wal")[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test func appendsMergesAndQueriesKeepTheLogWithinAFewMiB() async throws {
        let directory = NSTemporaryDirectory() + "fod-wal-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let limits = WALLimits(maxBytes: 3 << 20, idleTruncateMilliseconds: 20)
        let backend = try SQLiteBackend.open(
            directory: directory, synchronous: .normal,
            merging: MergePolicy(idleMilliseconds: 1, highWater: 2_000, maxAgeSeconds: 0, cycleBatch: 3_000, chunk: 256), wal: limits)
        let services = try Services(store: backend, configuration: TestApp.configuration(), logger: Logger(level: .error))
        let user = try await services.accounts.signUp(email: "wal@example.org", password: "wal-password", displayName: "WAL")
        var devices: [(id: DeviceID, key: DeviceKey)] = []
        for i in 0..<4 {
            let (device, _) = try await services.devices.add(ownerID: user.user.id, name: "d\(i)", platformID: nil)
            let key = try backend.read { db in try db.firstRow("SELECT key FROM devices WHERE id = ?", [.text(device.id.rawValue)]) { DeviceKey(storeValue: $0.int64(0)) } }
            devices.append((device.id, try #require(key)))
        }
        let readable = Dictionary(uniqueKeysWithValues: devices.map {
            ($0.key, SharedDevice(key: $0.key, deviceID: $0.id, userID: user.user.id, last: nil))
        })
        let probe = LoadProbe()
        let batches = 60, perBatch = 100

        // Geo queries over history (cell index + unmerged fixes) until the appends are done.
        let queries = Task.detached {
            let service = GeoQueryService(index: backend, directory: backend)
            let within = try GeoFilter.parse(JSONParser.parse(Array(#"{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.0005]}}"#.utf8)))
            let near = try GeoFilter.parse(JSONParser.parse(Array(#"{"$near":{"$geometry":{"type":"Point","coordinates":[2.35,48.85]}}}"#.utf8)))
            var count = 0
            while probe.running.withLock({ $0 }) {
                var explain = QueryExplain()
                _ = try service.queryHistory(count % 2 == 0 ? within : near, readable: readable, from: nil, to: nil, limit: 50, &explain)
                probe.note(Self.walBytes(directory))
                count += 1
                await Task.yield()   // the cooperative pool must run the writes too
            }
            return count
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (d, device) in devices.enumerated() {
                group.addTask {
                    for batch in 0..<batches {
                        let fixes = (0..<perBatch).map { i in
                            let n = batch * perBatch + i
                            return Fix(longitude: 2.35 + Double((n * 7919) % 1000) * 1e-5, latitude: 48.85 + Double((n * 104_729) % 1000) * 1e-5,
                                       timestamp: 1_700_000_000_000 + Int64(n) * 1_000, clientID: "w\(d)-\(n)")
                        }
                        let outcome = try await backend.append(deviceID: device.id, fixes: fixes, events: .standard) { _ in }
                        #expect(outcome.accepted == perBatch)
                        probe.note(Self.walBytes(directory))
                    }
                }
            }
            try await group.waitForAll()
        }
        probe.running.withLock { $0 = false }
        #expect(try await queries.value > 0)

        // Liveness, not timing: the deadlines only keep a broken merger or bound from hanging the suite.
        #expect(backend.waitUntilAllMerged(deadline: Date().addingTimeInterval(120)))
        let status = backend.walStatus
        #expect(status.writtenBytes >= 4 * limits.maxBytes, "the load wrote many times the bound: \(status)")
        #expect(status.largestCommitBytes < limits.maxBytes / 2, "\(status)")
        #expect(probe.largest.withLock { $0 } <= limits.maxBytes + status.largestCommitBytes, "\(status)")
        #expect(backend.walBound.waitUntilTruncated(deadline: Date().addingTimeInterval(60)))
        #expect(Self.walBytes(directory) == 0)

        let total = devices.count * batches * perBatch
        let consistency = try backend.read { try IndexConsistency.check($0) }
        #expect(consistency == IndexConsistency(history: total, indexed: total, queued: 0, orphans: 0, missing: 0))
        backend.close()
        let (status2, output) = try FodProcess.run(["db", "check", "--data", directory])
        #expect(status2 == 0, "\(output)")
        #expect(output.contains("\(total) fixes in history, \(total) in the cell index, 0 queued"), "\(output)")
    }

    @Test func theBoundIsAFlagAndItsStateIsInTheMetrics() throws {
        let directory = NSTemporaryDirectory() + "fod-wal-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (refused, message) = try FodProcess.run(["serve", "--wal-limit-mib", "0", "--data", directory])
        #expect(refused == 2 && message.contains("--wal-limit-mib must be 1–16384"), "\(message)")
        let server = try FodProcess(dataDirectory: directory, extraArguments: ["--wal-limit-mib", "3"])
        defer { server.stop() }
        let metrics = try HTTPTestClient(port: server.port).get("/metrics", token: FodProcess.metricsToken).text
        let limit = metrics.split(separator: "\n").first { $0.hasPrefix("fod_wal_limit_bytes ") }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        #expect(limit == 3_145_728, "\(metrics)")
        for gauge in ["fod_wal_bytes", "fod_wal_checkpoint_lag_bytes", "fod_wal_last_complete_checkpoint_timestamp_seconds",
                      "fod_wal_restarts_total", "fod_wal_early_restarts_total"] {
            #expect(metrics.contains("\n\(gauge) "), "\(gauge) missing")
        }
    }
}

/// What concurrent load tasks share: whether to go on, and the largest WAL file size seen.
final class LoadProbe: Sendable {
    let running = Mutex(true)
    let largest = Mutex<Int64>(0)

    func note(_ walBytes: Int64) { largest.withLock { $0 = max($0, walBytes) } }
}
