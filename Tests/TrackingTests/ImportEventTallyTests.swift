import EventJSON
import LocationFormats
import Testing
import Tracking
import TrackingTestSupport

/// The live-feed summary of an import (`ImportEventTally`): per sharing group, only the fixes
/// that group may see; the `location` event only while the import's newest fix is the latest.
@Suite struct ImportEventTallyTests {
    static func outcome(_ timestamps: [Int64], latest: Int64?) -> IngestOutcome {
        var outcome = IngestOutcome()
        outcome.stored = timestamps.enumerated().map { i, ts in
            StoredFix(deviceID: "d_1", sequence: Int64(100 + i), fix: Fix(longitude: Double(i), latitude: 1, timestamp: ts))
        }
        let stored = outcome.stored
        outcome.newLatestSequence = latest.flatMap { ts in stored.first { $0.fix.timestamp == ts }?.sequence }
        return outcome
    }

    static let sharing = [
        DeviceSharing(groupID: "g_b", userID: "u_1", windows: HistoryWindows([1_000...2_000])),
        DeviceSharing(groupID: "g_a", userID: "u_1", windows: .all),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let latestNow: Int64?
        let sharingNow: Set<GroupID>
        /// Per group: the kinds logged and the summary's count.
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "both groups, the import's newest fix is the latest", latestNow: 2_500, sharingNow: ["g_a", "g_b"],
             expected: ["g_a locations 4 500…2500", "g_a location latest", "g_b locations 2 1000…1500"]),
        Case(name: "a newer live fix arrived meanwhile", latestNow: 3_000, sharingNow: ["g_a", "g_b"],
             expected: ["g_a locations 4 500…2500", "g_b locations 2 1000…1500"]),
        Case(name: "g_b stopped sharing during the import", latestNow: 2_500, sharingNow: ["g_a"],
             expected: ["g_a locations 4 500…2500", "g_a location latest"]),
    ]

    @Test(arguments: cases)
    func entries(_ c: Case) {
        var tally = ImportEventTally(deviceID: "d_1", sharing: Self.sharing)
        tally.add(Self.outcome([500, 1_000], latest: 1_000))
        tally.add(Self.outcome([1_500, 2_500], latest: 2_500))
        tally.add(Self.outcome([], latest: nil))
        let lines = tally.entries(deviceKey: DeviceKey(storeValue: 7), latestTimestamp: c.latestNow, sharingNow: c.sharingNow).flatMap { group, entries in
            entries.map { entry -> String in
                switch entry.kind {
                case .locations:
                    let d = EventJSON.data(entry.payload, groupID: group)
                    let from = d["from"]?.stringValue ?? "", to = d["to"]?.stringValue ?? ""
                    #expect(entry.fix?.deviceKey == DeviceKey(storeValue: 7))
                    return "\(group) locations \(d["count"]?.intValue ?? -1) \(Self.ms(from))…\(Self.ms(to))"
                default:
                    return "\(group) location \(EventJSON.data(entry.payload, groupID: group)["latest"]?.boolValue == true ? "latest" : "not latest")"
                }
            }
        }
        #expect(lines == c.expected)
    }

    /// Milliseconds of the `1970-01-01T00:00:0S.sssZ` times used here.
    static func ms(_ text: String) -> String {
        let parts = text.split(separator: ":").last?.dropLast().split(separator: ".") ?? []
        guard parts.count == 2, let s = Int(parts[0]), let f = Int(parts[1]) else { return text }
        return String(s * 1000 + f)
    }

    @Test func anImportThatStoredNothingLogsNothing() {
        var tally = ImportEventTally(deviceID: "d_1", sharing: Self.sharing)
        tally.add(Self.outcome([], latest: nil))
        #expect(tally.entries(deviceKey: DeviceKey(storeValue: 7), latestTimestamp: 5, sharingNow: ["g_a", "g_b"]).isEmpty)
        #expect(tally.latest == nil)
    }
}
