import Foundation
import Synchronization

/// Gives memory back once writes have paused for a while: the page caches of the writer and the
/// idle readers (the writer's alone may hold tens of MiB after a burst), then whatever the
/// allocator keeps free (`FreeMemory`). Runs on the writer thread, between commits, once per
/// pause; the next burst refills the caches from the file (mostly from the OS cache).
public final class IdleMemoryRelease: WriterMaintenance {
    /// How long writes must have paused (seconds).
    public let afterSeconds: Double
    private let readers: ReaderPool?
    /// When the release is due (nil: done since the last commit).
    private let due: Mutex<Date?>

    public init(afterSeconds: Double = 10, readers: ReaderPool?) {
        self.afterSeconds = afterSeconds
        self.readers = readers
        due = Mutex(Date().addingTimeInterval(afterSeconds))
    }

    public func afterCommit(_ database: Database) {
        let next = Date().addingTimeInterval(afterSeconds)
        due.withLock { $0 = next }
    }

    public func idleDeadline() -> Date? { due.withLock { $0 } }

    public func idle(_ database: Database) {
        database.releaseMemory()
        readers?.releaseMemory()
        FreeMemory.returnToSystem()
        due.withLock { $0 = nil }
    }
}

/// Several maintenance tasks for one writer, each asked in turn.
public final class WriterMaintenanceGroup: WriterMaintenance {
    private let members: [any WriterMaintenance]

    public init(_ members: [any WriterMaintenance]) { self.members = members }

    public func afterCommit(_ database: Database) {
        for member in members { member.afterCommit(database) }
    }

    public func idleDeadline() -> Date? { members.compactMap { $0.idleDeadline() }.min() }

    public func idle(_ database: Database) {
        let now = Date()
        for member in members {
            if let due = member.idleDeadline(), due <= now { member.idle(database) }
        }
    }
}
