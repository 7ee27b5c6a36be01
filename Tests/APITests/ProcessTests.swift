import Foundation
import Testing
import HTTPTestSupport

/// Tests against the real `fod` executable: durability across kill -9, restarts, signals, CLI.
@Suite struct ProcessTests {
    func temporaryDirectory() -> String { NSTemporaryDirectory() + "fod-proc-" + UUID().uuidString }

    @Test func acknowledgedWritesSurviveKillDashNine() throws {
        let served = try ServedStore("fod-proc-")
        defer { served.remove() }
        let first = try served.serve()
        var tokens: [(String, String)] = []
        let client = try HTTPTestClient(port: first.port)
        for i in 0..<25 {
            let reply = try client.request("POST", "/v1/users", json: #"{"email":"k\#(i)@example.org","password":"password-\#(i)","displayName":"K\#(i)"}"#)
            #expect(reply.status == 201)
            tokens.append(("k\(i)@example.org", reply.json["token"].string ?? ""))
        }
        // Kill at once after the last acknowledgement: no chance to flush or checkpoint.
        first.stop(signal: SIGKILL)

        let second = try served.serve()
        defer { second.stop() }
        let after = try HTTPTestClient(port: second.port)
        for (email, token) in tokens {
            #expect(try after.get("/v1/me", token: token).json["email"].string == email)
        }
        let signIn = try after.request("POST", "/v1/sessions", json: #"{"email":"k24@example.org","password":"password-24"}"#)
        #expect(signIn.status == 200)
    }

    @Test func restartKeepsDataAndDoesNotReapplyMigrations() throws {
        let served = try ServedStore("fod-proc-")
        defer { served.remove() }
        let check = ["db", "check", "--data", served.directory] + served.storeArguments
        let first = try served.serve()
        let reply = try HTTPTestClient(port: first.port).request("POST", "/v1/users", json: #"{"email":"r@example.org","password":"password-r","displayName":"R"}"#)
        let token = try #require(reply.json["token"].string)
        #expect(first.stop() == 0)
        let (_, checkBefore) = try FodProcess.run(check)
        for _ in 0..<2 {
            let again = try served.serve()
            #expect(try HTTPTestClient(port: again.port).get("/v1/me", token: token).status == 200)
            #expect(again.stop() == 0)
        }
        let (status, checkAfter) = try FodProcess.run(check)
        #expect(status == 0)
        #expect(checkAfter.hasPrefix("ok:"))
        #expect(checkBefore == checkAfter)  // same schema version line
    }

    @Test func sigtermStopsCleanlyAndCheckpointsTheDatabase() throws {
        let served = try ServedStore("fod-proc-")
        defer { served.remove() }
        let server = try served.serve(["--log-level", "info"])
        #expect(try HTTPTestClient(port: server.port).get("/healthz").status == 200)
        #expect(server.stop(signal: SIGINT) == 0)
        let log = server.standardError
        #expect(log.contains("shutting down"))
        #expect(log.contains("database closed"))
        #expect(log.contains("GET /healthz 200"))
        // It ran on the store under test.
        #expect(log.contains(TestStoreKind.isSQLite ? "data directory \(served.directory)" : "database: PostgreSQL"), "\(log)")
        // SQLite: the write-ahead log was checkpointed into the database file (and truncated or
        // removed). On PostgreSQL the log is the database server's.
        if TestStoreKind.isSQLite {
            let walSize = (try? FileManager.default.attributesOfItem(atPath: served.directory + "/fod.sqlite-wal")[.size] as? Int) ?? 0
            #expect(walSize == 0)
        }
    }

    @Test(.enabled(if: TestStoreKind.isSQLite, "`fod db backup` copies the SQLite file; a PostgreSQL database is backed up with PostgreSQL's tools"))
    func backupCopiesALiveDatabase() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FodProcess(dataDirectory: directory)
        _ = try HTTPTestClient(port: server.port).request("POST", "/v1/users", json: #"{"email":"b@example.org","password":"password-b","displayName":"B"}"#)
        let copy = directory + "/backup.sqlite"
        let (status, text) = try FodProcess.run(["db", "backup", copy, "--data", directory])
        server.stop()
        #expect(status == 0, "\(text)")
        #expect(text.contains("verified"))
        // The copy is a complete database: serve it and sign in.
        let restored = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: restored) }
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: copy, toPath: restored + "/fod.sqlite")
        let second = try FodProcess(dataDirectory: restored)
        defer { second.stop() }
        let signIn = try HTTPTestClient(port: second.port).request("POST", "/v1/sessions", json: #"{"email":"b@example.org","password":"password-b"}"#)
        #expect(signIn.status == 200)
    }

    /// `--trusted-proxies`: a request from a listed proxy counts against the address its
    /// `X-Forwarded-For` names (here the sign-up limit, set to one an hour).
    @Test func trustedProxiesNameTheClientOfTheLimits() throws {
        let served = try ServedStore("fod-proc-")
        defer { served.remove() }
        let server = try served.serve(["--trusted-proxies", "10.0.0.0/8,127.0.0.1", "--sign-up-limit", "1"])
        defer { server.stop() }
        let client = try HTTPTestClient(port: server.port)
        func signUp(_ k: Int, from address: String) throws -> Int {
            let body = #"{"email":"p\#(k)@example.org","password":"password-\#(k)","displayName":"P\#(k)"}"#
            return try client.request("POST", "/v1/users", headers: ["X-Forwarded-For": address, "Content-Type": "application/json"],
                                      body: Array(body.utf8)).status
        }
        #expect(try [signUp(1, from: "203.0.113.7"), signUp(2, from: "203.0.113.7"), signUp(3, from: "198.51.100.4")] == [201, 429, 201])
    }

    @Test func usageErrorsExitWithStatusTwo() throws {
        #expect(try FodProcess.run(["serve", "--trusted-proxies", "10.0.0.0/8,nope"]).0 == 2)
        #expect(try FodProcess.run(["serve", "--port", "x"]).0 == 2)
        #expect(try FodProcess.run(["serve", "--bogus", "1"]).0 == 2)
        #expect(try FodProcess.run(["frobnicate"]).0 == 2)
        let (status, help) = try FodProcess.run(["--help"])
        #expect(status == 0 && help.contains("fod serve"))
    }
}

@Suite struct GeoCommandTests {
    @Test func cellPrintsHexTokenAndSignedKey() throws {
        let (status, text) = try FodProcess.run(["geo", "cell", "11.770681595", "49.703498679"])
        #expect(status == 0)
        #expect(text.contains("hex 47a1cbd595522b39") && text.contains("token 47a1cbd595522b39") && text.contains("int64 5161630766136961849"))
        let (_, south) = try FodProcess.run(["geo", "cell", "0.000000133", "-75.000000031"])
        #expect(south.contains("hex b09dff882a7809e1") && south.contains("int64 -"))
        let (_, parent) = try FodProcess.run(["geo", "cell", "11.770681595", "49.703498679", "--level", "10"])
        #expect(parent.contains("level 10") && parent.contains("token 47a1cb"))
        #expect(try FodProcess.run(["geo", "cell", "200", "0"]).0 == 2)
    }

    @Test func coverPrintsCellsAndRanges() throws {
        let (status, text) = try FodProcess.run(["geo", "cover", #"{"type":"Polygon","coordinates":[[[2.2,48.7],[2.5,48.7],[2.35,49.0],[2.2,48.7]]]}"#, "--max-cells", "4"])
        #expect(status == 0)
        #expect(text.contains("4 cells") && text.contains("signed Int64 key ranges"))
        let (bad, message) = try FodProcess.run(["geo", "cover", #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#])
        #expect(bad != 0 && message.contains("Loop is not closed"))
    }
}
