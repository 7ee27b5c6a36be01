import JSONCore
import Testing
import Tracking
import TrackingTestSupport

/// `GroupVisibility` as tables: what each event does to who shares, what is served, what ends
/// a stream.
@Suite struct GroupVisibilityTests {
    static func membership(_ type: String, _ user: UserID, id: Int64 = 1, extra: JSONObject = [:]) -> GroupEvent {
        GroupEvent(groupID: GroupID("g"), id: EventID(id), kind: .membership, userID: user,
                   data: membershipPayload(type, user: user, extra: extra))
    }

    /// A logged payload as stored, spelled out so the table also checks `MembershipChange`'s parsing.
    static func membershipPayload(_ type: String, user: UserID, extra: JSONObject) -> JSONValue {
        var object: JSONObject = ["type": .string(type), "groupId": "g", "userId": .string(user.rawValue)]
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    static func location(_ user: UserID, kind: GroupEvent.Kind = .location) -> GroupEvent {
        GroupEvent(groupID: GroupID("g"), id: EventID(9), kind: kind, userID: user, data: ["deviceId": "d", "userId": .string(user.rawValue)])
    }

    struct Step: Sendable, CustomTestStringConvertible {
        let name: String
        let event: GroupEvent
        let sharingAfter: Set<UserID>
        var testDescription: String { name }
    }

    static let steps: [Step] = [
        Step(name: "joined sharing", event: membership("joined", "cat", extra: ["shareLocation": true]), sharingAfter: ["ann", "bob", "cat"]),
        Step(name: "joined not sharing", event: membership("joined", "cat", extra: ["shareLocation": false]), sharingAfter: ["ann", "bob"]),
        Step(name: "sharing off", event: membership("sharing", "bob", extra: ["shareLocation": false]), sharingAfter: ["ann"]),
        Step(name: "sharing on (already)", event: membership("sharing", "ann", extra: ["shareLocation": true]), sharingAfter: ["ann", "bob"]),
        Step(name: "left", event: membership("left", "bob"), sharingAfter: ["ann"]),
        Step(name: "removed", event: membership("removed", "ann"), sharingAfter: ["bob"]),
        Step(name: "owner changes nothing", event: membership("owner", "bob"), sharingAfter: ["ann", "bob"]),
        Step(name: "deleted", event: membership("deleted", "ann"), sharingAfter: []),
        Step(name: "a location changes nothing", event: location("bob"), sharingAfter: ["ann", "bob"]),
    ]

    @Test(arguments: steps)
    func apply(_ step: Step) {
        var visibility = GroupVisibility(sharing: ["ann", "bob"])
        visibility.apply(step.event)
        #expect(visibility.sharing == step.sharingAfter)
        #expect(visibility.isDeleted == (step.name == "deleted"))
    }

    struct Served: Sendable, CustomTestStringConvertible {
        let name: String
        let event: GroupEvent
        let served: Bool
        var testDescription: String { name }
    }

    static let served: [Served] = [
        Served(name: "location of a sharing member", event: location("bob"), served: true),
        Served(name: "location of a member who does not share", event: location("cat"), served: false),
        Served(name: "summary of a sharing member", event: location("bob", kind: .locations), served: true),
        Served(name: "summary of a member who does not share", event: location("cat", kind: .locations), served: false),
        Served(name: "redacted", event: location("bob", kind: .redacted), served: false),
        Served(name: "membership of anyone", event: membership("sharing", "cat", extra: ["shareLocation": false]), served: true),
    ]

    @Test(arguments: served)
    func serves(_ row: Served) {
        #expect(GroupVisibility(sharing: ["ann", "bob"]).serves(row.event) == row.served)
    }

    @Test func whatEndsAStream() {
        #expect(GroupVisibility.ends(streamOf: "bob", with: Self.membership("left", "bob")))
        #expect(GroupVisibility.ends(streamOf: "bob", with: Self.membership("removed", "bob")))
        #expect(GroupVisibility.ends(streamOf: "bob", with: Self.membership("deleted", "ann")))
        #expect(!GroupVisibility.ends(streamOf: "bob", with: Self.membership("left", "ann")))
        #expect(!GroupVisibility.ends(streamOf: "bob", with: Self.membership("sharing", "bob", extra: ["shareLocation": false])))
        #expect(!GroupVisibility.ends(streamOf: "bob", with: Self.location("bob")))
    }
}

