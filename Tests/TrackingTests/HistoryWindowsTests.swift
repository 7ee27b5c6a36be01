import Testing
import Tracking

@Suite struct HistoryWindowsTests {
    @Test func normalisesOverlapsAndNeighbours() {
        let w = HistoryWindows([10...20, 15...30, 31...40, 50...60, 0...0])
        #expect(w.intervals == [0...0, 10...40, 50...60])
        #expect(HistoryWindows(periods: [(start: 5, end: nil), (start: 1, end: 3)]).intervals == [1...3, 5...Int64.max])
        #expect(HistoryWindows(periods: [(start: 5, end: 4)]).isEmpty)
        #expect(HistoryWindows([Int64.min...0, 1...Int64.max]).isAll)
    }

    @Test func containsClipsAndUnites() {
        let w = HistoryWindows([10...20, 30...40])
        #expect([9, 10, 20, 21, 29, 30, 40, 41].map(w.contains) == [false, true, true, false, false, true, true, false])
        #expect(w.clipped(from: 15, to: 35).intervals == [15...20, 30...35])
        #expect(w.clipped(from: 21, to: 29).isEmpty)
        #expect(w.clipped(from: 40, to: 10).isEmpty)
        #expect(w.union(HistoryWindows([19...31])).intervals == [10...40])
        #expect(w.union(.all).isAll && w.union(.none) == w && HistoryWindows.none.contains(0) == false)
        #expect(w.hull == 10...40)
    }
}
