import Dispatch
import Foundation
import HTTPServer

/// One part of a running server that must be stopped in order: the store, background jobs,
/// the HTTP server, the demo replay.
protocol LifecycleService: Sendable {
    /// For the log (`database`, `http`, `retention`, …).
    var name: String { get }
    /// Stops the service and waits until it has stopped; called once, after everything started
    /// later than it has stopped.
    func shutdown()
}

/// Owns the stop signals and the services of `fod serve`: services are added as they start,
/// and stopped in reverse order (the HTTP server stops taking requests before the jobs that
/// serve them stop, and those before the store closes).
final class ServiceGroup: @unchecked Sendable {
    // @unchecked: `services` is touched only by the thread that runs `fod serve` (add, then
    // `runUntilStopped`, then the shutdown that follows it).
    private var services: [any LifecycleService] = []
    private let stop = DispatchSemaphore(value: 0)
    private var signalSources: [DispatchSourceSignal] = []
    private let logger: Logger

    /// Installs the SIGINT/SIGTERM handlers at once, so a signal that arrives while the
    /// services start stops them cleanly too.
    init(logger: Logger) {
        self.logger = logger
        let queue = DispatchQueue(label: "fod.signals")
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            let stop = self.stop
            source.setEventHandler {
                logger.info("received signal \(signalNumber)")
                stop.signal()
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Adds a started service: it is stopped before every service added earlier.
    func add(_ service: any LifecycleService) { services.append(service) }

    /// Waits for SIGINT or SIGTERM, then stops every service, newest first.
    func runUntilStopped() {
        stop.wait()
        shutdown()
    }

    /// Stops every service, newest first (also after a failed start). Idempotent.
    func shutdown() {
        while let service = services.popLast() {
            logger.info("stopping \(service.name)")
            service.shutdown()
        }
        signalSources.forEach { $0.cancel() }
        signalSources = []
    }
}

/// A service around a stop action (closing the store, stopping the HTTP server).
struct StopAction: LifecycleService {
    let name: String
    let action: @Sendable () -> Void
    func shutdown() { action() }
}

/// A background job: a task cancelled at shutdown, waited for so that nothing it does
/// overlaps the services stopped after it (a retention pass and the store's close).
struct BackgroundJob: LifecycleService {
    let name: String
    let task: Task<Void, Never>
    func shutdown() {
        task.cancel()
        let finished = DispatchSemaphore(value: 0)
        let task = self.task
        Task.detached { await task.value; finished.signal() }
        finished.wait()
    }
}
