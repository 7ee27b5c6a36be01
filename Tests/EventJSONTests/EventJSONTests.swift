import EventJSON
import JSONCore
import Testing
import Tracking

/// `EventJSON`: every payload's JSON (the feed's `data` and the log's stored text) with the exact
/// text the log has always stored, read back to the same typed value; rows it cannot read are
/// redacted, never served half-read.
@Suite struct EventJSONTests {
    struct Case: Sendable, CustomStringConvertible {
        let payload: EventPayload
        /// The stored text, as logs written by earlier releases hold it.
        let text: String
        var description: String { payload.kind.rawValue + " " + text.prefix(40) }
    }

    static let group = GroupID("g1")
    static let noon: Int64 = 1_780_000_000_123

    static let cases: [Case] = [
        Case(payload: .location(LocationEvent(deviceID: DeviceID("d1"), userID: UserID("u1"), longitude: 7, latitude: 48.85, timestamp: noon, latest: true)),
             text: #"{"deviceId":"d1","userId":"u1","location":[7,48.85],"timestamp":"2026-05-28T20:26:40.123Z","latest":true}"#),
        Case(payload: .locations(LocationBatchEvent(deviceID: DeviceID("d1"), userID: UserID("u1"), count: 30, from: noon - 60_000, to: noon)),
             text: #"{"deviceId":"d1","userId":"u1","count":30,"from":"2026-05-28T20:25:40.123Z","to":"2026-05-28T20:26:40.123Z"}"#),
        Case(payload: .place(PlaceEvent(crossing: .exit, placeID: PlaceID("p1"), placeName: "School \"Nord\"", deviceID: DeviceID("d1"), userID: UserID("u1"),
                                        timestamp: noon, longitude: -0.5, latitude: 51.25)),
             text: #"{"type":"exit","placeId":"p1","placeName":"School \"Nord\"","deviceId":"d1","userId":"u1","timestamp":"2026-05-28T20:26:40.123Z","location":[-0.5,51.25]}"#),
        Case(payload: .membership(MembershipEvent(.joined(sharing: false), userID: UserID("u2"), deviceID: DeviceID("d2"))),
             text: #"{"type":"joined","groupId":"g1","userId":"u2","shareLocation":false,"deviceId":"d2"}"#),
        Case(payload: .membership(MembershipEvent(.sharing(true), userID: UserID("u2"))),
             text: #"{"type":"sharing","groupId":"g1","userId":"u2","shareLocation":true}"#),
        Case(payload: .membership(MembershipEvent(.owner, userID: UserID("u2"), formerOwnerID: UserID("u1"))),
             text: #"{"type":"owner","groupId":"g1","userId":"u2","formerOwnerId":"u1"}"#),
        Case(payload: .membership(MembershipEvent(.left, userID: UserID("u2"), reason: .deviceRemoved)),
             text: #"{"type":"left","groupId":"g1","userId":"u2","reason":"device_removed"}"#),
        Case(payload: .membership({ var e = MembershipEvent(.renamed, userID: UserID("u1")); e.groupName = "Family"; return e }()),
             text: #"{"type":"renamed","groupId":"g1","userId":"u1","name":"Family"}"#),
        Case(payload: .redacted, text: "{}"),
    ]

    @Test(arguments: cases)
    func writesTheStoredTextAndReadsItBack(_ c: Case) {
        #expect(EventJSON.data(c.payload, groupID: Self.group).serializedString() == c.text)
        #expect(EventJSON.payload(type: c.payload.kind.rawValue, text: c.text) == c.payload)
    }

    @Test(arguments: [
        ("location", #"{"deviceId":"d1","userId":"u1","timestamp":"soon","location":[7,48],"latest":true}"#),
        ("location", #"{"deviceId":"d1","userId":"u1","timestamp":"2026-05-28T20:26:40Z","location":[7],"latest":true}"#),
        ("locations", #"{"deviceId":"d1","userId":"u1","from":"2026-05-28T20:26:40Z","to":"2026-05-28T20:26:40Z"}"#),
        ("place", #"{"type":"inside","placeId":"p1","placeName":"S","deviceId":"d1","userId":"u1","timestamp":"2026-05-28T20:26:40Z","location":[0,0]}"#),
        ("membership", #"{"type":"promoted","groupId":"g1","userId":"u2"}"#),
        ("membership", #"{"type":"left","groupId":"g1"}"#),
        ("location", "not json"),
        ("teleport", #"{"deviceId":"d1","userId":"u1"}"#),
    ])
    func rowsItCannotReadAreRedacted(type: String, text: String) {
        #expect(EventJSON.payload(type: type, text: text) == .redacted)
    }

    @Test func aGroupEventsDataNamesItsOwnGroup() {
        let event = GroupEvent(groupID: GroupID("g7"), id: EventID(3), payload: .membership(MembershipEvent(.deleted, userID: UserID("u1"))))
        #expect(EventJSON.data(event)["groupId"] == "g7")
        #expect(event.kind == .membership && event.userID == UserID("u1"))
    }
}
