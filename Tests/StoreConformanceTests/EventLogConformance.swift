import EventJSON
import JSONCore
import Synchronization
import StoreTestSupport
import Testing
import Tracking

/// `EventLog`: per-group ids 1, 2, 3, … in commit order, only for members who share, pruning,
/// and the snapshot a stream starts from.
@Suite("Store conformance: event log")
struct EventLogConformance {
    @Test(arguments: StoreFactory.all)
    func concurrentWritersGetGaplessIdsPerGroupInCommitOrder(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store, viewerShares: true)
            let other = try await Fixtures.group(store, members: [(world.owner.id, world.device.id, true)])
            let committed = Recorder<GroupEvent>()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for round in 0..<15 {
                    tasks.addTask {
                        _ = try await store.append(deviceID: world.device.id, fixes: [Fixtures.fix(Int64(round) * 10 + 10_000)],
                                                   events: .standard) { outcome in committed.append(outcome.events) }
                    }
                    tasks.addTask {
                        _ = try await store.append(deviceID: world.viewerDevice.id, fixes: [Fixtures.fix(Int64(round) * 10 + 10_000)],
                                                   events: .standard) { outcome in committed.append(outcome.events) }
                    }
                    tasks.addTask {
                        try await store.writeDirectory({ tx in
                            [try tx.appendMembershipEvent(groupID: world.group, MembershipEvent(.sharing(true), userID: world.viewer.id))]
                        }, onCommit: { events in committed.append(events) })
                    }
                }
                try await tasks.waitForAll()
            }
            let log = try Fixtures.events(store, world.group)
            #expect(log.map(\.id) == (1...45).map { EventID(Int64($0)) })
            #expect(try Fixtures.events(store, other).map(\.id) == (1...15).map { EventID(Int64($0)) })
            // onCommit saw each group's events in id order (commit order), and they are the log's.
            let seen = committed.all
            #expect(seen.filter { $0.groupID == world.group }.map(\.id) == log.map(\.id))
            #expect(seen.filter { $0.groupID == world.group } == log)
            let bounds = try store.eventBounds(groupID: world.group)
            #expect(bounds.last == EventID(45) && bounds.oldest == EventID(1))
            #expect(try store.events(groupID: world.group, after: EventID(40), limit: 3).map(\.id) == [41, 42, 43].map { EventID($0) })
        }
    }

    @Test(arguments: StoreFactory.all)
    func locationEventsGoOnlyToGroupsWhereTheMemberSharesInsideTheirWindows(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let outcome = try await Fixtures.append(store, world.device.id, [Fixtures.fix(-5_000), Fixtures.fix(2_000, longitude: 7)])
            // The fix from before the member joined (t0) is stored, but shown to nobody.
            #expect(outcome.accepted == 2)
            #expect(outcome.events.count == 1)
            let event = try #require(try Fixtures.events(store, world.group).first)
            #expect(event == outcome.events.first)
            #expect(event.kind == .location && event.userID == world.owner.id && event.groupID == world.group)
            #expect(EventJSON.data(event)["deviceId"]?.stringValue == world.device.id.rawValue)
            #expect(EventJSON.data(event)["latest"] == .bool(true))
            #expect(EventJSON.data(event)["location"] == .array([.number(JSONNumber(7.0)), .number(JSONNumber(48.85))]))
            // The viewer does not share: their fixes log nothing.
            #expect(try await Fixtures.append(store, world.viewerDevice.id, [Fixtures.fix(3_000)]).events.isEmpty)
            #expect(try Fixtures.events(store, world.group).count == 1)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aBigAppendLogsASummaryAndTheLatest(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let fixes = (1...30).map { Fixtures.fix(Int64($0) * 1_000) }
            let outcome = try await Fixtures.append(store, world.device.id, fixes, rule: LocationEventRule(maxEventsPerAppend: 10))
            #expect(outcome.events.map(\.kind) == [.locations, .location])
            let log = try Fixtures.events(store, world.group)
            #expect(log.map(\.kind) == [.locations, .location])
            #expect(EventJSON.data(log[0])["count"] == .number(JSONNumber(30)))
            #expect(EventJSON.data(log[1])["latest"] == .bool(true))
        }
    }

    @Test(arguments: StoreFactory.all)
    func theFeedSnapshotNamesTheSharersAndTheLogsBounds(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            #expect(try store.feedSnapshot(groupID: world.group, readerID: .generate()) == nil)
            let empty = try #require(try store.feedSnapshot(groupID: world.group, readerID: world.viewer.id))
            #expect(empty.visibility == GroupVisibility(members: [
                world.owner.id: .init(deviceID: world.device.id, shares: true, windows: HistoryWindows([Fixtures.t0...Int64.max])),
                world.viewer.id: .init(deviceID: world.viewerDevice.id, shares: false, windows: .none),
            ]))
            #expect(empty.lastEventID == .start && empty.oldestEventID == nil)
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000), Fixtures.fix(2_000)])
            let snapshot = try #require(try store.feedSnapshot(groupID: world.group, readerID: world.viewer.id))
            #expect(snapshot.lastEventID == EventID(2) && snapshot.oldestEventID == EventID(1))
        }
    }

    @Test(arguments: StoreFactory.all)
    func pruningDropsOldEventsButIdsNeverRestart(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000), Fixtures.fix(2_000)])
            // Events are stamped with the time they were logged (now): all are older than the future.
            #expect(try await store.pruneEvents(before: Int64.max) == 2)
            let bounds = try store.eventBounds(groupID: world.group)
            #expect(bounds.last == EventID(2) && bounds.oldest == nil)
            #expect(try Fixtures.events(store, world.group).isEmpty)
            let next = try await Fixtures.append(store, world.device.id, [Fixtures.fix(3_000)])
            #expect(next.events.map(\.id) == [EventID(3)])
            #expect(try await store.pruneEvents(before: 0) == 0)
        }
    }
}
