import Testing
import Timestamps
import Tracking
import TrackingTestSupport

/// `FriendsRule` (who a device receives in its OwnTracks reply) and `OwnTracksTID`, as tables.
@Suite struct FriendsRuleTests {
    static let fix = LastLocation(longitude: 2, latitude: 48, timestamp: Timestamp(millisecondsSince1970: 5_000))

    static func member(_ user: UserID, _ device: DeviceID, group: GroupID = "g1", sharing: Bool = true,
                       latest: LastLocation? = fix, since: Int64 = 1_000, until: Int64? = nil) -> FriendCandidate {
        FriendCandidate(groupID: group, userID: user, displayName: user.rawValue.uppercased(), deviceID: device, deviceName: device.rawValue,
                        sharing: sharing, latest: latest, accuracy: 8, windows: HistoryWindows(periods: [(start: since, end: until)]))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let receives: Bool
        let candidates: [FriendCandidate]
        /// (device, has a location) in the reply, in order.
        let expected: [(DeviceID, Bool)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "not opted in: nothing", receives: false, candidates: [member("ann", "d_me"), member("bob", "d_b")], expected: []),
        Case(name: "alone in the group", receives: true, candidates: [member("ann", "d_me")], expected: []),
        Case(name: "a sharing member with a shared fix", receives: true, candidates: [member("ann", "d_me"), member("bob", "d_b")],
             expected: [("d_b", true)]),
        Case(name: "a member not sharing is left out", receives: true,
             candidates: [member("ann", "d_me"), member("bob", "d_b", sharing: false), member("cat", "d_c")], expected: [("d_c", true)]),
        Case(name: "no fix yet: the card alone", receives: true, candidates: [member("ann", "d_me"), member("bob", "d_b", latest: nil)],
             expected: [("d_b", false)]),
        Case(name: "latest fix from before joining: the card alone", receives: true,
             candidates: [member("ann", "d_me"), member("bob", "d_b", since: 6_000)], expected: [("d_b", false)]),
        Case(name: "latest fix from a period that ended (sharing was off then on again later)", receives: true,
             candidates: [member("ann", "d_me"), FriendCandidate(groupID: "g1", userID: "bob", displayName: "BOB", deviceID: "d_b", deviceName: "b",
                                                                 sharing: true, latest: fix, accuracy: nil,
                                                                 windows: HistoryWindows(periods: [(start: 0, end: 4_000), (start: 6_000, end: nil)]))],
             expected: [("d_b", false)]),
        Case(name: "in two groups: once, shown if either group's period holds the fix", receives: true,
             candidates: [member("ann", "d_me"), member("ann", "d_me", group: "g2"), member("bob", "d_b", since: 9_000),
                          member("bob", "d_b", group: "g2", since: 1_000)], expected: [("d_b", true)]),
        Case(name: "the owner's other device is a friend", receives: true,
             candidates: [member("ann", "d_me"), member("ann", "d_tablet", group: "g2")], expected: [("d_tablet", true)]),
        Case(name: "ordered by device id", receives: true,
             candidates: [member("ann", "d_me"), member("zed", "d_z"), member("bob", "d_a"), member("cat", "d_m")],
             expected: [("d_a", true), ("d_m", true), ("d_z", true)]),
    ]

    @Test(arguments: cases)
    func friends(_ c: Case) {
        let friends = FriendsRule.friends(of: "d_me", in: FriendsSnapshot(receivesGroupLocations: c.receives, candidates: c.candidates))
        #expect(friends.map(\.deviceID) == c.expected.map(\.0))
        #expect(friends.map { $0.location != nil } == c.expected.map(\.1))
        #expect(friends.allSatisfy { $0.location != nil || $0.accuracy == nil })
        #expect(friends.allSatisfy { $0.tid == OwnTracksTID.of($0.deviceID) })
    }

    @Test func cardNameIsTheMembersDisplayName() {
        let friends = FriendsRule.friends(of: "d_me", in: FriendsSnapshot(receivesGroupLocations: true, candidates: [Self.member("ann", "d_me"), Self.member("bob", "d_b")]))
        #expect(friends.first?.displayName == "BOB" && friends.first?.accuracy == 8)
    }

    @Test func tidsAreTwoStableCharacters() {
        let ids = (0..<2_000).map { DeviceID("d_\($0)") }
        let tids = ids.map(OwnTracksTID.of)
        #expect(tids.allSatisfy { $0.count == 2 && $0.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) } })
        #expect(tids == ids.map(OwnTracksTID.of))
        // Spread over the alphabet (a constant or one-letter hash would fail this).
        #expect(Set(tids).count > 900)
        #expect(OwnTracksTID.of("d_AbC") == OwnTracksTID.of(DeviceID(rawValue: "d_AbC")))
    }
}

/// `PartitionRules` for a share link's credential: its own device and nothing else.
@Suite struct ShareCredentialRuleTests {
    struct Facts: PartitionFacts {
        func deviceOwner(deviceID: DeviceID) throws -> UserID? { deviceID == "d_b" ? "bob" : "ann" }
        func isMember(userID: UserID, groupID: GroupID) throws -> Bool { true }
        func isSharedWith(deviceID: DeviceID, viewerID: UserID) throws -> Bool { true }
        func sharedHistoryWindows(deviceID: DeviceID, viewerID: UserID) throws -> HistoryWindows { .all }
    }

    static let share = Credential.share(shareID: ShareID("sh_1"), deviceID: "d_b", since: 7_000)

    @Test func readsOnlyItsDeviceAndWritesNothing() throws {
        let rules = PartitionRules(facts: Facts())
        #expect(try rules.canRead(Self.share, .device("d_b")))
        for partition: Partition in [.device("d_a"), .user("bob"), .group("g1")] {
            #expect(try !rules.canRead(Self.share, partition), "\(partition)")
        }
        for partition: Partition in [.device("d_b"), .device("d_a"), .user("bob"), .group("g1")] {
            #expect(!rules.canWrite(Self.share, partition), "\(partition)")
        }
        #expect(throws: TrackingError.self) { try rules.requireWrite(Self.share, .device("d_b")) }
        #expect(Self.share.userID == nil)
    }

    @Test func historyStartsAtTheLinksSince() throws {
        let rules = PartitionRules(facts: Facts())
        let windows = try rules.historyWindows(Self.share, deviceID: "d_b")
        #expect(!windows.contains(6_999) && windows.contains(7_000) && windows.contains(Int64.max))
        #expect(throws: TrackingError.self) { try rules.historyWindows(Self.share, deviceID: "d_a") }
    }

    @Test func onlyADeviceTokenReceivesFriends() throws {
        let rules = PartitionRules(facts: Facts())
        #expect(try rules.friendsReader(.device(deviceID: "d_b", ownerID: "bob")) == "d_b")
        for credential in [Self.share, .user(userID: "bob"), .anonymous] {
            #expect(throws: TrackingError.self) { try rules.friendsReader(credential) }
        }
    }
}
