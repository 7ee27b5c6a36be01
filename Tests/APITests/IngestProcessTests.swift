import Foundation
import Synchronization
import Testing
import HTTPTestSupport

/// Ingest against the real executable: restarts and kill -9.
@Suite struct IngestProcessTests {
    /// Signs up, adds a device; returns (user token, device id, device token).
    func setUp(_ port: UInt16) throws -> (String, String, String) {
        let client = try HTTPTestClient(port: port)
        let user = try client.request("POST", "/v1/users", json: #"{"email":"i@example.org","password":"password-i","displayName":"I"}"#)
        let token = user.json["token"].string ?? ""
        let device = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"tracker"}"#)
        return (token, device.json["device"]["id"].string ?? "", device.json["deviceToken"].string ?? "")
    }

    func batch(_ range: Range<Int>, withIDs: Bool) -> String {
        let fixes = range.map { i in
            #"{"location":[\#(Double(i % 3600) / 10 - 180),\#(Double(i % 1800) / 10 - 90)],"timestamp":\#(1_700_000_000_000 + Int64(i) * 1000)\#(withIDs ? #","id":"f\#(i)""# : "")}"#
        }
        return #"{"locations":[\#(fixes.joined(separator: ","))]}"#
    }

    @Test func duplicatesAreRecognisedAcrossARestart() throws {
        let served = try ServedStore("fod-ingest-")
        defer { served.remove() }
        let first = try served.serve()
        let (_, deviceID, deviceToken) = try setUp(first.port)
        let withIDs = batch(0..<100, withIDs: true), withoutIDs = batch(100..<200, withIDs: false)
        for body in [withIDs, withoutIDs] {
            #expect(try HTTPTestClient(port: first.port).request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: body).json["accepted"].int == 100)
        }
        #expect(first.stop() == 0)
        let second = try served.serve()
        defer { second.stop() }
        for body in [withIDs, withoutIDs] {
            let reply = try HTTPTestClient(port: second.port).request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken, json: body)
            #expect(reply.json["accepted"].int == 0 && reply.json["duplicates"].int == 100)
        }
    }

    @Test func killDashNineDuringAStreamOfBatchesLosesNoAcknowledgedFix() throws {
        let served = try ServedStore("fod-ingest-")
        defer { served.remove() }
        let server = try served.serve()
        let (userToken, deviceID, deviceToken) = try setUp(server.port)
        let acknowledged = Mutex<Set<Int>>([])
        let streams = 4
        let enoughSent = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for stream in 0..<streams {
            group.enter()
            DispatchQueue.global().async {
                // A stream that ends early (a refused request) still counts as ready, so the kill
                // is never waited for in vain; the count of acknowledged fixes below then fails.
                var signalled = false
                defer {
                    if !signalled { enoughSent.signal() }
                    group.leave()
                }
                guard let client = try? HTTPTestClient(port: server.port) else { return }
                var n = 0
                while n < 400 {
                    let start = (n * streams + stream) * 50
                    guard let reply = try? client.request("POST", "/v1/devices/\(deviceID)/locations", token: deviceToken,
                                                          json: self.batch(start..<start + 50, withIDs: true)),
                          reply.status == 200 else { return }
                    acknowledged.withLock { $0.formUnion(start..<start + 50) }
                    if n == 20 { enoughSent.signal(); signalled = true }
                    n += 1
                }
            }
        }
        // Kill while all four streams are still sending.
        for _ in 0..<streams { #expect(enoughSent.wait(timeout: .now() + 300) == .success, "a stream never got 21 batches acknowledged") }
        server.stop(signal: SIGKILL)
        #expect(group.wait(timeout: .now() + 300) == .success, "a stream did not end after the kill")
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= streams * 21 * 50)

        let restarted = try served.serve()
        defer { restarted.stop() }
        var stored = Set<Int>()
        var cursor: String?
        let client = try HTTPTestClient(port: restarted.port)
        repeat {
            let page = try client.get("/v1/devices/\(deviceID)/locations?limit=10000" + (cursor.map { "&cursor=\($0)" } ?? ""), token: userToken)
            for fix in page.json["locations"].array {
                if let id = fix["id"].string, let n = Int(id.dropFirst()) { stored.insert(n) }
            }
            cursor = page.json["nextCursor"].string
        } while cursor != nil
        #expect(acked.subtracting(stored).isEmpty, "lost \(acked.subtracting(stored).count) acknowledged fixes")
    }
}

/// `fod import` on the store under test: beside a running node on PostgreSQL (`--database`); on
/// the embedded database once the server stopped (it refuses while one holds the data
/// directory: `DataDirectoryLockTests`).
struct ImportCommandTests {
    @Test func importsACSVThroughIngestValidationAndReportsASummary() throws {
        let served = try ServedStore("fod-import-")
        defer { served.remove() }
        let directory = served.directory
        let server = try served.serve()
        let client = try HTTPTestClient(port: server.port)
        let token = try client.request("POST", "/v1/users", json: #"{"email":"m@example.org","password":"password-m","displayName":"M"}"#).json["token"].string ?? ""
        let deviceID = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"bike"}"#).json["device"]["id"].string ?? ""
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/track.csv"
        var csv = "lon,lat,alt,timestamp\n"
        for i in 0..<1200 { csv += "\(16 + Double(i) / 10000),\(51.5 + Double(i) / 10000),118,\(1_685_613_600 + i)\n" }
        csv += "16.1,51.5,118,\n200,51.5,118,1685700000\n"
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        let onPostgres = !served.storeArguments.isEmpty
        if !onPostgres { #expect(server.stop() == 0) }
        let (status, output) = try FodProcess.run(["import", "--device", deviceID, file, "--data", directory] + served.storeArguments)
        #expect(status == 0, "\(output)")
        #expect(output.contains("(csv, "), "\(output)")
        #expect(output.contains("1202 points — accepted 1200, duplicates 0, rejected 2"), "\(output)")
        #expect(output.contains("1 × missing_timestamp: the point has no timestamp"), "\(output)")
        #expect(output.contains("longitude/latitude is out of bounds, lng: 200 lat: 51.5"))
        let (_, again) = try FodProcess.run(["import", "--device", deviceID, file, "--data", directory] + served.storeArguments)
        #expect(again.contains("accepted 0, duplicates 1200"))
        let reader = onPostgres ? server : try served.serve()
        let history = try HTTPTestClient(port: reader.port).get("/v1/devices/\(deviceID)/locations?limit=10000", token: token)
        #expect(history.json["locations"].count == 1200)
        reader.stop()
    }
}
