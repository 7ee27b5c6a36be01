import Foundation
import Testing
import HTTPTestSupport

/// The data directory's advisory lock through real processes: while `fod serve` runs on the
/// embedded database, `fod import` (and a second server) refuse with a clear message and exit
/// status 1, and the running server never answers 500 because of it (it answered
/// `UNIQUE constraint failed: index_queue.seq` before). On PostgreSQL (`--database`) imports
/// keep working while nodes run.
@Suite struct DataDirectoryLockTests {
    @Test func importRefusesWhileAServerHoldsTheDataDirectory() throws {
        let served = try ServedStore("fod-lock-")
        defer { served.remove() }
        try FileManager.default.createDirectory(atPath: served.directory, withIntermediateDirectories: true)
        let (token, deviceID) = try ImportCommandOfflineTests.stoppedServerWithADevice(served)
        let file = served.directory + "/walk.gpx"
        try ImportCommandOfflineTests.gpx.write(toFile: file, atomically: true, encoding: .utf8)
        let onPostgres = !served.storeArguments.isEmpty
        let server = try served.serve()
        let (status, output) = try FodProcess.run(["import", "--device", deviceID, file, "--data", served.directory] + served.storeArguments)
        let client = try HTTPTestClient(port: server.port)
        if onPostgres {
            // Nodes share the database: an import beside them is fine, and they serve it.
            #expect(status == 0, "\(output)")
            #expect(try client.get("/v1/devices/\(deviceID)/locations", token: token).json["locations"].count == 3)
        } else {
            #expect(status == 1, "\(output)")
            #expect(output.contains("is in use by a running server (process "), "\(output)")
            #expect(output.contains("fod serve): stop it first, or import over HTTP"), "\(output)")
            // Nothing was written, and the server goes on answering as before.
            let page = try client.get("/v1/devices/\(deviceID)/locations", token: token)
            #expect(page.status == 200 && page.json["locations"].count == 0)
            let posted = try client.request("POST", "/v1/devices/\(deviceID)/import", headers: ["Authorization": "Bearer \(token)"],
                                            body: Array(ImportCommandOfflineTests.gpx.utf8))
            #expect(posted.status != 500)
        }
        #expect(server.stop() == 0)
        if !onPostgres {
            // Once the server stopped, the same command runs.
            let (after, text) = try FodProcess.run(["import", "--device", deviceID, file, "--data", served.directory])
            #expect(after == 0 && text.contains("accepted 3"), "\(text)")
        }
    }

    @Test(.enabled(if: TestStoreKind.isSQLite, "PostgreSQL nodes share their database by design"))
    func aSecondServerOnTheSameDataDirectoryRefusesToStart() throws {
        let served = try ServedStore("fod-lock-")
        defer { served.remove() }
        let first = try served.serve()
        let (status, output) = try FodProcess.run(["serve", "--port", "0", "--bind", "127.0.0.1", "--data", served.directory,
                                                   "--password-cost", "minimal", "--log-level", "warning"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("in use by a running server"), "\(output)")
        #expect(try HTTPTestClient(port: first.port).get("/healthz").status == 200)
        #expect(first.stop() == 0)
        // A server killed outright leaves no stale lock: the kernel drops it with the process.
        let killed = try served.serve()
        #expect(killed.stop(signal: SIGKILL) != 0)
        let next = try served.serve()
        #expect(try HTTPTestClient(port: next.port).get("/healthz").status == 200)
        #expect(next.stop() == 0)
    }
}
