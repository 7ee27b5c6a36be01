import Testing
import Tracking

/// `SignInThrottle`'s rule on its own, with a fixed clock (ms).
@Suite struct SignInThrottleTests {
    static let t0: Int64 = 1_700_000_000_000
    static let day = SignInThrottle.dayMilliseconds

    /// Runs attempts one after the other at `times`, each failing, and returns what each got:
    /// "ok" or the seconds of `Retry-After`.
    static func run(_ throttle: SignInThrottle, known: Bool, times: [Int64], from start: SignInFailures? = nil) -> (outcomes: [String], record: SignInFailures?) {
        var record = start
        var outcomes: [String] = []
        for now in times {
            switch throttle.decide(record, fromKnownAddress: known, now: now) {
            case .admit(let next):
                record = next
                outcomes.append("ok")
            case .refuse(let wait):
                outcomes.append(String(SignInThrottle.Decision.refuse(retryAfterMilliseconds: wait).retryAfterSeconds ?? 0))
            }
        }
        return (outcomes, record)
    }

    @Test func theFirstFailuresAreFreeThenTheWaitDoublesUpToItsCap() {
        let throttle = SignInThrottle()
        #expect((0..<5).map { throttle.delay(afterFailures: $0) } == [0, 0, 0, 0, 0])
        #expect((5..<12).map { throttle.delay(afterFailures: $0) } == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000])
        #expect(throttle.delay(afterFailures: 15) == 900_000 && throttle.delay(afterFailures: 99) == 900_000)
        #expect(throttle.delay(afterFailures: Int.max) == 900_000)
        // Five at once, then the sixth must wait a second after the fifth.
        let burst = Self.run(throttle, known: false, times: Array(repeating: Self.t0, count: 7))
        #expect(burst.outcomes == ["ok", "ok", "ok", "ok", "ok", "1", "1"])
        #expect(Self.run(throttle, known: false, times: [Self.t0 + 999], from: burst.record).outcomes == ["1"])
        #expect(Self.run(throttle, known: false, times: [Self.t0 + 1_000], from: burst.record).outcomes == ["ok"])
    }

    /// Attackers anywhere but the owner's known addresses get at most 80 guesses in any day
    /// (100 less the 20 kept), however they space them; the known addresses then still get in.
    @Test func unknownAddressesGetEightyADayAndKnownOnesTheRest() {
        let throttle = SignInThrottle()
        #expect(throttle.failuresFromUnknownAddresses == 80 && throttle.failuresKeptForKnownAddresses == 20)
        // Every attempt exactly when allowed: how many are admitted within the day?
        var record: SignInFailures?
        var now = Self.t0
        var admitted = 0
        while now < Self.t0 + Self.day {
            switch throttle.decide(record, fromKnownAddress: false, now: now) {
            case .admit(let next):
                record = next
                admitted += 1
            case .refuse(let wait):
                now += wait
            }
        }
        #expect(admitted <= 80)
        let full = SignInFailures(count: 80, lastAttemptAt: Self.t0 + 1_000)
        #expect(throttle.decide(full, fromKnownAddress: false, now: Self.t0 + 2_000) == .refuse(retryAfterMilliseconds: Self.day - 1_000))
        let known = Self.run(throttle, known: true, times: Array(repeating: Self.t0 + 2_000, count: 21), from: full)
        #expect(known.outcomes == Array(repeating: "ok", count: 20) + ["86400"])
        #expect(known.record == SignInFailures(count: 100, lastAttemptAt: Self.t0 + 2_000))
    }

    @Test func aRecordADayOldCountsNothing() {
        let throttle = SignInThrottle()
        let full = SignInFailures(count: 100, lastAttemptAt: Self.t0)
        #expect(throttle.decide(full, fromKnownAddress: true, now: Self.t0 + Self.day - 1) == .refuse(retryAfterMilliseconds: 1))
        #expect(throttle.decide(full, fromKnownAddress: false, now: Self.t0 + Self.day) == .admit(SignInFailures(count: 1, lastAttemptAt: Self.t0 + Self.day)))
        #expect(!full.counts(at: Self.t0 + Self.day) && full.counts(at: Self.t0 + Self.day - 1))
    }

    @Test func aClockBehindTheRecordNeverMovesItBackNorWaitsLonger() {
        let throttle = SignInThrottle()
        let record = SignInFailures(count: 2, lastAttemptAt: Self.t0)
        #expect(throttle.decide(record, fromKnownAddress: false, now: Self.t0 - 5_000) == .admit(SignInFailures(count: 3, lastAttemptAt: Self.t0)))
    }

    @Test func settingsAreClamped() {
        let odd = SignInThrottle(failuresPerDay: 0, failuresKeptForKnownAddresses: 5, freeFailures: -3, firstDelayMilliseconds: 0,
                                 longestDelayMilliseconds: -1, knownAddressesPerAccount: 0)
        #expect(odd.failuresPerDay == 1 && odd.failuresKeptForKnownAddresses == 0 && odd.freeFailures == 1)
        #expect(odd.firstDelayMilliseconds == 1 && odd.longestDelayMilliseconds == 1 && odd.knownAddressesPerAccount == 1)
        #expect(SignInThrottle(failuresPerDay: 10).failuresKeptForKnownAddresses == 2)
        #expect(SignInThrottle.Decision.refuse(retryAfterMilliseconds: 1).retryAfterSeconds == 1)
        #expect(SignInThrottle.Decision.refuse(retryAfterMilliseconds: 1_001).retryAfterSeconds == 2)
    }
}
