import Foundation
import Testing
import HTTPTestSupport

/// A full disk and a read-only database under the real server: writes answer 503 with a clear
/// error (never a 500, never a crash), reads keep working, nothing is stored twice or lost,
/// nothing is corrupt, and service resumes by itself when space returns or the database is
/// writable again — the writer, the index merger and the checkpointer included.
@Suite(.serialized, .enabled(if: TestStoreKind.isSQLite, "faults of the SQLite file and its directory (full disk, file-size limit, read-only) under `fod serve --data`; a PostgreSQL node's storage is the database server's"))
struct StorageFaultProcessTests {
    static func temporaryDirectory() -> String { NSTemporaryDirectory() + "fod-fault-" + UUID().uuidString }

    @Test(.enabled(if: ScratchMount.isAvailable, "needs root to mount a size-limited tmpfs (the RLIMIT_FSIZE test covers a full disk without it)"))
    func aFullFilesystemAnswers503AndServiceResumesWhenSpaceReturns() throws {
        let mount = try ScratchMount.tmpfs(sizeBytes: 4 << 20)
        defer { mount.unmount(); try? FileManager.default.removeItem(atPath: mount.path) }
        let directory = mount.path + "/data"
        let server = try FodProcess(dataDirectory: directory)
        defer { if server.process.isRunning { server.stop(signal: SIGKILL) } }
        var filler: String?
        try DiskFullScenario(server: server, directory: directory,
                             fillUp: { filler = try fillFilesystem(at: mount.path) },
                             makeRoom: {
                                 if let filler { try FileManager.default.removeItem(atPath: filler) }
                                 try mount.resize(bytes: 64 << 20)
                             }).run()
    }

    /// The same through a file-size limit on the server process: every write into any of its
    /// files fails with EFBIG, which needs no privileges.
    @Test func aFileSizeLimitAnswers503AndServiceResumesWhenLifted() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FodProcess(dataDirectory: directory)
        defer { if server.process.isRunning { server.stop(signal: SIGKILL) } }
        let pid = server.process.processIdentifier
        try DiskFullScenario(server: server, directory: directory,
                             fillUp: { try setFileSizeLimit(pid: pid, bytes: 0) },
                             makeRoom: { try setFileSizeLimit(pid: pid, bytes: nil) }).run()
    }

    enum ReadOnlyPart: String, CaseIterable, Sendable { case directory, databaseFile }

    /// A server started on a read-only database serves reads and answers 503 `read_only`; made
    /// writable, it resumes by itself. The directory case follows a kill -9 (SQLite can read a
    /// WAL database in a read-only directory only if its `-wal` and `-shm` files exist) and needs
    /// every connection of the process reopened; the file case follows a clean stop.
    @Test(arguments: ReadOnlyPart.allCases)
    func aReadOnlyDatabaseAnswers503AndServiceResumesWhenWritable(_ part: ReadOnlyPart) throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try FodProcess(dataDirectory: directory)
        let world = try StorageFaultWorld.setUp(port: first.port)
        for start in stride(from: 0, to: 500, by: 100) {
            #expect(try world.post(start..<start + 100, port: first.port).status == 200)
        }
        first.stop(signal: part == .directory ? SIGKILL : SIGTERM)

        let target = part == .directory ? directory : directory + "/fod.sqlite"
        let readOnly = try ReadOnlySwitch(target)
        defer { readOnly.release() }
        let server = try FodProcess(dataDirectory: directory)
        defer { if server.process.isRunning { server.stop(signal: SIGKILL) } }
        let port = server.port
        #expect(try world.readsWork(port: port))
        #expect(try world.history(port: port).count == 500)
        #expect(try world.geoCount(upTo: 1_000, port: port) == 500)
        let refused = [try world.post(500..<600, port: port), try world.postOwnTracks(600, port: port),
                       try HTTPTestClient(port: port).request("POST", "/v1/sessions", json: #"{"email":"f@example.org","password":"password-f"}"#)]
        for reply in refused { #expect(isStorageFault(reply, "read_only"), "\(reply.status) \(reply.text)") }
        let sequence = walCheckpointSequence(directory + "/fod.sqlite-wal")

        try readOnly.makeWritable()
        #expect(try world.post(500..<600, port: port).json["accepted"].int == 100)
        #expect(try world.postOwnTracks(600, port: port).status == 200)
        let history = try world.history(port: port)
        #expect(history.count == 601 && history.values.allSatisfy { $0 == 1 })
        #expect(try world.geoCount(upTo: 1_000, port: port) == 601)
        // The merger merges what was queued before (it failed while read-only)…
        #expect(try eventually { try StorageFaultWorld.metric("fod_index_unmerged_fixes", port: port) == 0 })
        // …and checkpoints let the log start over again.
        var next = 601
        #expect(try eventually {
            defer { next += 1 }
            guard try world.post(next..<next + 1, port: port).status == 200 else { return false }
            return walCheckpointSequence(directory + "/fod.sqlite-wal").map { $0 != sequence } ?? false
        })
        #expect(server.stop() == 0)
        let (status, output) = try FodProcess.run(["db", "check", "--data", directory])
        #expect(status == 0, "\(output)")
    }

    /// After a clean stop the `-wal` and `-shm` files are gone, and SQLite cannot open a WAL
    /// database in a read-only directory without them: the server refuses to start, saying why.
    @Test func aReadOnlyDirectoryWithoutTheLogFilesIsRefusedAtStartWithAClearMessage() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try FodProcess(dataDirectory: directory)
        _ = try StorageFaultWorld.setUp(port: first.port)
        #expect(first.stop() == 0)
        let readOnly = try ReadOnlySwitch(directory)
        defer { readOnly.release() }
        #expect {
            try FodProcess(dataDirectory: directory)
        } throws: { error in
            "\(error)".contains("its directory is read-only")
        }
    }
}

