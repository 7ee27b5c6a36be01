import Foundation
import HTTPTestSupport
import Storage
import Synchronization
import Testing

/// `fod db backup` while the server takes fixes, and `fod db restore` into a fresh data
/// directory: every fix acknowledged before the backup began is in the restored database, and
/// nothing else but fixes that were sent. Restore refuses a directory a server holds, one that
/// already has a database, and a backup of a newer release.
@Suite struct BackupRestoreTests {
    /// Fixes acknowledged (2xx) by the server, in the order the acknowledgements came back.
    final class Ledger: Sendable {
        private let acknowledged = Mutex<[Int]>([])
        private let sent = Mutex<Set<Int>>([])
        /// Signalled once `threshold` fixes are acknowledged, or a poster failed.
        let enough = DispatchSemaphore(value: 0)
        private let threshold: Int
        private let signalled = Atomic<Bool>(false)

        init(threshold: Int) { self.threshold = threshold }

        func willSend(_ ids: [Int]) { sent.withLock { $0.formUnion(ids) } }
        func acknowledge(_ ids: [Int]) {
            if acknowledged.withLock({ $0 += ids; return $0.count }) >= threshold { signalEnough() }
        }
        func signalEnough() {
            if !signalled.exchange(true, ordering: .acquiringAndReleasing) { enough.signal() }
        }
        var acknowledgedIDs: [Int] { acknowledged.withLock { $0 } }
        var sentIDs: Set<Int> { sent.withLock { $0 } }
    }

    @Test func aBackupUnderIngestRestoresEveryAcknowledgedFix() throws {
        let original = try scratchDirectory("fod-backup-")
        defer { removeScratch(original) }
        let restored = try scratchDirectory("fod-restored-") + "/data"
        defer { removeScratch((restored as NSString).deletingLastPathComponent) }
        let backupFile = original + "-backup.sqlite"
        defer { try? FileManager.default.removeItem(atPath: backupFile) }

        let server = try FodProcess(dataDirectory: original + "/data")
        let account = try TestAccount.make("backup", on: try HTTPTestClient(port: server.port))
        let ledger = Ledger(threshold: 2_000)
        let stop = Atomic<Bool>(false)
        let postersDone = DispatchGroup()
        let failures = Mutex<[String]>([])
        // Four clients post batches of 20 fixes with ids until told to stop.
        for poster in 0..<4 {
            postersDone.enter()
            let port = server.port, device = account
            Thread {
                defer { postersDone.leave() }
                do {
                    let client = try HTTPTestClient(port: port)
                    var batch = 0
                    while !stop.load(ordering: .acquiring) {
                        let ids = (0..<20).map { 1_000_000 * poster + 20 * batch + $0 }
                        batch += 1
                        ledger.willSend(ids)
                        let reply = try client.request("POST", "/v1/devices/\(device.deviceID)/locations", token: device.deviceToken,
                                                       json: TestAccount.batch(ids))
                        if (200..<300).contains(reply.status) { ledger.acknowledge(ids) }
                    }
                } catch {
                    failures.withLock { $0.append("poster \(poster): \(error)") }
                    ledger.signalEnough()
                }
            }.start()
        }
        // Let ingest run, then back up in the middle of it.
        #expect(ledger.enough.wait(timeout: .now() + 300) == .success, "ingest did not get going")
        let beforeBackup = ledger.acknowledgedIDs
        let (status, output) = try FodProcess.run(["db", "backup", backupFile, "--data", original + "/data"])
        let afterBackup = ledger.acknowledgedIDs.count
        stop.store(true, ordering: .releasing)
        postersDone.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(status == 0 && output.contains("(verified)"), "\(output)")
        #expect(server.stop() == 0)
        print("backup under ingest: \(beforeBackup.count) fixes acknowledged before it began, \(afterBackup - beforeBackup.count) while it ran")

        let (restoreStatus, restoreOutput) = try FodProcess.run(["db", "restore", backupFile, "--data", restored])
        #expect(restoreStatus == 0 && restoreOutput.contains("restored"), "\(restoreOutput)")
        let (checkStatus, checkOutput) = try FodProcess.run(["db", "check", "--data", restored])
        #expect(checkStatus == 0, "\(checkOutput)")
        let copy = try FodProcess(dataDirectory: restored)
        let stored = try account.storedFixIDs(on: try HTTPTestClient(port: copy.port))
        #expect(copy.stop() == 0)
        let storedSet = Set(stored)
        #expect(stored.count == storedSet.count, "a fix is stored twice")
        let lost = beforeBackup.filter { !storedSet.contains("fix-\($0)") }
        #expect(lost.isEmpty, "\(lost.count) acknowledged fixes lost, e.g. \(lost.prefix(5))")
        let sent = Set(ledger.sentIDs.map { "fix-\($0)" })
        #expect(storedSet.isSubset(of: sent))
    }

    @Test func restoreRefusesADirectoryAServerHoldsOrThatHasADatabase() throws {
        let directory = try scratchDirectory("fod-restore-refused-")
        defer { removeScratch(directory) }
        let data = directory + "/data"
        let server = try FodProcess(dataDirectory: data)
        let account = try TestAccount.make("refused", on: try HTTPTestClient(port: server.port))
        let (backupStatus, backupOutput) = try FodProcess.run(["db", "backup", directory + "/backup.sqlite", "--data", data])
        #expect(backupStatus == 0, "\(backupOutput)")
        let served = try FodProcess.run(["db", "restore", directory + "/backup.sqlite", "--data", data])
        #expect(served.0 == 1 && served.1.contains("is in use by a running server (process "), "\(served.1)")
        // The server goes on as before.
        #expect(try HTTPTestClient(port: server.port).get("/v1/devices/\(account.deviceID)", token: account.token).status == 200)
        #expect(server.stop() == 0)
        let occupied = try FodProcess.run(["db", "restore", directory + "/backup.sqlite", "--data", data])
        #expect(occupied.0 == 1 && occupied.1.contains("already holds a database"), "\(occupied.1)")
        let missing = try FodProcess.run(["db", "restore", directory + "/no-such.sqlite", "--data", directory + "/other"])
        #expect(missing.0 != 0 && missing.1.contains("no backup file"), "\(missing.1)")
    }

    @Test func restoreRefusesABackupOfANewerRelease() throws {
        let directory = try scratchDirectory("fod-restore-newer-")
        defer { removeScratch(directory) }
        let server = try FodProcess(dataDirectory: directory + "/data")
        #expect(server.stop() == 0)
        let (status, output) = try FodProcess.run(["db", "backup", directory + "/backup.sqlite", "--data", directory + "/data"])
        #expect(status == 0, "\(output)")
        let newer = try SchemaVersionTests.raiseVersion(of: directory + "/backup.sqlite")
        let refused = try FodProcess.run(["db", "restore", directory + "/backup.sqlite", "--data", directory + "/fresh"])
        #expect(refused.0 == 1 && refused.1.contains("has schema version \(newer), newer than this fod knows"), "\(refused.1)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/fresh/fod.sqlite"))
    }
}
