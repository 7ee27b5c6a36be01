import Synchronization
import Testing
import Tracking

/// `CommitDoor`: who hears which committed events, on one node (every event was committed here)
/// and on a relayed store (the relays bring every node's; this node's own are announced apart).
@Suite struct CommitDoorTests {
    /// Keeps the ids of what it was handed.
    final class Recorder: GroupEventSink, Sendable {
        let ids = Mutex<[Int64]>([])
        func publish(_ events: [GroupEvent]) { ids.withLock { $0 += events.map(\.id.rawValue) } }
        var heard: [Int64] { ids.withLock { $0 } }
    }

    static func event(_ id: Int64) -> GroupEvent {
        GroupEvent(groupID: GroupID("g"), id: EventID(id), payload: .membership(MembershipEvent(.left, userID: UserID("u"))))
    }

    @Test func onOneNodeEveryConsumerHearsEveryCommit() {
        let door = CommitDoor()
        let all = Recorder(), here = Recorder()
        door.register(events: all)
        door.register(eventsCommittedHere: here)
        door.publish([Self.event(1), Self.event(2)])
        door.publishCommittedHere([Self.event(3)])
        #expect(all.heard == [1, 2])
        #expect(here.heard == [1, 2], "a store that is not relayed announces with publish alone")
    }

    @Test func onARelayedStoreOnlyThisNodesCommitsReachItsOwnConsumers() {
        let door = CommitDoor(relayed: true)
        let all = Recorder(), here = Recorder()
        door.register(events: all)
        door.register(eventsCommittedHere: here)
        door.publishCommittedHere([Self.event(1)])
        door.publish([Self.event(1), Self.event(2)])
        #expect(all.heard == [1, 2], "the relay brings every node's commits, this node's too")
        #expect(here.heard == [1], "event 2 was another node's")
    }
}
