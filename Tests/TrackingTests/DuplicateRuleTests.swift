import LocationFormats
import Testing
import Tracking

@Suite struct DuplicateRuleTests {
    static func fix(_ ts: Int64, _ id: String? = nil) -> Fix { Fix(longitude: 1, latitude: 2, timestamp: ts, clientID: id) }

    @Test func idsAndTimestampsAgainstStoredAndEarlierFixes() {
        let fixes = [Self.fix(1, "a"), Self.fix(2, "a"), Self.fix(3, "old"), Self.fix(10), Self.fix(10), Self.fix(20), Self.fix(1, "b")]
        var asked: [String] = []
        let kept = DuplicateRule.survivors(of: fixes, storedID: { _, id in asked.append(id); return id == "old" },
                                           storedTimestamp: { $0 == 20 })
        // a once (its repeat is a duplicate of the batch), "old" stored before, 10 once, 20 stored, b kept
        // (a fix with an id is never a duplicate by timestamp).
        #expect(kept == [0, 3, 6])
        #expect(asked == ["a", "old", "b"])
    }

    @Test func aFixWithoutIDMatchesAKeptFixWithAnIDByTimestamp() {
        let kept = DuplicateRule.survivors(of: [Self.fix(5, "x"), Self.fix(5)], storedID: { _, _ in false }, storedTimestamp: { _ in false })
        #expect(kept == [0])
    }
}
