import Dispatch
import Synchronization

/// At most `limit` requests at once to one destination (`scheme://host:port`); more wait for
/// one to finish. A bound on the connections a node opens to a receiver — however many
/// channels send to it side by side — so that they are opened once and reused, and a burst of
/// new ones cannot overflow its listen queue (a dropped connection attempt is retried only a
/// second later).
final class DestinationSlots: Sendable {
    let limit: Int
    /// Per destination: its semaphore (`limit` slots) and how many hold or wait for a slot.
    /// An entry goes when that count is zero, so no semaphore is dropped while in use.
    private let entries = Mutex<[String: (slots: DispatchSemaphore, users: Int)]>([:])

    init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a slot of `destination`, waiting at most `milliseconds`; false when none came free.
    /// A true must be followed by `release`.
    func acquire(_ destination: String, waitingMilliseconds milliseconds: Int) -> Bool {
        let slots = entries.withLock { table in
            let entry = table[destination] ?? (DispatchSemaphore(value: limit), 0)
            table[destination] = (entry.slots, entry.users + 1)
            return entry.slots
        }
        if slots.wait(timeout: .now() + .milliseconds(milliseconds)) == .success { return true }
        leave(destination)
        return false
    }

    /// Gives back a slot taken by `acquire`.
    func release(_ destination: String) {
        entries.withLock { $0[destination]?.slots }?.signal()
        leave(destination)
    }

    private func leave(_ destination: String) {
        entries.withLock { table in
            guard let entry = table[destination] else { return }
            table[destination] = entry.users > 1 ? (entry.slots, entry.users - 1) : nil
        }
    }
}
