import Foundation

/// Work the writer thread does between group commits, with no transaction open (so nothing it
/// does can interleave with a job). `WALBound` keeps the write-ahead log bounded this way.
public protocol WriterMaintenance: AnyObject, Sendable {
    /// Runs after every group commit, before the writer takes the next batch.
    func afterCommit(_ database: Database)
    /// When `idle` is due if no job arrives before then (nil: nothing to do while idle).
    func idleDeadline() -> Date?
    /// Runs once the queue has stayed empty until `idleDeadline()`.
    func idle(_ database: Database)
}
