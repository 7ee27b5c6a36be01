import Foundation
import HTTPTestSupport
import PostgresClient
import PostgresTestSupport
import ProcessTestSupport
import Testing

/// The documented backup of a cluster's database (docs/operations.md): `pg_dump` while a node
/// serves, `pg_restore` into a new database, and a node on the copy serves every fix it had,
/// passes `fod db check --database` and takes new fixes.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.unavailableReason)))
struct PostgresBackupTests {
    static func tool(_ name: String) -> String { "\(PostgresTestServer.binaryDirectory)/\(name)" }

    @Test func pgDumpAndPgRestoreGiveBackEveryFix() throws {
        let server = try PostgresTestServer.shared.get()
        let suffix = "\(ProcessInfo.processInfo.processIdentifier)"
        let (original, copy) = ("fod_dumped_\(suffix)", "fod_restored_\(suffix)")
        let admin = try Connection(server.url)
        try admin.execute("CREATE DATABASE \(original)")
        defer {
            _ = try? admin.execute("DROP DATABASE \(original) WITH (FORCE)")
            _ = try? admin.execute("DROP DATABASE \(copy) WITH (FORCE)")
        }
        let directory = try scratchDirectory("fod-pg-dump-")
        defer { removeScratch(directory) }
        let node = try FodProcess(dataDirectory: directory + "/a", extraArguments: ["--database", server.url(database: original)])
        let client = try HTTPTestClient(port: node.port)
        let account = try TestAccount.make("dumped", on: client)
        for batch in 0..<10 {
            let posted = try client.request("POST", "/v1/devices/\(account.deviceID)/locations", token: account.deviceToken,
                                            json: TestAccount.batch(Array((100 * batch)..<(100 * batch + 100))))
            #expect((200..<300).contains(posted.status), "\(posted.text)")
        }
        // Online: the node keeps running while the dump reads one snapshot.
        let dump = directory + "/fod.dump"
        let dumped = try runToCompletion(Self.tool("pg_dump"), ["--format=custom", "--file=\(dump)", server.url(database: original)])
        #expect(dumped.status == 0, "\(dumped.output)")
        #expect(node.stop() == 0)

        try admin.execute("CREATE DATABASE \(copy)")
        let restored = try runToCompletion(Self.tool("pg_restore"), ["--no-owner", "--dbname=\(server.url(database: copy))", dump])
        #expect(restored.status == 0, "\(restored.output)")
        let check = try FodProcess.run(["db", "check", "--database", server.url(database: copy)])
        #expect(check.0 == 0 && check.1.contains("1000 fixes"), "\(check.1)")
        let second = try FodProcess(dataDirectory: directory + "/b", extraArguments: ["--database", server.url(database: copy)])
        let secondClient = try HTTPTestClient(port: second.port)
        let stored = try account.storedFixIDs(on: secondClient)
        #expect(Set(stored) == Set((0..<1000).map { "fix-\($0)" }), "\(stored.count) fixes restored")
        let posted = try secondClient.request("POST", "/v1/devices/\(account.deviceID)/locations", token: account.deviceToken,
                                              json: TestAccount.batch([5000]))
        #expect((200..<300).contains(posted.status), "\(posted.text)")
        #expect(second.stop() == 0)
    }
}
