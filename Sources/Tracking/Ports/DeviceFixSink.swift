/// Receives every committed ingest, in commit order (the share links' live streams).
///
/// Called by the store's `CommitDoor` after the fixes are committed, in commit order (the
/// embedded store on its writer thread, PostgreSQL on its relay's): an implementer returns
/// quickly and never blocks. Best effort, in memory.
///
/// Implemented by `ShareFeed` (API), as part of `RelayedShareStreams`.
public protocol DeviceFixSink: Sendable {
    func fixesStored(_ outcome: IngestOutcome)
}
