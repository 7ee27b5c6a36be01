import EventJSON
import JSONCore
import Testing
import Timestamps
import Tracking
import TrackingTestSupport

/// `GroupVisibility` as tables: what each event does to who shares, what is served, what ends
/// a stream.
@Suite struct GroupVisibilityTests {
    static func membership(_ type: String, _ user: UserID, id: Int64 = 1, extra: JSONObject = [:]) -> GroupEvent {
        GroupEvent(groupID: GroupID("g"), id: EventID(id),
                   payload: EventJSON.payload(type: "membership", text: membershipPayload(type, user: user, extra: extra).serializedString()))
    }

    /// A logged payload as stored, spelled out so the table also checks `MembershipChange`'s parsing.
    static func membershipPayload(_ type: String, user: UserID, extra: JSONObject) -> JSONValue {
        var object: JSONObject = ["type": .string(type), "groupId": "g", "userId": .string(user.rawValue)]
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    /// A position event of `user`'s device (`d-<user>` unless named) at fix time `at` (ms).
    static func location(_ user: UserID, kind: GroupEvent.Kind = .location, device: String? = nil, at: Int64 = 5_000) -> GroupEvent {
        let device = DeviceID(device ?? "d-\(user.rawValue)")
        let payload: EventPayload = switch kind {
        case .locations: .locations(LocationBatchEvent(deviceID: device, userID: user, count: 1, from: at, to: at))
        case .place: .place(PlaceEvent(crossing: .enter, placeID: PlaceID("p"), placeName: "P", deviceID: device, userID: user, timestamp: at,
                                       longitude: 0, latitude: 0))
        case .redacted: .redacted
        case .location, .membership: .location(LocationEvent(deviceID: device, userID: user, longitude: 0, latitude: 0, timestamp: at, latest: true))
        }
        return GroupEvent(groupID: GroupID("g"), id: EventID(9), payload: payload)
    }

    /// Ann and Bob share their devices `d-ann`, `d-bob` since 1,000 ms; Cat is a member who
    /// does not share (shared from 1,000 to 2,000 ms once).
    static var family: GroupVisibility {
        GroupVisibility(members: [
            "ann": .init(deviceID: "d-ann", shares: true, windows: HistoryWindows([1_000...Int64.max])),
            "bob": .init(deviceID: "d-bob", shares: true, windows: HistoryWindows([1_000...Int64.max])),
            "cat": .init(deviceID: "d-cat", shares: false, windows: HistoryWindows([1_000...2_000])),
        ])
    }

    struct Step: Sendable, CustomTestStringConvertible {
        let name: String
        let event: GroupEvent
        let sharingAfter: Set<UserID>
        var testDescription: String { name }
    }

    static let steps: [Step] = [
        Step(name: "joined sharing", event: membership("joined", "dan", extra: ["shareLocation": true, "deviceId": "d-dan"]), sharingAfter: ["ann", "bob", "dan"]),
        Step(name: "joined not sharing", event: membership("joined", "dan", extra: ["shareLocation": false, "deviceId": "d-dan"]), sharingAfter: ["ann", "bob"]),
        Step(name: "sharing on", event: membership("sharing", "cat", extra: ["shareLocation": true]), sharingAfter: ["ann", "bob", "cat"]),
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
        var visibility = Self.family
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
        Served(name: "location of a device the member no longer shares here (rejoined with another)",
               event: location("bob", device: "d-old"), served: false),
        Served(name: "location taken before the device's sharing periods (a former membership)", event: location("bob", at: 999), served: false),
        Served(name: "summary reaching before the sharing periods", event: location("bob", kind: .locations, at: 500), served: false),
        Served(name: "place event before the sharing periods", event: location("bob", kind: .place, at: 999), served: false),
        Served(name: "place event inside them", event: location("bob", kind: .place, at: 1_000), served: true),
        Served(name: "location without a readable time",
               event: GroupEvent(groupID: "g", id: EventID(9),
                                 payload: EventJSON.payload(type: "location", text: #"{"deviceId":"d-bob","userId":"bob","timestamp":"soon"}"#)),
               served: false),
    ]

    @Test(arguments: served)
    func serves(_ row: Served) {
        #expect(Self.family.serves(row.event) == row.served)
    }

    @Test func aRejoinFollowedLiveServesTheNewMembershipOnly() {
        var visibility = Self.family
        visibility.apply(Self.membership("left", "bob"))
        #expect(!visibility.serves(Self.location("bob")))
        visibility.apply(Self.membership("joined", "bob", extra: ["shareLocation": true, "deviceId": "d-bob2"]))
        #expect(visibility.serves(Self.location("bob", device: "d-bob2")))
        #expect(!visibility.serves(Self.location("bob")))
        // A replay judges by the store's snapshot too: there the new membership's periods begin later.
        let stored = GroupVisibility(members: ["bob": .init(deviceID: "d-bob2", shares: true, windows: HistoryWindows([9_000...Int64.max]))])
        #expect(!stored.serves(Self.location("bob", device: "d-bob2", at: 5_000), alsoUnder: visibility))
        #expect(stored.serves(Self.location("bob", device: "d-bob2", at: 9_500), alsoUnder: visibility))
    }

    @Test func snapshotRowsKeepEachMembershipsOwnPeriods() {
        let visibility = GroupVisibility(rows: [
            .init(userID: "ann", deviceID: "d-ann", shares: true, start: 1_000, end: 2_000),
            .init(userID: "ann", deviceID: "d-ann", shares: true, start: 3_000, end: nil),
            .init(userID: "cat", deviceID: "d-cat", shares: false, start: nil, end: nil),
        ])
        #expect(visibility.members["ann"]?.windows == HistoryWindows([1_000...2_000, 3_000...Int64.max]))
        #expect(visibility.members["cat"] == .init(deviceID: "d-cat", shares: false, windows: .none))
        #expect(visibility.serves(Self.location("ann", at: 3_500)) && !visibility.serves(Self.location("ann", at: 2_500)))
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

