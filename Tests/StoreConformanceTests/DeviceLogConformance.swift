import ErrorCodes
import LocationFormats
import StoreTestSupport
import Testing
import Timestamps
import Tracking

/// `DeviceLogStore` and the report `LocationStore.append` writes with the fixes: the device's
/// status, its rejections and region events (bounded, newest first), its OwnTracks secret.
@Suite("Store conformance: device reports")
struct DeviceLogConformance {
    static func rejection(_ reason: ErrorCode, at: Int64, sample: String = "{}") -> IngestRejection {
        IngestRejection(at: Fixtures.time(at), source: .owntracks, reason: reason, message: "why", sample: sample, count: 1)
    }

    static func transition(_ event: RegionTransition.Event, _ region: String, at: Int64) -> DeviceEvent {
        DeviceEvent(receivedAt: Fixtures.time(at + 5), transition: RegionTransition(
            event: event, region: region, timestamp: at, longitude: 2.35, latitude: 48.85, accuracy: 12, trigger: "c"))
    }

    @discardableResult
    static func report(_ store: any TrackingStore, _ device: DeviceID, _ report: DeviceReport, fixes: [Fix] = []) async throws -> IngestOutcome {
        try await store.append(deviceID: device, fixes: fixes, report: report, events: .standard) { _ in }
    }

    static func status(_ store: any TrackingStore, _ device: DeviceID) throws -> DeviceStatus? {
        try store.readDirectory { try $0.device(id: device) }?.status
    }

    @Test(arguments: StoreFactory.all)
    func aHeartbeatAloneSetsTheStatusAndTheNewestBatteryWins(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            #expect(try Self.status(store, world.device.id) == DeviceStatus())
            let t = Fixtures.t0
            let outcome = try await Self.report(store, world.device.id, DeviceReport(
                seenAt: t, battery: BatteryReading(percent: 80, timestamp: t - 1_000)))
            #expect(outcome.accepted == 0 && outcome.stored.isEmpty)
            #expect(try Self.status(store, world.device.id) == DeviceStatus(lastSeenAt: t, battery: BatteryReading(percent: 80, timestamp: t - 1_000)))
            // An older reading (a backlog) does not replace a newer one; a later one does, and
            // lastSeenAt moves once a minute has passed.
            try await Self.report(store, world.device.id, DeviceReport(seenAt: t + 1_000, battery: BatteryReading(percent: 95, timestamp: t - 60_000)))
            #expect(try Self.status(store, world.device.id)?.battery?.percent == 80)
            try await Self.report(store, world.device.id, DeviceReport(seenAt: t + 61_000, battery: BatteryReading(percent: 79, timestamp: t + 60_000)))
            #expect(try Self.status(store, world.device.id) == DeviceStatus(lastSeenAt: t + 61_000, battery: BatteryReading(percent: 79, timestamp: t + 60_000)))
            // With fixes, in the same append: stored, and the status follows.
            let fixes = [Fixtures.fix(200_000)]
            let stored = try await Self.report(store, world.device.id, DeviceReport(seenAt: t + 300_000).addingBattery(of: fixes), fixes: fixes)
            #expect(stored.accepted == 1)
            #expect(try Self.status(store, world.device.id)?.lastSeenAt == t + 300_000)
            #expect(try store.readDirectory { try $0.devices(ownerID: world.owner.id) }.first?.status.lastSeenAt == t + 300_000)
        }
    }

    @Test(arguments: StoreFactory.all)
    func rejectionsAreKeptNewestFirstAndBounded(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let t = Fixtures.t0
            // Written with duplicates too: a report is kept even when every fix was stored before.
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(0)])
            let outcome = try await Self.report(store, world.device.id, DeviceReport(
                seenAt: t, rejections: [Self.rejection(.timestampTooOld, at: t, sample: #"{"tst":1}"#)]), fixes: [Fixtures.fix(0)])
            #expect(outcome.duplicates == 1)
            let first = try store.rejections(deviceID: world.device.id)
            #expect(first == [IngestRejection(at: Fixtures.time(t), source: .owntracks, reason: .timestampTooOld, message: "why",
                                              sample: #"{"tst":1}"#, count: 1)])
            for round in 0..<DeviceReport.maxRejectionsKept + 10 {
                let at = t + Int64(round + 1) * 1_000
                try await Self.report(store, world.device.id, DeviceReport(seenAt: at, rejections: [Self.rejection(.invalidLocation, at: at)]))
            }
            let kept = try store.rejections(deviceID: world.device.id)
            #expect(kept.count == DeviceReport.maxRejectionsKept)
            #expect(kept.first?.at == Fixtures.time(t + Int64(DeviceReport.maxRejectionsKept + 10) * 1_000))
            #expect(kept.allSatisfy { $0.reason == .invalidLocation })
            // Another device's log is its own; a removed device's goes with it.
            #expect(try store.rejections(deviceID: world.viewerDevice.id).isEmpty)
            try await store.writeDirectory { try $0.deleteDevice(id: world.device.id) }
            #expect(try store.rejections(deviceID: world.device.id).isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func regionEventsAreKeptOnceNewestFirst(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let t = Fixtures.t0
            let enter = Self.transition(.enter, "Home", at: t)
            try await Self.report(store, world.device.id, DeviceReport(seenAt: t, events: [enter]))
            // The same event sent again is kept once; another is added before it.
            let leave = DeviceEvent(receivedAt: Fixtures.time(t + 9_000), transition: RegionTransition(event: .leave, region: "Home", timestamp: t + 8_000))
            try await Self.report(store, world.device.id, DeviceReport(seenAt: t + 9_000, events: [enter, leave]))
            #expect(try store.deviceEvents(deviceID: world.device.id) == [leave, enter])
            #expect(try store.deviceEvents(deviceID: world.viewerDevice.id).isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func theOwnTracksSecretIsKeptApartFromTheDevice(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            #expect(try store.ownTracksSecret(deviceID: world.device.id) == nil)
            try await store.writeDirectory { try $0.setOwnTracksSecret(id: world.device.id, "correct horse battery staple") }
            #expect(try store.ownTracksSecret(deviceID: world.device.id) == "correct horse battery staple")
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.ownTracksEncryption == true)
            #expect(try store.ownTracksSecret(deviceID: world.viewerDevice.id) == nil)
            try await store.writeDirectory { try $0.setOwnTracksSecret(id: world.device.id, nil) }
            #expect(try store.ownTracksSecret(deviceID: world.device.id) == nil)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) }?.ownTracksEncryption == false)
        }
    }
}
