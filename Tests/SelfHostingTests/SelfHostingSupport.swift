import Foundation
import HTTPTestSupport
import ProcessTestSupport

/// The package's root directory (where `deploy/`, `docs/`, `scripts/` are).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A new empty temporary directory named after `prefix`; remove it with `removeScratch`.
func scratchDirectory(_ prefix: String) throws -> String {
    let path = NSTemporaryDirectory() + prefix + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeScratch(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

/// The first of `names` installed on the PATH (or in /usr/sbin, where Debian puts nginx), or nil.
func installedProgram(_ names: String...) -> String? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/usr/bin"
    for name in names {
        for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
    }
    return nil
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An account with one device on a running server, made over HTTP.
struct TestAccount {
    let token: String
    let deviceID: String
    let deviceToken: String

    static func make(_ name: String, on client: HTTPTestClient) throws -> TestAccount {
        let user = try client.request("POST", "/v1/users", json: #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"}"#)
        guard user.status == 201, let token = user.json["token"].string else { throw TestFailure("sign-up: \(user.status) \(user.text)") }
        let device = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"phone"}"#)
        guard device.status == 201, let id = device.json["device"]["id"].string, let deviceToken = device.json["deviceToken"].string else {
            throw TestFailure("device: \(device.status) \(device.text)")
        }
        return TestAccount(token: token, deviceID: id, deviceToken: deviceToken)
    }

    /// The body of a batch of fixes with client ids `ids`, the n-th at `n` seconds past 2026-01-01 and
    /// a position derived from it.
    static func batch(_ ids: [Int]) -> String {
        let fixes = ids.map { n in
            #"{"id":"fix-\#(n)","location":[\#(Double(n % 3600) / 100 - 18),\#(Double(n / 3600) / 100 + 40)],"timestamp":"\#(timestamp(n))"}"#
        }
        return #"{"locations":[\#(fixes.joined(separator: ","))]}"#
    }

    static func timestamp(_ n: Int) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_767_225_600 + Double(n)))
    }

    /// The client ids of every fix of the device, from its NDJSON export.
    func storedFixIDs(on client: HTTPTestClient) throws -> [String] {
        let export = try client.get("/v1/devices/\(deviceID)/export.ndjson", token: token)
        guard export.status == 200 else { throw TestFailure("export: \(export.status) \(export.text)") }
        return export.text.split(separator: "\n").compactMap { TestJSON(Array($0.utf8))["id"].string }
    }
}
