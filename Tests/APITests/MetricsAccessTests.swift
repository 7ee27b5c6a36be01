import Foundation
import Testing
import HTTPTestSupport

/// `/metrics` is not for everyone (issue #47, finding 7): off the public port by default, there
/// only to a bearer token (`--metrics-token`), or on a listener of its own (`--metrics-listen`).
@Suite struct MetricsAccessTests {
    static func directory() -> String { NSTemporaryDirectory() + "fod-metrics-" + UUID().uuidString }

    @Test func byDefaultThePublicPortHasNoMetrics() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FodProcess(dataDirectory: directory, metricsToken: nil)
        defer { server.stop() }
        let client = try HTTPTestClient(port: server.port)
        let reply = try client.get("/metrics")
        #expect(reply.status == 404 && reply.errorCode == "not_found", "\(reply.text)")
        #expect(try client.get("/metrics", token: FodProcess.metricsToken).status == 404)
        #expect(try client.get("/healthz").status == 200)
    }

    /// With a token the public port answers only those who send it; anyone else sees the same
    /// 404 as for a path that does not exist.
    @Test func aTokenOpensThePublicPortToItsHolderOnly() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FodProcess(dataDirectory: directory)
        defer { server.stop() }
        let client = try HTTPTestClient(port: server.port)
        let nothing = try client.get("/nothing-here")
        for token in [nil, "wrong", FodProcess.metricsToken + "x", String(FodProcess.metricsToken.dropLast())] {
            let reply = try client.get("/metrics", token: token)
            #expect(reply.status == 404 && reply.errorCode == nothing.errorCode, "\(token ?? "none"): \(reply.text)")
        }
        let metrics = try client.get("/metrics", token: FodProcess.metricsToken)
        #expect(metrics.status == 200 && metrics.text.contains("fod_http_requests_total"), "\(metrics.text)")
        #expect(metrics.header("Cache-Control") == "no-store")
    }

    /// The listener of `--metrics-listen` serves `/metrics` and `/healthz` and nothing else; the
    /// public port, without a token, no metrics. A token, when set, is wanted there too.
    @Test func aListenerOfItsOwnServesOnlyTheOperationsRoutes() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FodProcess(dataDirectory: directory, extraArguments: ["--metrics-listen", "127.0.0.1:0"], metricsToken: nil)
        defer { server.stop() }
        let operations = try HTTPTestClient(port: try #require(server.metricsPort))
        #expect(try operations.get("/metrics").text.contains("fod_http_requests_total"))
        #expect(try operations.get("/healthz").status == 200)
        for path in ["/v1/me", "/", "/openapi.yaml"] { #expect(try operations.get(path).status == 404, "\(path)") }
        #expect(try operations.request("POST", "/v1/users", json: #"{"email":"a@example.org","password":"password-a","displayName":"A"}"#).status == 404)
        #expect(try HTTPTestClient(port: server.port).get("/metrics").status == 404)

        let guarded = try FodProcess(dataDirectory: directory + "-token", extraArguments: ["--metrics-listen", "127.0.0.1:0"])
        defer {
            guarded.stop()
            try? FileManager.default.removeItem(atPath: directory + "-token")
        }
        let guardedOperations = try HTTPTestClient(port: try #require(guarded.metricsPort))
        #expect(try guardedOperations.get("/metrics").status == 404)
        #expect(try guardedOperations.get("/metrics", token: FodProcess.metricsToken).status == 200)
    }

    @Test(arguments: [
        (["--metrics-listen", "9100"], "--metrics-listen must be"),
        (["--metrics-listen", "localhost:9100"], "--metrics-listen must be"),
        (["--metrics-listen", "[::1]:9100"], "--metrics-listen must be"),
        (["--metrics-listen", "127.0.0.1:70000"], "--metrics-listen must be"),
        (["--metrics-token", "short"], "--metrics-token must be"),
        (["--metrics-token", "sixteen chars with spaces"], "--metrics-token must be"),
    ])
    func badSettingsAreRefused(_ arguments: [String], _ message: String) throws {
        let (status, output) = try FodProcess.run(["serve", "--data", Self.directory()] + arguments)
        #expect(status == 2 && output.contains(message), "\(output)")
    }
}
