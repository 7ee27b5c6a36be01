import Foundation
import Testing
import HTTPTestSupport

/// `fod import` against the real executable: a GPX file into a device of a stopped server's store
/// (its data directory, or with `--database` the PostgreSQL database), the summary with
/// rejections grouped by reason, a re-run that stores nothing new, and the fixes served once the
/// server is back.
struct ImportCommandOfflineTests {
    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
          <trk><name>walk</name><trkseg>
            <trkpt lat="48.8566" lon="2.3522"><ele>35</ele><time>2023-06-01T08:00:00Z</time></trkpt>
            <trkpt lat="48.8570" lon="2.3530"><time>2023-06-01T08:01:00Z</time></trkpt>
            <trkpt lat="95.0" lon="2.3540"><time>2023-06-01T08:02:00Z</time></trkpt>
            <trkpt lat="48.8580" lon="2.3550"></trkpt>
            <trkpt lat="48.8590" lon="2.3560"><time>2023-06-01T08:04:00Z</time></trkpt>
          </trkseg></trk>
        </gpx>
        """

    /// A store with one user and device, its server stopped: (user token, device id).
    static func stoppedServerWithADevice(_ served: ServedStore) throws -> (String, String) {
        let server = try served.serve()
        let client = try HTTPTestClient(port: server.port)
        let user = try client.request("POST", "/v1/users", json: #"{"email":"cli@example.org","password":"password-cli","displayName":"C"}"#)
        let token = user.json["token"].string ?? ""
        let deviceID = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"walker"}"#).json["device"]["id"].string ?? ""
        guard server.stop() == 0 else { throw TestFailure("the server did not stop cleanly") }
        return (token, deviceID)
    }

    @Test func importsAFileOfflineWithASummaryAndAReRunStoresNothingNew() throws {
        let served = try ServedStore("fod-import-cli-")
        defer { served.remove() }
        let directory = served.directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (token, deviceID) = try Self.stoppedServerWithADevice(served)
        let file = directory + "/walk.gpx"
        try Self.gpx.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try FodProcess.run(["import", "--device", deviceID, file, "--data", directory] + served.storeArguments)
        #expect(status == 0, "\(output)")
        #expect(output.contains("(gpx, "), "\(output)")
        #expect(output.contains("5 points — accepted 3, duplicates 0, rejected 2"), "\(output)")
        #expect(output.contains("1 × invalid_location"), "\(output)")
        #expect(output.contains("1 × missing_timestamp"), "\(output)")
        let (again, rerun) = try FodProcess.run(["import", "--device", deviceID, file, "--data", directory] + served.storeArguments)
        #expect(again == 0)
        #expect(rerun.contains("accepted 0, duplicates 3, rejected 2"), "\(rerun)")
        let back = try served.serve()
        defer { back.stop() }
        let page = try HTTPTestClient(port: back.port).get("/v1/devices/\(deviceID)/locations", token: token)
        #expect(page.json["locations"].count == 3)
        #expect(page.json["locations"][0]["altitude"].double == 35)
    }

    @Test func aFileThatIsNoHistoryFailsWithItsReason() throws {
        let served = try ServedStore("fod-import-cli-")
        defer { served.remove() }
        let directory = served.directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (_, deviceID) = try Self.stoppedServerWithADevice(served)
        let file = directory + "/empty.json"
        try "   \n".write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try FodProcess.run(["import", "--device", deviceID, file, "--data", directory] + served.storeArguments)
        #expect(status == 1)
        #expect(output.contains("empty_file"), "\(output)")
    }
}