/// Makes a directory or file read-only and writable again: a read-only bind mount as root
/// (permissions do not stop root), file modes otherwise.
struct ReadOnlySwitch {
    let path: String
    let mount: ScratchMount?

    init(_ path: String) throws {
        self.path = path
        if ScratchMount.isAvailable {
            mount = try ScratchMount.readOnlyBind(path)
        } else {
            mount = nil
            try Self.setWritable(false, path)
        }
    }

    func makeWritable() throws {
        if let mount { try mount.remount(readOnly: false) } else { try Self.setWritable(true, path) }
    }

    /// Undoes the switch (after the server stopped).
    func release() {
        if let mount { mount.unmount() } else { try? Self.setWritable(true, path) }
    }

    private static func setWritable(_ writable: Bool, _ path: String) throws {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let files = isDirectory.boolValue ? try FileManager.default.contentsOfDirectory(atPath: path).map { path + "/" + $0 } : [path]
        for file in files { try FileManager.default.setAttributes([.posixPermissions: writable ? 0o644 : 0o444], ofItemAtPath: file) }
        if isDirectory.boolValue { try FileManager.default.setAttributes([.posixPermissions: writable ? 0o755 : 0o555], ofItemAtPath: path) }
    }
}

/// A full disk on a running server: fixes acknowledged before it fills, writes refused while it
/// is full, then room again. `fillUp` makes the disk full (after a first 503, if ingest did not
/// fill it); `makeRoom` gives the space back.
struct DiskFullScenario {
    let server: FodProcess
    let directory: String
    let fillUp: () throws -> Void
    let makeRoom: () throws -> Void

