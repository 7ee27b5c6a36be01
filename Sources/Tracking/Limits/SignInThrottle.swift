/// Per-account throttling of failed sign-ins: at most `failuresPerDay` consecutive failures per
/// account in any day, whatever the number of addresses they come from (NIST SP 800-63B
/// §5.2.2 asks for at most 100), without letting an attacker lock the owner out.
///
/// Each account key (a digest of the email, whether an account has it or not, so that both get
/// the same answers) has a record, `SignInFailures`: the attempts admitted since the last
/// correct password, and when the latest was admitted. An attempt counts as failed from the
/// moment it is admitted (before its password is checked, so concurrent attempts on any number
/// of nodes can never go past a bound); a correct password deletes the record, and a record
/// whose latest attempt is a day old counts nothing.
///
/// The rule, for an attempt at `now` on a record of `count` failures:
/// 1. `count >= failuresPerDay`: refused until a day after the latest attempt, from anywhere.
/// 2. From an address the account signed in from before (a *known* address): admitted.
/// 3. `count >= failuresPerDay - failuresKeptForKnownAddresses`: refused until a day after the
///    latest attempt — the rest of the day's budget is kept for the owner's known addresses,
///    so no attacker who does not share one of them can exhaust it.
/// 4. `count >= freeFailures`: admitted only `delay(count)` after the latest attempt, a delay
///    that doubles with each failure from `firstDelayMilliseconds` up to
///    `longestDelayMilliseconds`.
/// 5. Otherwise admitted.
///
/// So attackers anywhere else get at most `failuresPerDay - failuresKeptForKnownAddresses`
/// guesses a day, spaced out; the owner at a known address signs in whatever they do, unless
/// the known addresses themselves failed `failuresKeptForKnownAddresses` times that day. A
/// refusal is decided from the record alone, before any password hashing.
///
/// Invariants (the initialiser clamps): `failuresPerDay >= 1`,
/// `0 <= failuresKeptForKnownAddresses < failuresPerDay`, `freeFailures >= 1`,
/// `1 <= firstDelayMilliseconds <= longestDelayMilliseconds`, `knownAddressesPerAccount >= 1`.
public struct SignInThrottle: Sendable, Equatable {
    /// A day, in milliseconds: a record this old counts nothing; refusals at the daily bound last
    /// until a day after the latest attempt.
    public static let dayMilliseconds: Int64 = 86_400_000

    /// Consecutive failures an account may have in a day, from all addresses together.
    public let failuresPerDay: Int
    /// Of those, the failures only known addresses may make.
    public let failuresKeptForKnownAddresses: Int
    /// Failures before attempts from unknown addresses are spaced out.
    public let freeFailures: Int
    /// The wait after the `freeFailures`-th failure (ms); it doubles with each further one.
    public let firstDelayMilliseconds: Int64
    /// The longest wait between two attempts from unknown addresses (ms).
    public let longestDelayMilliseconds: Int64
    /// Addresses remembered per account (the most recent sign-ins).
    public let knownAddressesPerAccount: Int

    /// - Parameter failuresKeptForKnownAddresses: nil keeps a fifth of `failuresPerDay`.
    public init(failuresPerDay: Int = 100, failuresKeptForKnownAddresses: Int? = nil, freeFailures: Int = 5,
                firstDelayMilliseconds: Int64 = 1_000, longestDelayMilliseconds: Int64 = 15 * 60_000,
                knownAddressesPerAccount: Int = 20) {
        self.failuresPerDay = max(1, failuresPerDay)
        let kept = failuresKeptForKnownAddresses ?? self.failuresPerDay / 5
        self.failuresKeptForKnownAddresses = min(max(0, kept), self.failuresPerDay - 1)
        self.freeFailures = max(1, freeFailures)
        self.firstDelayMilliseconds = max(1, firstDelayMilliseconds)
        self.longestDelayMilliseconds = max(self.firstDelayMilliseconds, longestDelayMilliseconds)
        self.knownAddressesPerAccount = max(1, knownAddressesPerAccount)
    }

    /// Failures unknown addresses may make in a day (`failuresPerDay - failuresKeptForKnownAddresses`).
    public var failuresFromUnknownAddresses: Int { failuresPerDay - failuresKeptForKnownAddresses }

    /// What to do with one attempt.
    public enum Decision: Sendable, Equatable {
        /// Go ahead, and store this record first (the attempt counted as a failure until it
        /// succeeds).
        case admit(SignInFailures)
        /// Refuse (429) without checking the password; `retryAfterMilliseconds >= 1`.
        case refuse(retryAfterMilliseconds: Int64)

        /// The whole seconds to wait for `Retry-After` (≥ 1), nil when admitted.
        public var retryAfterSeconds: Int? {
            guard case .refuse(let wait) = self else { return nil }
            return Int(max(1, (wait + 999) / 1000))
        }
    }

    /// The decision on an attempt at `now` (ms) given the account's record (nil: none).
    public func decide(_ record: SignInFailures?, fromKnownAddress known: Bool, now: Int64) -> Decision {
        let current = record.flatMap { $0.counts(at: now) ? $0 : nil }
        guard let current else { return .admit(SignInFailures(count: 1, lastAttemptAt: now)) }
        let endOfDay = current.lastAttemptAt + Self.dayMilliseconds - now
        if current.count >= failuresPerDay { return .refuse(retryAfterMilliseconds: max(1, endOfDay)) }
        let next = Decision.admit(SignInFailures(count: current.count + 1, lastAttemptAt: max(now, current.lastAttemptAt)))
        if known { return next }
        if current.count >= failuresFromUnknownAddresses { return .refuse(retryAfterMilliseconds: max(1, endOfDay)) }
        guard current.count >= freeFailures else { return next }
        let wait = current.lastAttemptAt + delay(afterFailures: current.count) - now
        return wait > 0 ? .refuse(retryAfterMilliseconds: wait) : next
    }

    /// The least time between the `count`-th failure and the next attempt from an unknown
    /// address (ms): 0 below `freeFailures`, then `firstDelayMilliseconds` doubled
    /// `count - freeFailures` times, at most `longestDelayMilliseconds`.
    public func delay(afterFailures count: Int) -> Int64 {
        guard count >= freeFailures else { return 0 }
        let doublings = count - freeFailures
        // 2^62 overflows nothing; past it the cap has long been reached.
        guard doublings < 62 else { return longestDelayMilliseconds }
        let (grown, overflow) = firstDelayMilliseconds.multipliedReportingOverflow(by: Int64(1) << Int64(doublings))
        return overflow ? longestDelayMilliseconds : min(grown, longestDelayMilliseconds)
    }
}

/// The consecutive failed sign-ins of one account key (`SignInThrottle`).
///
/// Invariant: `count >= 1` for a stored record (none is stored for zero).
public struct SignInFailures: Sendable, Equatable {
    /// Attempts admitted since the last correct password.
    public var count: Int
    /// When the latest of them was admitted (ms since 1970).
    public var lastAttemptAt: Int64

    public init(count: Int, lastAttemptAt: Int64) {
        self.count = count
        self.lastAttemptAt = lastAttemptAt
    }

    /// Whether the record still counts at `now`: its latest attempt is less than a day old.
    public func counts(at now: Int64) -> Bool {
        count > 0 && now - lastAttemptAt < SignInThrottle.dayMilliseconds
    }
}
