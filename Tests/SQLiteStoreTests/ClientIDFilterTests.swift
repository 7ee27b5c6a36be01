@testable import SQLiteStore
import Foundation
import LocationFormats
import Testing
import TestRandom
@testable import Tracking

/// The client-id filter lets ingest skip the `client_ids` probe for ids it rules out; a false
/// "no" would store a duplicate, so every test here is about the filter never missing an id.
/// Of the SQLite store's dedupe filter.
@Suite
struct ClientIDFilterTests {
    @Test func bitsNeverMissAnInsertedFingerprintAndRarelyClaimOthers() throws {
        let bits = try #require(BloomBits(bitCount: 1 << 20))
        var random = SplitMix64(seed: 7)
        let inserted = (0..<50_000).map { _ in random.next() }
        for fingerprint in inserted { _ = bits.testAndSet(fingerprint) }
        #expect(inserted.allSatisfy(bits.contains))
        // ~21 bits an id: a blocked filter with 4 probes claims well under 1% of other ids.
        let falsePositives = (0..<50_000).filter { _ in bits.contains(random.next()) }.count
        #expect(falsePositives < 500, "\(falsePositives) false positives of 50,000")
    }

    @Test func answersMaybeUntilInstalledAndKeepsWhatWasNotedMeanwhile() throws {
        let filter = ClientIDFilter(bitCount: 1 << 16)
        #expect(filter.mayContainThenNote(42))
        filter.note([43, 44])
        #expect(!filter.isReady)
        #expect(filter.install(try #require(BloomBits(bitCount: filter.bitCount))))
        #expect(filter.isReady)
        #expect(filter.mayContainThenNote(42) && filter.mayContainThenNote(43) && filter.mayContainThenNote(44))
        #expect(!filter.mayContainThenNote(0x1234_5678_9ABC_DEF0))
        #expect(filter.mayContainThenNote(0x1234_5678_9ABC_DEF0))
    }

    @Test func anAbandonedBuildInstallsNothing() throws {
        let filter = ClientIDFilter(bitCount: 1 << 16)
        filter.abandon()
        #expect(!filter.install(try #require(BloomBits(bitCount: filter.bitCount))))
        #expect(filter.mayContainThenNote(1) && !filter.isReady)
    }

    /// The scan reads `client_ids` in pieces; pieces of 3 rows cross devices and ids of every
    /// length, and the built filter holds every merged id.
    @Test func aBuildInPiecesHoldsEveryMergedID() async throws {
        let world = try await IndexMergeTests.World(devices: 3)
        defer { world.close() }
        var ids: [(DeviceID, String)] = []
        for (d, device) in world.deviceIDs.enumerated() {
            let fixes = (0..<20).map { i in
                Fix(longitude: 2.35, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64(i), clientID: String(repeating: "x", count: i) + "-\(d)-\(i)")
            }
            _ = try await world.backend.append(deviceID: device, fixes: fixes, events: .standard) { _ in }
            ids += fixes.compactMap { fix in fix.clientID.map { (device, $0) } }
        }
        try await world.backend.drainIndex()
        let filter = ClientIDFilter(bitCount: 1 << 16)
        #expect(filter.build(from: world.backend.readers, rowsPerRead: 3))
        for (device, id) in ids {
            let key = UnmergedFixes.ClientKey(deviceKey: try #require(world.keys[device]).storeValue, clientID: id)
            #expect(filter.mayContainThenNote(key.fingerprint), "\(id) missing")
        }
    }

    /// After a restart the filter is built from `client_ids` (merged ids) plus the mirror
    /// (unmerged ones): a batch sent again is all duplicates, whichever side its ids were on.
    @Test func aResendAfterARestartIsAllDuplicatesOnceTheFilterIsBuilt() async throws {
        let world = try await IndexMergeTests.World(devices: 1)
        defer { world.close() }
        let device = world.deviceIDs[0]
        let merged = (0..<30).map { Fix(longitude: 2.35, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64($0), clientID: "m\($0)") }
        let unmerged = (0..<30).map { Fix(longitude: 2.35, latitude: 48.85, timestamp: 1_700_000_100_000 + Int64($0), clientID: "u\($0)") }
        _ = try await world.backend.append(deviceID: device, fixes: merged, events: .standard) { _ in }
        try await world.backend.drainIndex()
        _ = try await world.backend.append(deviceID: device, fixes: unmerged, events: .standard) { _ in }
        try world.restart()
        #expect(world.backend.awaitClientIDFilter())
        // The mirror's ids move to `client_ids` after the scan: the filter has them all the same.
        try await world.backend.drainIndex()
        #expect(world.backend.unmergedCount == 0)
        let again = try await world.backend.append(deviceID: device, fixes: merged + unmerged, events: .standard) { _ in }
        #expect(again.accepted == 0 && again.duplicates == 60)
        // A new id still goes in (the filter rules it out without a probe).
        let fresh = try await world.backend.append(deviceID: device, fixes: [Fix(longitude: 2.35, latitude: 48.85, timestamp: 1_700_000_200_000, clientID: "new")],
                                                   events: .standard) { _ in }
        #expect(fresh.accepted == 1)
    }

    /// An import's derived ids live in history only: after the merge `client_ids` holds none of
    /// them and the filter has no bit of theirs, yet sending the points again — merged, after a
    /// restart — is all duplicates. A client's own id equal to a derived one, merged into
    /// `client_ids`, still makes that imported point a duplicate (the filter answers "maybe").
    @Test func derivedImportIDsStayInHistoryAndStillDeduplicate() async throws {
        let world = try await IndexMergeTests.World(devices: 1)
        defer { world.close() }
        let device = world.deviceIDs[0]
        let deviceKey = try #require(world.keys[device]).storeValue
        let points = (0..<40).map { i in
            var fix = Fix(longitude: 2.35 + Double(i) * 1e-4, latitude: 48.85, timestamp: 1_700_000_000_000 + Int64(i) * 1_000)
            fix.clientID = ImportPointID.make(for: fix, format: .googleRecords)
            return fix
        }
        var later = Fix(longitude: 3, latitude: 49, timestamp: 1_700_001_000_000)
        later.clientID = ImportPointID.make(for: later, format: .gpx)
        let chosen = Fix(longitude: 2.35, latitude: 48.85, timestamp: 1_699_000_000_000, clientID: later.clientID)
        #expect(try await world.backend.append(deviceID: device, fixes: points + [chosen], events: .standard) { _ in }.accepted == 41)
        try await world.backend.drainIndex()
        let merged = try world.backend.read { db in
            try db.rows("SELECT client_id FROM client_ids WHERE device_key = ?", [.integer(deviceKey)]) { $0.string(0) }
        }
        #expect(merged == [later.clientID])
        try world.restart()
        #expect(world.backend.awaitClientIDFilter())
        for fix in points {
            let key = UnmergedFixes.ClientKey(deviceKey: deviceKey, clientID: try #require(fix.clientID))
            #expect(!world.backend.clientIDFilter.mayContain(key.fingerprint))
        }
        let again = try await world.backend.append(deviceID: device, fixes: points + [later], events: .standard) { _ in }
        #expect(again.accepted == 0 && again.duplicates == 41)
    }
}
