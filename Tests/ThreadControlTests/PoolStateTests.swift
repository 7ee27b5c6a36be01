import Testing
import ThreadControl

@Suite struct PoolStateTests {
    /// The connection a claim lent, or nil for a place to open one in; fails the test on wait/closed.
    private func lent(_ claim: PoolState<String>.Claim) -> String?? {
        switch claim {
        case .reuse(let connection): return .some(connection)
        case .open: return .some(nil)
        case .wait, .closed: return nil
        }
    }

    @Test func idleConnectionsAreLentFirstThenNewPlacesUpToTheSize() {
        var pool = PoolState(size: 3, connections: ["a"])
        #expect(lent(pool.claim()) == .some("a"))
        #expect(lent(pool.claim()) == .some(nil))
        #expect(lent(pool.claim()) == .some(nil))
        guard case .wait = pool.claim() else { Issue.record("a full pool must make the borrower wait"); return }
        #expect(pool.openCount == 3)
        #expect(pool.lent == 3)
    }

    @Test func aReturnedConnectionIsLentAgainAndAFailedOpenFreesItsPlace() {
        var pool = PoolState<String>(size: 1)
        guard case .open = pool.claim() else { Issue.record("an empty pool opens"); return }
        pool.release(nil)  // the open failed
        guard case .open = pool.claim() else { Issue.record("the place was given back"); return }
        #expect(pool.release("b") == nil)
        #expect(lent(pool.claim()) == .some("b"))
    }

    @Test func extraPlacesGoPastTheSizeButNotWhileSuspended() {
        var pool = PoolState<String>(size: 1)
        _ = pool.claim()
        guard case .open = pool.claimExtra() else { Issue.record("an extra place is beside the pool"); return }
        #expect(pool.lent == 2)
        _ = pool.suspend()
        guard case .wait = pool.claimExtra() else { Issue.record("a suspended pool lends nothing"); return }
    }

    @Test func suspendingHandsBackTheIdleOnesAndThoseReturnedLater() {
        var pool = PoolState(size: 2, connections: ["a", "b"])
        #expect(lent(pool.claim()) == .some("b"))
        #expect(pool.suspend() == ["a"])
        guard case .wait = pool.claim() else { Issue.record("a suspended pool lends nothing"); return }
        #expect(!pool.allReturned)
        pool.release("b")
        #expect(pool.allReturned)
        #expect(pool.suspend() == ["b"])
        pool.resume()
        guard case .open = pool.claim() else { Issue.record("after resuming, connections are opened again"); return }
    }

    @Test func aClosedPoolLendsNothingAndKeepsNothingGivenBack() {
        var pool = PoolState(size: 2, connections: ["a"])
        #expect(lent(pool.claim()) == .some("a"))
        #expect(pool.close() == [])
        guard case .closed = pool.claim() else { Issue.record("a closed pool refuses"); return }
        guard case .closed = pool.claimExtra() else { Issue.record("a closed pool refuses extras"); return }
        #expect(pool.release("a") == "a", "the owner closes what comes back after close")
        #expect(pool.allReturned)
    }
}
