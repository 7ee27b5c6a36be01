/// How deliveries are retried and channels disabled (API.md "Delivery"), as pure functions —
/// the way careful webhook senders do it (Stripe, the Standard Webhooks guide): exponential
/// backoff with jitter, `Retry-After` honoured, retries for at least a day, then the channel of a
/// receiver that failed for a whole day is switched off until its owner turns it on again.
public struct DeliveryPolicy: Sendable {
    /// Waits before attempt 2, 3, … (ms); the last repeats. Each is spread by ±`jitter`.
    public var backoff: [Int64] = [5_000, 30_000, 120_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000]
    /// Fraction of a wait added or taken at random (0.2: ±20%).
    public var jitter = 0.2
    /// How long a delivery is retried (ms) before it fails for good.
    public var retryFor: Int64 = 24 * 3_600_000
    /// How long every attempt of a channel may fail (ms) before the channel is disabled.
    public var disableAfter: Int64 = 24 * 3_600_000

    public init() {}

    /// What an answer (or its absence) means.
    public enum Verdict: Sendable, Equatable {
        case delivered
        /// Worth another try (connection trouble, timeout, 5xx, 408, 429).
        case retryable
        /// Never worth another try (another 3xx or 4xx).
        case final
        /// 410 Gone: this delivery fails and the receiver asks to be forgotten.
        case gone
    }

    public static func verdict(httpStatus: Int?) -> Verdict {
        guard let status = httpStatus else { return .retryable }
        switch status {
        case 200...299: return .delivered
        case 408, 429, 500...599: return .retryable
        case 410: return .gone
        default: return .final
        }
    }

    /// The outcome of attempt number `attempts` (1 for the first) of a delivery made at
    /// `createdAt`, answered at `now` with `verdict`; `retryAfterSeconds` from the receiver;
    /// `random` in [0, 1) spreads the wait.
    public func outcome(verdict: Verdict, attempts: Int, createdAt: Int64, now: Int64, retryAfterSeconds: Int?,
                        random: Double) -> DeliveryAttempt.Outcome {
        switch verdict {
        case .delivered: return .delivered
        case .final, .gone: return .failed
        case .retryable:
            let index = min(max(0, attempts - 1), backoff.count - 1)
            let base = backoff.isEmpty ? 60_000 : backoff[index]
            let spread = Double(base) * jitter * (2 * min(max(random, 0), 1) - 1)
            var wait = max(0, base + Int64(spread.rounded()))
            if let seconds = retryAfterSeconds { wait = max(wait, Int64(seconds) * 1_000) }
            let next = now + wait
            // The last attempt is made when the day is over at the latest, then the delivery fails.
            if now >= createdAt + retryFor { return .failed }
            return .retry(at: min(next, createdAt + retryFor))
        }
    }

    /// Whether a channel failing since `failingSince` (ms) is to be disabled at `now`.
    public func disables(failingSince: Int64?, now: Int64) -> Bool {
        guard let failingSince else { return false }
        return now - failingSince >= disableAfter
    }
}
