import Foundation
import HTTPServer
import Synchronization
import Timestamps
import Tracking

/// Sends the queued deliveries (API.md "Delivery"): `senders` threads each lease the oldest due
/// deliveries of a few channels from the store, send them — the channels side by side, each
/// channel's in order (a send blocks: hence threads of their own, never the server's) — and
/// record the outcomes the `DeliveryPolicy` gives, leasing the next round in the same
/// transaction. A thread with nothing due waits until woken (`wake`: the matcher inserted
/// something) or until the next delivery is due (at most `idleSeconds`, so leases other nodes
/// let run out are taken over). A wake lets one waiting thread look; a thread whose lease came
/// back full (more may be due) lets two more look before it sends, so the threads fan out over
/// the due channels in a few leases' time and no thread looks at a queue another has just emptied.
///
/// At least once: a delivery is marked delivered only after its 2xx; a crash between the two
/// sends it again after the lease runs out, with the same `webhook-id`.
public final class DeliveryWorker: Sendable {
    public struct Configuration: Sendable {
        public var senders = 8
        /// Channels a sender leases deliveries of, sends and records at once: one transaction to
        /// lease them and one to record them.
        public var batch = 8
        /// Deliveries of one channel a sender leases at once (its oldest pending and the next ones
        /// while due), sent one after the other in event order: a busy channel's backlog drains
        /// `perChannel` deliveries a round trip to the database, not one.
        public var perChannel = 8
        /// How long a leased delivery is this node's (ms): longer than a send can take.
        public var leaseMilliseconds: Int64 = 60_000
        /// Longest wait between looks at the queue (seconds).
        public var idleSeconds = 5.0
        public var policy = DeliveryPolicy()
        /// Finished deliveries are kept this long (ms), and at most `keepPerChannel` of them.
        public var keepFor: Int64 = 30 * 86_400_000
        public var keepPerChannel = 1_000
        public init() {}
    }

    let store: any NotificationStore
    let transport: any NotificationTransport
    let configuration: Configuration
    let webMapURL: String?
    let logger: Logger
    /// Counts for `/metrics`.
    public let counters = DeliveryCounters()
    private let signal = NSCondition()
    /// Looks at the queue owed to waiting threads (at most `senders`: one each), and whether the
    /// threads go on (changed under `signal`).
    private let state = Mutex<(wakes: Int, running: Bool)>((0, false))
    private let finished = DispatchGroup()

    public init(store: any NotificationStore, transport: any NotificationTransport, configuration: Configuration = Configuration(),
                webMapURL: String?, logger: Logger) {
        self.store = store
        self.transport = transport
        self.configuration = configuration
        self.webMapURL = webMapURL
        self.logger = logger
    }