    func run() throws {
        let port = server.port
        let world = try StorageFaultWorld.setUp(port: port)
        var stored = Set<Int>()      // fix indexes acknowledged with a 2xx
        var refused: [Range<Int>] = []
        var next = 0
        func batch(_ size: Int) -> Range<Int> { defer { next += size }; return next..<next + size }

        for _ in 0..<10 {
            let range = batch(100)
            #expect(try world.post(range, port: port).status == 200)
            stored.formUnion(range)
        }
        try fillUp()
        // Posting until the first refusal: every reply is a 200 or a 503 `storage_full`.
        var sawFault = false
        for _ in 0..<2_000 where !sawFault {
            let range = batch(100)
            let reply = try world.post(range, port: port)
            if reply.status == 200 {
                stored.formUnion(range)
            } else {
                #expect(isStorageFault(reply, "storage_full"), "\(reply.status) \(reply.text)")
                refused.append(range)
                sawFault = true
            }
        }
        #expect(sawFault)
        try fillUp()   // whatever the failed commit left free

        // While full: every kind of write is refused the same way; reads work; what was
        // acknowledged is there exactly once and nothing refused is. A write may still fit in
        // space the log already has (a checkpoint that completed before the disk filled lets
        // the writer reuse the log from its start): then it is acknowledged and must be kept
        // like any other; every other reply is the same 503.
        let single = batch(1), withoutID = batch(1), ownTracks = batch(1), more = batch(100)
        let client = try HTTPTestClient(port: port)
        let whileFull: [(fixes: Range<Int>?, reply: HTTPTestClient.Reply)] = [
            (single, try client.request("POST", "/v1/devices/\(world.deviceID)/locations", token: world.deviceToken,
                                        json: StorageFaultWorld.fix(single.lowerBound))),
            (withoutID, try client.request("POST", "/v1/devices/\(world.deviceID)/locations", token: world.deviceToken,
                                           json: StorageFaultWorld.fix(withoutID.lowerBound, withID: false))),
            (ownTracks, try world.postOwnTracks(ownTracks.lowerBound, port: port)),
            (more, try world.post(more, port: port)),
            (nil, try client.request("POST", "/v1/devices", token: world.userToken, json: #"{"name":"another"}"#)),
        ]
        var keptWhileFull = Set<Int>()
        for (fixes, reply) in whileFull {
            if (200..<300).contains(reply.status) {
                if let fixes { keptWhileFull.formUnion(fixes) }
            } else {
                #expect(isStorageFault(reply, "storage_full"), "\(reply.status) \(reply.text)")
            }
        }
        stored.formUnion(keptWhileFull)
        #expect(try world.readsWork(port: port))
        try expectStoredExactlyOnce(stored, world, port)
        let sequence = walCheckpointSequence(directory + "/fod.sqlite-wal")

        try makeRoom()
        let after = batch(100)
        #expect(try world.post(after, port: port).status == 200, "the first write once there is room succeeds")
        stored.formUnion(after)
        // Resent, what was refused is stored now; what was acknowledged is a duplicate.
        func newlyAccepted(_ range: Range<Int>) -> Int { range.filter { !keptWhileFull.contains($0) }.count }
        for range in refused + [more] {
            #expect(try world.post(range, port: port).json["accepted"].int == newlyAccepted(range))
            stored.formUnion(range)
        }
        #expect(try client.request("POST", "/v1/devices/\(world.deviceID)/locations", token: world.deviceToken,
                                   json: StorageFaultWorld.fix(single.lowerBound)).json["accepted"].int == newlyAccepted(single))
        #expect(try client.request("POST", "/v1/devices/\(world.deviceID)/locations", token: world.deviceToken,
                                   json: StorageFaultWorld.fix(withoutID.lowerBound, withID: false)).json["accepted"].int == newlyAccepted(withoutID))
        #expect(try world.postOwnTracks(ownTracks.lowerBound, port: port).status == 200)
        stored.formUnion([single.lowerBound, withoutID.lowerBound, ownTracks.lowerBound])
        #expect(try world.post(0..<100, port: port).json["duplicates"].int == 100)
        try expectStoredExactlyOnce(stored, world, port)

        // The merger and the checkpointer recover too.
        #expect(try eventually { try StorageFaultWorld.metric("fod_index_unmerged_fixes", port: port) == 0 })
        #expect(try eventually {
            let range = batch(1)
            guard try world.post(range, port: port).status == 200 else { return false }
            stored.formUnion(range)
            return walCheckpointSequence(directory + "/fod.sqlite-wal").map { $0 != sequence } ?? false
        })
        try expectStoredExactlyOnce(stored, world, port)
        #expect(server.stop() == 0)
        let (status, output) = try FodProcess.run(["db", "check", "--data", directory])
        #expect(status == 0, "\(output)")
    }

    /// History holds exactly the fixes `stored` (by index), each once, and geo queries (cell
    /// index plus in-memory mirror) find as many.
    func expectStoredExactlyOnce(_ stored: Set<Int>, _ world: StorageFaultWorld, _ port: UInt16) throws {
        let history = try world.history(port: port)
        let expected = Set(stored.map { StorageFaultWorld.base + Int64($0) })
        #expect(Set(history.keys) == expected, "missing \(expected.subtracting(history.keys).count), unexpected \(Set(history.keys).subtracting(expected).count)")
        #expect(history.values.allSatisfy { $0 == 1 }, "\(history.values.filter { $0 > 1 }.count) fixes stored more than once")
        #expect(try world.geoCount(upTo: (stored.max() ?? 0) + 1, port: port) == stored.count)
    }
}
