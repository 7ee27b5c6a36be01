import Foundation
import HTTPTestSupport
import ProcessTestSupport
import Testing

/// `make install`'s layout (`scripts/install.sh`, which the Makefile runs): the installed binary,
/// started from another working directory, finds its web app, `Data/` and `docs/` from its own
/// location. Before, a binary away from the source tree answered 404 "the web map is not
/// installed", named no towns and `fod demo` exited "demo data missing".
@Suite struct InstallTests {
    /// Installs the test build's `fod` under a new prefix; returns the prefix.
    static func install() throws -> String {
        let prefix = try scratchDirectory("fod-prefix-")
        let (status, output) = try runToCompletion("/bin/bash", ["\(packageRoot)/scripts/install.sh", "--prefix", prefix,
                                                                 "--binary", FodProcess.executablePath])
        guard status == 0 else { throw TestFailure("install.sh: \(output)") }
        return prefix
    }

    @Test func theInstalledServerFindsItsFilesFromAnyDirectory() throws {
        let prefix = try Self.install()
        defer { removeScratch(prefix) }
        for file in ["bin/fod", "share/fod/Web/index.html", "share/fod/Data/places-cities1000.bin", "share/fod/docs/openapi.yaml",
                     "share/fod/deploy/fod.service", "share/fod/deploy/nginx.conf", "share/fod/deploy/Caddyfile"] {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file) not installed")
        }
        let data = try scratchDirectory("fod-installed-data-")
        defer { removeScratch(data) }
        // Run from `/`, where there is no Web/, Data/ or docs/ to fall back on.
        let server = try FodProcess(dataDirectory: data, executable: "\(prefix)/bin/fod", workingDirectory: "/")
        let client = try HTTPTestClient(port: server.port)
        let page = try client.get("/")
        #expect(page.status == 200 && page.text.contains("<html"), "\(page.status) \(page.text.prefix(200))")
        #expect(try client.get("/openapi.yaml").status == 200)
        let account = try TestAccount.make("installed", on: client)
        // A stay in Paris is named after the town: the GeoNames file was found.
        let stay = (0..<30).map { #"{"location":[2.3522,48.8566],"timestamp":"2026-01-01T10:\#(String(format: "%02d", $0)):00Z"}"# }
        let posted = try client.request("POST", "/v1/devices/\(account.deviceID)/locations", token: account.deviceToken,
                                        json: #"{"locations":[\#(stay.joined(separator: ","))]}"#)
        #expect(posted.status == 201 || posted.status == 200, "\(posted.text)")
        let timeline = try client.get("/v1/devices/\(account.deviceID)/timeline?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z",
                                      token: account.token)
        #expect(timeline.json["segments"][0]["place"]["name"].string == "Paris", "\(timeline.text)")
        #expect(server.stop() == 0)
        for warning in ["not found", "no basemap", "places-cities1000.bin:"] {
            #expect(!server.standardError.contains(warning), "\(server.standardError)")
        }
    }

    @Test func theInstalledDemoFindsItsData() throws {
        let prefix = try Self.install()
        defer { removeScratch(prefix) }
        let data = try scratchDirectory("fod-installed-demo-")
        defer { removeScratch(data) }
        // It listens only once it has read the AIS records (else it exits "demo data missing").
        let demo = try FodProcess(dataDirectory: data, executable: "\(prefix)/bin/fod", command: "demo", workingDirectory: "/")
        #expect(try HTTPTestClient(port: demo.port).get("/").status == 200)
        #expect(demo.stop() == 0)
    }

    @Test func shareDirOverridesWhereTheFilesAre() throws {
        let data = try scratchDirectory("fod-share-dir-")
        defer { removeScratch(data) }
        let empty = try scratchDirectory("fod-empty-share-")
        defer { removeScratch(empty) }
        let server = try FodProcess(dataDirectory: data, extraArguments: ["--share-dir", empty])
        let page = try HTTPTestClient(port: server.port).get("/")
        #expect(page.status == 404 && page.text.contains("not installed"), "\(page.status) \(page.text)")
        #expect(server.stop() == 0)
    }
}
