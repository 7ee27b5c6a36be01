import Foundation
import Testing
import HTTPTestSupport
import ProcessTestSupport

/// Moving over from the OwnTracks Recorder: its month files (`rec/<user>/<device>/YYYY-MM.rec`,
/// lines `<time>\t<topic tag>\t<JSON>`) imported over HTTP one at a time, and with `fod import`
/// from the device's directory or a `.tar` / `.tar.gz` of it — the real executable.
@Suite struct RecorderImportTests {
    /// A line as the Recorder writes it (`%s\t%-18s\t%s\n`).
    static func line(_ seconds: Int, tag: String = "*", _ json: String) -> String {
        let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(seconds)))
        return time + "\t" + tag + String(repeating: " ", count: max(0, 18 - tag.count)) + "\t" + json + "\n"
    }

    static func location(_ seconds: Int, lat: Double, lon: Double) -> String {
        line(seconds, #"{"_type":"location","tid":"an","lat":\#(lat),"lon":\#(lon),"tst":\#(seconds),"acc":8,"vel":18,"batt":70,"t":"u"}"#)
    }

    static let april = 1_711_929_600  // 2024-04-01T00:00:00Z
    static let may = 1_714_521_600  // 2024-05-01T00:00:00Z

    /// Two months of one device: 5 fixes and 2 other messages; April's file has no final newline.
    static func writeDevice(_ directory: String, shift: Double = 0) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let aprilText = location(april + 60, lat: 48.1 + shift, lon: 11.5) + line(april + 90, tag: "lwt", #"{"_type":"lwt","tst":\#(april + 90)}"#)
            + location(april + 120, lat: 48.2 + shift, lon: 11.6)
        try String(aprilText.dropLast()).write(toFile: directory + "/2024-04.rec", atomically: true, encoding: .utf8)
        let mayText = location(may + 60, lat: 48.3 + shift, lon: 11.7)
            + line(may + 61, tag: "event", #"{"_type":"transition","event":"enter","desc":"Home","tst":\#(may + 61),"lat":48.3,"lon":11.7}"#)
            + location(may + 120, lat: 48.4 + shift, lon: 11.8) + location(may + 180, lat: 48.5 + shift, lon: 11.9)
        try mayText.write(toFile: directory + "/2024-05.rec", atomically: true, encoding: .utf8)
    }

    /// A stopped server's store with one user and `count` devices: (user token, device ids).
    static func devices(_ served: ServedStore, count: Int) throws -> (String, [String]) {
        let server = try served.serve()
        let client = try HTTPTestClient(port: server.port)
        let user = try client.request("POST", "/v1/users", json: #"{"email":"rec@example.org","password":"password-rec","displayName":"R"}"#)
        let token = user.json["token"].string ?? ""
        let ids = try (0..<count).map { k in
            try client.request("POST", "/v1/devices", token: token, json: #"{"name":"phone \#(k)"}"#).json["device"]["id"].string ?? ""
        }
        guard server.stop() == 0 else { throw TestFailure("the server did not stop cleanly") }
        return (token, ids)
    }

    @Test func aDirectoryATarAndATarGzOfMonthFilesImport() throws {
        let served = try ServedStore("fod-recorder-")
        defer { served.remove() }
        let root = served.directory + "/recorder"
        try Self.writeDevice(root + "/rec/ann/phone")
        try Self.writeDevice(root + "/rec/bob/tablet", shift: 1)
        let (token, ids) = try Self.devices(served, count: 4)
        func run(_ device: String, _ path: String) throws -> (Int32, String) {
            try FodProcess.run(["import", "--device", device, path, "--data", served.directory] + served.storeArguments)
        }
        let (status, output) = try run(ids[0], root + "/rec/ann/phone")
        #expect(status == 0, "\(output)")
        #expect(output.contains("2 month files (2024-04.rec … 2024-05.rec)"), "\(output)")
        #expect(output.contains("(owntracks-recorder, "), "\(output)")
        #expect(output.contains("5 points — accepted 5, duplicates 0, rejected 0; 2 records without a location skipped"), "\(output)")
        let (again, rerun) = try run(ids[0], root + "/rec/ann/phone")
        #expect(again == 0 && rerun.contains("accepted 0, duplicates 5"), "\(rerun)")

        // Several devices' files: refused, with the list, nothing imported.
        let (mixed, mixedOutput) = try run(ids[1], root + "/rec")
        #expect(mixed == 1, "\(mixedOutput)")
        #expect(mixedOutput.contains("holds the .rec files of 2 devices (ann/phone, bob/tablet): import one device's directory at a time"), "\(mixedOutput)")

        for (k, flags) in [(1, "-cf"), (2, "-czf")] {
            let archive = served.directory + "/rec-\(k).tar" + (flags == "-czf" ? ".gz" : "")
            let (tarStatus, tarOutput) = try runToCompletion("/usr/bin/tar", [flags, archive, "-C", root, "rec/bob/tablet"])
            try #require(tarStatus == 0, "\(tarOutput)")
            let (imported, text) = try run(ids[k], archive)
            #expect(imported == 0 && text.contains("accepted 5, duplicates 0, rejected 0"), "\(flags): \(text)")
        }
        let everything = served.directory + "/everything.tar.gz"
        _ = try runToCompletion("/usr/bin/tar", ["-czf", everything, "-C", root, "rec"])
        let (refused, refusal) = try run(ids[2], everything)
        #expect(refused == 1 && refusal.contains("holds the .rec files of 2 devices"), "\(refusal)")

        // One compressed month file: the file inside.
        let single = root + "/2024-05.rec"
        try FileManager.default.copyItem(atPath: root + "/rec/bob/tablet/2024-05.rec", toPath: single)
        _ = try runToCompletion("/bin/gzip", ["-f", single])
        let (compressed, compressedOutput) = try run(ids[3], single + ".gz")
        #expect(compressed == 0 && compressedOutput.contains("(owntracks-recorder, ") && compressedOutput.contains("accepted 3"), "\(compressedOutput)")

        let back = try served.serve()
        defer { back.stop() }
        let client = try HTTPTestClient(port: back.port)
        let ann = try client.get("/v1/devices/\(ids[0])/locations", token: token).json["locations"].array
        #expect(ann.compactMap { $0["location"][1].double } == [48.1, 48.2, 48.3, 48.4, 48.5])
        #expect(ann.first?["speed"].double == 5 && ann.first?["battery"].double == 70 && ann.first?["accuracy"].double == 8)
        for k in [1, 2] {
            let bob = try client.get("/v1/devices/\(ids[k])/locations", token: token).json["locations"].array
            #expect(bob.compactMap { $0["location"][1].double } == [49.1, 49.2, 49.3, 49.4, 49.5])
        }
    }

    @Test func longPathsInGNUAndPOSIXArchives() throws {
        let served = try ServedStore("fod-recorder-")
        defer { served.remove() }
        let root = served.directory + "/recorder"
        let deep = "rec/" + String(repeating: "u", count: 70) + "/" + String(repeating: "d", count: 70)
        try Self.writeDevice(root + "/" + deep)
        let (_, ids) = try Self.devices(served, count: 2)
        for (k, format) in ["gnu", "posix"].enumerated() {
            let archive = served.directory + "/\(format).tar"
            let (tarStatus, tarOutput) = try runToCompletion("/usr/bin/tar", ["--format=\(format)", "-cf", archive, "-C", root, deep])
            try #require(tarStatus == 0, "\(tarOutput)")
            let (status, text) = try FodProcess.run(["import", "--device", ids[k], archive, "--data", served.directory] + served.storeArguments)
            #expect(status == 0 && text.contains("2 month files") && text.contains("accepted 5, duplicates 0, rejected 0"), "\(format): \(text)")
        }
    }

    @Test func aMonthFileOverHTTP() throws {
        try TestApp.with { app in
            let owner = try DeviceFixture(app: app, name: "rec")
            let directory = NSTemporaryDirectory() + "fod-rec-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try Self.writeDevice(directory)
            let body = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/2024-05.rec")))
            let reply = try ImportTests.post(app, device: owner.deviceID, token: owner.deviceToken, body: body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json["format"].string == "owntracks-recorder")
            #expect(reply.json["accepted"].int == 3 && reply.json["skipped"].int == 1 && reply.json["rejected"].int == 0)
        }
    }
}
