/// Receives committed events in commit order (the live hub, the alert matcher).
///
/// Called by the store's `CommitDoor` after the events are committed, in commit order (the
/// embedded store on its writer thread; PostgreSQL on its relay's thread): an implementer
/// returns quickly and never blocks. Delivery is in memory and best effort; a consumer that must see every event reads the log (`EventLog`).
///
/// Implemented by `LiveHub` and `AlertConsumer` (API); `CommitDoor` fans out to them.
public protocol GroupEventSink: Sendable {
    func publish(_ events: [GroupEvent])
}
