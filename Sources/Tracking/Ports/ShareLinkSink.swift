/// Told when a link stops working early or gets a new expiry (the live streams of share links).
///
/// Called by the store's `CommitDoor` after the change is committed, in commit order (the
/// embedded store on its writer thread, PostgreSQL on its relay's): an implementer returns
/// quickly and never blocks. Best effort, in memory.
///
/// Implemented by `ShareFeed` (API), as part of `RelayedShareStreams`.
public protocol ShareLinkSink: Sendable {
    /// The link was revoked (or its device removed): its open streams end now.
    func shareRevoked(_ id: ShareID)
    /// The link's device was removed: every stream of it ends now.
    func deviceRemoved(_ id: DeviceID)
    /// The link was renewed: its streams now end at `expiresAt` (ms).
    func shareRenewed(_ id: ShareID, expiresAt: Int64)
}
