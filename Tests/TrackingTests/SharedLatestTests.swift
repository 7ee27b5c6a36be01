import Testing
import Tracking

/// `SharedLatest` as a table: which fix a group sees as a device's latest, and which ranges it
/// reads to find it.
@Suite struct SharedLatestTests {
    /// A device's history: fix times (ms); the newest is its latest.
    static let history: [Int64] = [100, 200, 300, 400, 500]

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let windows: HistoryWindows
        let shown: Int64?
        /// Ranges read (none when the newest fix is visible).
        let reads: Int
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "newest inside an open period", windows: HistoryWindows([250...Int64.max]), shown: 500, reads: 0),
        Row(name: "owner", windows: .all, shown: 500, reads: 0),
        Row(name: "newest taken after sharing ended", windows: HistoryWindows([150...350]), shown: 300, reads: 1),
        Row(name: "newest taken while sharing was off, searched newest window first", windows: HistoryWindows([150...350, 450...450]),
            shown: 300, reads: 2),
        Row(name: "sharing off then on, no fix since", windows: HistoryWindows([150...250, 600...Int64.max]), shown: 200, reads: 1),
        Row(name: "only history from before joining", windows: HistoryWindows([600...Int64.max]), shown: nil, reads: 0),
        Row(name: "two closed periods, the later empty", windows: HistoryWindows([50...120, 310...390]), shown: 100, reads: 2),
        Row(name: "no windows", windows: .none, shown: nil, reads: 0),
    ]

    @Test(arguments: rows)
    func resolves(_ row: Row) {
        var reads = 0
        let shown = SharedLatest.resolve(Self.history.last, time: { $0 }, windows: row.windows) { range -> Int64? in
            reads += 1
            return Self.history.last { range.contains($0) }
        }
        #expect(shown == row.shown)
        #expect(reads == row.reads)
    }
}