    public func start() {
        state.withLock { $0.running = true }
        for index in 0..<max(1, configuration.senders) {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                run()
            }
            thread.name = "fod-notify-\(index)"
            thread.start()
        }
    }

    /// Stops the threads after their current send (waits at most `seconds`).
    public func stop(waitingSeconds seconds: Double = 12) {
        signal.lock()
        state.withLock { $0.running = false }
        signal.broadcast()
        signal.unlock()
        _ = finished.wait(timeout: .now() + seconds)
    }

    /// Something may be due now: one waiting thread looks (or the next to finish its round).
    public func wake() { wake(threads: 1) }

    /// `threads` waiting threads look (or the next ones to finish their rounds).
    private func wake(threads: Int) {
        signal.lock()
        let senders = max(1, configuration.senders)
        state.withLock { $0.wakes = min($0.wakes + threads, senders) }
        for _ in 0..<threads { signal.signal() }
        signal.unlock()
    }

    private var running: Bool { state.withLock { $0.running } }

    private func run() {
        var housekeeping = Timestamp.nowMilliseconds()
        var jobs: [DeliveryJob] = [], leasedAt = housekeeping
        while running {
            if jobs.isEmpty {
                leasedAt = Timestamp.nowMilliseconds()
                do {
                    jobs = try store.leaseDeliveries(now: leasedAt, leaseMilliseconds: configuration.leaseMilliseconds, limit: configuration.batch,
                                                     perChannel: configuration.perChannel)
                } catch {
                    logger.warning("notifications: leasing deliveries failed (\(error))")
                    waitForWork(until: leasedAt + 1_000)
                    continue
                }
            }
            guard !jobs.isEmpty else {
                if leasedAt - housekeeping > 3_600_000 {
                    housekeeping = leasedAt
                    prune(now: leasedAt)
                }
                let due = (try? store.nextDueTime()) ?? nil
                waitForWork(until: min(due ?? Int64.max, leasedAt + Int64(configuration.idleSeconds * 1_000)))
                continue
            }
            // Every channel asked for came back: more may be due, for two more threads (so that
            // a burst reaches as many threads as it needs in a few leases' time, not one by one).
            if Set(jobs.map(\.channel.id)).count >= configuration.batch { wake(threads: 2) }
            let sent = send(jobs, leasedAt: leasedAt)
            leasedAt = Timestamp.nowMilliseconds()
            if running {
                jobs = recordAndLease(sent, now: leasedAt)
            } else {
                record(sent.attempts, releasing: sent.unattempted)
                jobs = []
            }
        }
        // Stopped with a round leased and not sent: due again at once, for another node.
        record([], releasing: jobs.map(\.delivery.id))
    }

    /// Waits until woken or until `deadline` (ms since 1970).
    private func waitForWork(until deadline: Int64) {
        signal.lock()
        defer { signal.unlock() }
        while running {
            let consumed = state.withLock { s -> Bool in
                guard s.wakes > 0 else { return false }
                s.wakes -= 1
                return true
            }
            if consumed { return }
            let remaining = deadline - Timestamp.nowMilliseconds()
            if remaining <= 0 { return }
            _ = signal.wait(until: Date(timeIntervalSinceNow: Double(remaining) / 1_000))
        }
    }

    /// Sends a round's leased jobs: the channels side by side (a round lasts as long as its
    /// slowest channel), each channel's in order (`sendInOrder`).
    func send(_ jobs: [DeliveryJob], leasedAt: Int64) -> (attempts: [DeliveryAttempt], unattempted: [DeliveryID]) {
        let sent = SideBySide.map(Self.channelRuns(jobs), name: "fod-notify-send") { [self] run in sendInOrder(run, leasedAt: leasedAt) }
        return (sent.flatMap(\.attempts), sent.flatMap(\.unattempted))
    }

    /// The jobs by channel, each channel's in their order; channels in the order of their first job.
    static func channelRuns(_ jobs: [DeliveryJob]) -> [[DeliveryJob]] {
        var runs: [[DeliveryJob]] = [], index: [ChannelID: Int] = [:]
        for job in jobs {
            if let at = index[job.channel.id] {
                runs[at].append(job)
            } else {
                index[job.channel.id] = runs.count
                runs.append([job])
            }
        }
        return runs
    }

    /// Sends jobs of one channel one after the other, until one is not delivered or half the
    /// lease has passed; the rest are returned to release.
    func sendInOrder(_ run: [DeliveryJob], leasedAt: Int64) -> (attempts: [DeliveryAttempt], unattempted: [DeliveryID]) {
        var attempts: [DeliveryAttempt] = [], unattempted: [DeliveryID] = []
        var halted = false
        for job in run {
            if halted || Timestamp.nowMilliseconds() - leasedAt > configuration.leaseMilliseconds / 2 {
                unattempted.append(job.delivery.id)
                continue
            }
            let attempt = attempt(job)
            attempts.append(attempt)
            if attempt.outcome != .delivered { halted = true }
        }
        return (attempts, unattempted)
    }

    /// Sends one leased delivery; what came of it, to record.
    func attempt(_ job: DeliveryJob) -> DeliveryAttempt {
        let delivery = job.delivery, channel = job.channel
        let now = Timestamp.nowMilliseconds()
        let attempt: DeliveryAttempt
        if !channel.enabled {
            attempt = DeliveryAttempt(deliveryID: delivery.id, channelID: channel.id, outcome: .failed, at: now, httpStatus: nil,
                                      error: "the channel is turned off", disableChannel: nil)
        } else {
            let request = NotificationMessage.request(channel: channel, deliveryID: delivery.id, payload: delivery.payload,
                                                      nowSeconds: now / 1_000, webMapURL: webMapURL)
            let result = transport.send(request)
            attempt = Self.attempt(for: job, result: result, at: Timestamp.nowMilliseconds(), policy: configuration.policy,
                                   random: Double.random(in: 0..<1))
        }
        counters.count(attempt.outcome)
        return attempt
    }

    /// Records a round and leases the next in one transaction; nothing to send if that fails
    /// (the round's leases run out and its deliveries are attempted again: at least once).
    private func recordAndLease(_ sent: (attempts: [DeliveryAttempt], unattempted: [DeliveryID]), now: Int64) -> [DeliveryJob] {
        do {
            return try store.recordAttempts(sent.attempts, releasing: sent.unattempted, thenLeasing: configuration.batch, now: now,
                                            leaseMilliseconds: configuration.leaseMilliseconds, perChannel: configuration.perChannel)
        } catch {
            logger.warning("notifications: recording \(sent.attempts.count) deliveries failed (\(error))")
            return []
        }
    }

    /// Records attempts and releases what was not attempted, in one transaction. If that fails,
    /// their leases run out and they are attempted again: at least once.
    private func record(_ attempts: [DeliveryAttempt], releasing unattempted: [DeliveryID]) {
        guard !attempts.isEmpty || !unattempted.isEmpty else { return }
        do {
            try store.recordAttempts(attempts, releasing: unattempted)
        } catch {
            logger.warning("notifications: recording \(attempts.count) deliveries failed (\(error))")
        }
    }

    /// What an attempt's result means for the delivery and its channel.
    static func attempt(for job: DeliveryJob, result: TransportResult, at now: Int64, policy: DeliveryPolicy, random: Double) -> DeliveryAttempt {
        let verdict = DeliveryPolicy.verdict(httpStatus: result.httpStatus)
        let outcome = policy.outcome(verdict: verdict, attempts: job.delivery.attempts + 1, createdAt: job.delivery.createdAt, now: now,
                                     retryAfterSeconds: result.retryAfterSeconds, random: random)
        var disable: String?
        if verdict == .gone {
            disable = "the receiver answered 410 Gone"
        } else if outcome != .delivered, policy.disables(failingSince: job.channel.failingSince ?? now, now: now) {
            disable = "every delivery failed for \(policy.disableAfter / 3_600_000) hours"
        }
        return DeliveryAttempt(deliveryID: job.delivery.id, channelID: job.channel.id, outcome: outcome, at: now,
                               httpStatus: result.httpStatus, error: outcome == .delivered ? nil : result.error ?? result.httpStatus.map { "HTTP \($0)" },
                               disableChannel: disable)
    }

    private func prune(now: Int64) {
        let keepFor = configuration.keepFor, keep = configuration.keepPerChannel
        do {
            _ = try store.pruneDeliveries(before: now - keepFor, keep: keep)
        } catch {
            logger.warning("notifications: pruning the delivery log failed (\(error))")
        }
    }
}

/// Counters of delivery attempts, for `/metrics`.
public final class DeliveryCounters: Sendable {
    private let counts = Mutex<(delivered: Int, retried: Int, failed: Int)>((0, 0, 0))

    func count(_ outcome: DeliveryAttempt.Outcome) {
        counts.withLock { c in
            switch outcome {
            case .delivered: c.delivered += 1
            case .retry: c.retried += 1
            case .failed: c.failed += 1
            }
        }
    }

    /// Prometheus text.
    public func render() -> String {
        let c = counts.withLock { $0 }
        return """
            # HELP fod_notification_attempts_total Notification delivery attempts by outcome.
            # TYPE fod_notification_attempts_total counter
            fod_notification_attempts_total{outcome="delivered"} \(c.delivered)
            fod_notification_attempts_total{outcome="retry"} \(c.retried)
            fod_notification_attempts_total{outcome="failed"} \(c.failed)

            """
    }
}
