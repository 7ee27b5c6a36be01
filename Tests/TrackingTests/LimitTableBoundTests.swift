import Testing
import Tracking

/// The per-key limit tables stay bounded whatever keys clients send, and pruning them costs a
/// bounded amount per new key (not a pass over the table for every request once it is full of
/// active keys).
@Suite struct LimitTableBoundTests {
    @Test func aSlidingWindowHoldsAtMostItsKeysAndKeepsTheRecentOnesLimited() {
        let limiter = RateLimiter(limit: 2, windowMilliseconds: 60_000, maxKeys: 100)
        let now: Int64 = 1_000_000
        // A key that is over its limit, then a flood of other keys, all active in the window.
        #expect(limiter.attempt("victim-of-flood", now: now) == nil)
        #expect(limiter.attempt("victim-of-flood", now: now) == nil)
        for k in 0..<10_000 {
            #expect(limiter.attempt("key-\(k)", now: now + 1 + Int64(k)) == nil)
            #expect(limiter.keyCount <= 100)
        }
        // The newest keys are still counted: their next attempts inside the window are refused.
        #expect(limiter.attempt("key-9999", now: now + 20_000) == nil)
        #expect(limiter.attempt("key-9999", now: now + 20_001) != nil)
        // The least recently active key was dropped and starts afresh.
        #expect(limiter.attempt("victim-of-flood", now: now + 20_002) == nil)
    }

    @Test func idleKeysGoFirst() {
        let limiter = RateLimiter(limit: 1, windowMilliseconds: 1_000, maxKeys: 8)
        for k in 0..<8 { _ = limiter.attempt("old-\(k)", now: 0) }
        #expect(limiter.attempt("busy", now: 10_000) == nil)
        // All eight old keys left the window: pruning drops them, and "busy" stays counted.
        #expect(limiter.keyCount == 1)
        #expect(limiter.attempt("busy", now: 10_001) != nil)
    }

    @Test func tokenBucketsHoldAtMostTheirKeys() {
        let buckets = TokenBucket(perSecond: 1, burst: 2, maxKeys: 100)
        for k in 0..<10_000 {
            #expect(buckets.attempt("device-\(k)", now: Int64(k)) == nil)
            #expect(buckets.keyCount <= 100)
        }
        // The most recent key keeps its spent token: one more now, then it must wait.
        #expect(buckets.attempt("device-9999", now: 9_999) == nil)
        #expect(buckets.attempt("device-9999", now: 9_999) != nil)
    }
}
