import Foundation

/// Puts what a node's writers do right after their commits (`onCommit`, completions) in commit
/// order, although each writer commits on its own connection and thread.
///
/// A writer takes a ticket just before it sends `COMMIT`, and once the commit returned it waits
/// for every earlier ticket to be done before it reports its jobs. A transaction that depends
/// on another's commit — it waited for a row that one had locked, such as a group's event head,
/// so its event ids come after that one's — can only reach its own `COMMIT` after that one's
/// `COMMIT` was sent, so it holds the later ticket and reports after it. Commits themselves
/// still run side by side; only the reporting waits, for commits already under way.
/// Invariant: tickets are done in any order but their turns come in ticket order; every
/// ticket taken is done exactly once (reported, or failed), so no turn waits forever.
final class CommitSequencer: @unchecked Sendable {
    // @unchecked: every stored var is guarded by `condition`.
    private let condition = NSCondition()
    private var nextTicket: UInt64 = 0
    /// The lowest ticket not yet done.
    private var nextToFinish: UInt64 = 0
    /// Tickets done before all earlier ones were.
    private var doneEarly: Set<UInt64> = []

    /// A ticket for a commit about to be sent.
    func take() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        return ticket
    }

    /// Returns once every ticket before `ticket` is done.
    func waitForTurn(_ ticket: UInt64) {
        condition.lock()
        while nextToFinish < ticket { condition.wait() }
        condition.unlock()
    }

    /// Marks `ticket` done (after its jobs were reported, or at once when its commit failed).
    func done(_ ticket: UInt64) {
        condition.lock()
        doneEarly.insert(ticket)
        while doneEarly.remove(nextToFinish) != nil { nextToFinish += 1 }
        condition.broadcast()
        condition.unlock()
    }
}
