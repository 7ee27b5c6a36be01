import StoreTestSupport
import Testing
import Tracking

/// `LimitCounters`: the abuse limits count the same on every store — exactly `limit` attempts
/// per window, refusals record nothing, scopes and keys never mix, and concurrent attempts
/// never take more than the limit (on PostgreSQL they come from several connections at once,
/// as from several nodes).
@Suite("Store conformance: abuse-limit counters")
struct LimitCountersConformance {
    static let t0 = Fixtures.t0

    @Test(arguments: StoreFactory.all)
    func aSlidingWindowAdmitsExactlyItsLimitAndSaysHowLongToWait(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let counters = store.limitCounters
            let limit = WindowLimit(scope: "test-window", limit: 3, windowMilliseconds: 60_000)
            for offset in Int64(0)..<3 {
                #expect(try counters.waitTime(limit, key: "10.0.0.1", now: Self.t0 + offset) == nil)
                #expect(try counters.attempt(limit, key: "10.0.0.1", now: Self.t0 + offset) == nil)
            }
            // Full: the oldest attempt (t0) leaves the window at t0 + 60 s.
            #expect(try counters.attempt(limit, key: "10.0.0.1", now: Self.t0 + 500) == 60)
            #expect(try counters.waitTime(limit, key: "10.0.0.1", now: Self.t0 + 30_000) == 30)
            #expect(try counters.attempt(limit, key: "10.0.0.1", now: Self.t0 + 59_999) == 1)
            // Another key, another scope: counted apart.
            #expect(try counters.attempt(limit, key: "10.0.0.2", now: Self.t0 + 500) == nil)
            let other = WindowLimit(scope: "test-other", limit: 3, windowMilliseconds: 60_000)
            #expect(try counters.attempt(other, key: "10.0.0.1", now: Self.t0 + 500) == nil)
            // The refusals recorded nothing: once t0 left the window there is room for one.
            #expect(try counters.attempt(limit, key: "10.0.0.1", now: Self.t0 + 60_000) == nil)
            #expect(try counters.attempt(limit, key: "10.0.0.1", now: Self.t0 + 60_000) == 1)
            // A whole window later the key starts afresh.
            for _ in 0..<3 { #expect(try counters.attempt(limit, key: "10.0.0.1", now: Self.t0 + 200_000) == nil) }
            #expect(try counters.waitTime(limit, key: "10.0.0.1", now: Self.t0 + 200_000) == 60)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aTokenBucketAdmitsItsBurstThenItsRate(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let counters = store.limitCounters
            let limit = BucketLimit(scope: "test-bucket", perSecond: 2, burst: 3)
            for _ in 0..<3 { #expect(try counters.take(limit, key: "device-a", now: Self.t0) == nil) }
            #expect(try counters.take(limit, key: "device-a", now: Self.t0) == 1)
            #expect(try counters.take(limit, key: "device-b", now: Self.t0) == nil)
            // Half a second refills one token (2 a second); the refusal above took none.
            #expect(try counters.take(limit, key: "device-a", now: Self.t0 + 500) == nil)
            #expect(try counters.take(limit, key: "device-a", now: Self.t0 + 500) == 1)
            // Idle long enough, the bucket is full again — and never more than full.
            for _ in 0..<3 { #expect(try counters.take(limit, key: "device-a", now: Self.t0 + 3_600_000) == nil) }
            #expect(try counters.take(limit, key: "device-a", now: Self.t0 + 3_600_000) == 1)
            let disabled = BucketLimit(scope: "test-off", perSecond: 0, burst: 1)
            for _ in 0..<5 { #expect(try counters.take(disabled, key: "device-a", now: Self.t0) == nil) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func aLargeBucketAdmitsExactlyItsBurstWhateverItHandsOutAtOnce(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let counters = store.limitCounters
            let limit = BucketLimit(scope: "test-large", perSecond: 0.01, burst: 100)
            let admitted = try (0..<130).filter { _ in try counters.take(limit, key: "device-a", now: Self.t0) == nil }.count
            #expect(admitted == 100)
            #expect(try counters.take(limit, key: "device-a", now: Self.t0 + 1) == 100)
        }
    }

    @Test(arguments: StoreFactory.all)
    func concurrentAttemptsNeverTakeMoreThanTheLimit(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let counters = store.limitCounters
            let window = WindowLimit(scope: "test-race", limit: 5, windowMilliseconds: 60_000)
            let bucket = BucketLimit(scope: "test-race", perSecond: 0.001, burst: 5)
            let now = Self.t0
            let admitted = try await withThrowingTaskGroup(of: (Bool, Bool).self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        (try counters.attempt(window, key: "racer", now: now) == nil, try counters.take(bucket, key: "racer", now: now) == nil)
                    }
                }
                var counts = (window: 0, bucket: 0)
                for try await (byWindow, byBucket) in group {
                    if byWindow { counts.window += 1 }
                    if byBucket { counts.bucket += 1 }
                }
                return counts
            }
            #expect(admitted.window == 5)
            #expect(admitted.bucket == 5)
        }
    }
}
