/// The share links' live streams of one node as a relay of every node's commits feeds them
/// (several nodes on one database): told of fixes and link changes, it can also say which
/// devices are watched here and start streams afresh when something may have been missed.
///
/// Both methods may be called from any thread (a relay's or a request's) and return quickly.
///
/// Implemented by `ShareFeed` (API); `CommitDoor` fans out to it.
public protocol RelayedShareStreams: DeviceFixSink, ShareLinkSink {
    /// Whether a stream on this node shows `deviceID` (other devices' fixes need not be read).
    func isWatching(_ deviceID: DeviceID) -> Bool
    /// Ends the streams of `deviceID` (of every device when nil) without an `end` event, so
    /// their clients reconnect to a fresh snapshot: for when fixes may have been missed.
    func restart(deviceID: DeviceID?)
}
