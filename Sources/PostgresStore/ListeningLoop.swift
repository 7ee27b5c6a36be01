import Foundation
import PostgresClient
import ThreadControl

/// A thread that keeps one `LISTEN` session on `channels` and hands what arrives to its
/// owner; when the session is lost it connects again (every `retryInterval` until it can) and
/// tells the owner first, so the owner can read from the tables what was committed meanwhile —
/// PostgreSQL delivers nothing to a session that was not connected.
///
/// The callbacks all run on the loop's thread, one at a time, so an owner may keep state that
/// only they touch without a lock.
///
/// Lifetime: `start` once (it listens before it returns, so nothing committed after it is
/// missed); `stop` once, before what the callbacks use goes away.
final class ListeningLoop: @unchecked Sendable {
    // @unchecked: the session is the loop thread's after `start` (`ThreadConfined`, checked);
    // `stopping` and `running` are guarded by `condition`.
    struct Callbacks: Sendable {
        /// Notifications that arrived, in commit order.
        var received: @Sendable ([PostgresNotification]) -> Void
        /// Runs before every wait (to retry reads that failed).
        var beforeWait: @Sendable () -> Void = {}
        /// Runs after a lost session was connected again, before anything more is received.
        var reconnected: @Sendable () -> Void
    }

    static let retryInterval = 0.5
    private let connectionString: String
    private let channels: [String]
    private let name: String
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var stopping = false
    private var running = false
    /// The listening session: set up by `start`, then the loop thread's alone (checked).
    private let session = ThreadConfined<NotificationListener?>(nil)
    /// Ends the loop's wait when `stop` is called (nil if no pipe could be made: the wait then
    /// ends by its timeout).
    private let wakeup = try? Wakeup()

    init(connectionString: String, channels: [String], name: String, log: @escaping @Sendable (String) -> Void) {
        self.connectionString = connectionString
        self.channels = channels
        self.name = name
        self.log = log
    }

    /// Listens, then runs `callbacks` on a thread of its own until `stop`. Throws
    /// `StoreFailure(.unavailable)` when the database cannot be reached.
    func start(_ callbacks: Callbacks) throws {
        do { try connect() } catch { throw PostgresStore.translate(error) }
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self, name] in
            CurrentThread.name(name)
            session.claim()
            run(callbacks)
        }
        thread.start()
    }

    /// Stops the thread (its wait ends at once) and closes the listening session.
    func stop() {
        condition.lock()
        stopping = true
        wakeup?.signal()
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func connect() throws {
        let listener = try NotificationListener(connectionString)
        for channel in channels { try listener.listen(channel) }
        session.value = listener
    }

    private func run(_ callbacks: Callbacks) {
        while !isStopping {
            do {
                guard let listener = session.value else {
                    try connect()
                    callbacks.reconnected()
                    continue
                }
                callbacks.beforeWait()
                let notifications = try listener.waitForNotifications(timeout: .milliseconds(250), wakeup: wakeup)
                if !notifications.isEmpty { callbacks.received(notifications) }
            } catch {
                if session.value != nil { log("\(name): lost its database session (\(error)); reconnecting") }
                session.value = nil
                condition.lock()
                if !stopping { _ = condition.wait(until: Date().addingTimeInterval(Self.retryInterval)) }
                condition.unlock()
            }
        }
        session.value = nil
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
