import GeoKit
import Timestamps

/// A share link of one device (API.md, "Share links"). Its token is shown once, at creation,
/// and stored only hashed.
///
/// Invariant: `createdAt <= since < expiresAt`. The link works while `now < expiresAt`; a
/// revoked link is deleted, so it is as unknown as a token that never existed.
public struct ShareLink: Sendable, Equatable {
    public let id: ShareID
    public let deviceID: DeviceID
    /// The owner's label for the link ("for grandma"), if any.
    public let name: String?
    public let createdAt: Timestamp
    /// The track the link shows starts here: its creation, or its renewal after it had expired.
    public var since: Timestamp
    public var expiresAt: Timestamp
    /// Reads of the link: its page and its JSON document (not reconnects of the live stream).
    public var views: Int64

    public init(id: ShareID, deviceID: DeviceID, name: String?, createdAt: Timestamp, since: Timestamp, expiresAt: Timestamp, views: Int64 = 0) {
        self.id = id
        self.deviceID = deviceID
        self.name = name
        self.createdAt = createdAt
        self.since = since
        self.expiresAt = expiresAt
        self.views = views
    }

    /// Whether the link works at `now`.
    public func isActive(at now: Timestamp) -> Bool { now < expiresAt }

    /// The credential its token stands for.
    public var credential: Credential { .share(shareID: id, deviceID: deviceID, since: since.millisecondsSince1970) }
}

/// One fix as a share link shows it (degrees, meters).
public struct SharedFix: Sendable, Equatable {
    /// Degrees, exactly as the fix had them.
    public let position: GeoPosition
    public let timestamp: Timestamp
    public let accuracy: Double?
    /// Global arrival order of the fix (the live stream skips what a snapshot already holds).
    public let sequence: Int64

    public init(position: GeoPosition, timestamp: Timestamp, accuracy: Double?, sequence: Int64) {
        self.position = position
        self.timestamp = timestamp
        self.accuracy = accuracy
        self.sequence = sequence
    }

    public init(longitude: Double, latitude: Double, timestamp: Timestamp, accuracy: Double?, sequence: Int64) {
        self.init(position: GeoPosition(longitude: longitude, latitude: latitude), timestamp: timestamp, accuracy: accuracy,
                  sequence: sequence)
    }

    /// Degrees east.
    public var longitude: Double { position.longitude }
    /// Degrees north.
    public var latitude: Double { position.latitude }
}

/// What `GET /v1/shared/{token}` shows: the device's name, its latest location, and its fixes
/// timestamped since the link's `since`, oldest first (the newest `trackLimit` of them).
public struct SharedView: Sendable, Equatable {
    public let shareID: ShareID
    public let deviceName: String
    public let expiresAt: Timestamp
    public let location: SharedFix?
    public let track: [SharedFix]

    public init(shareID: ShareID, deviceName: String, expiresAt: Timestamp, location: SharedFix?, track: [SharedFix]) {
        self.shareID = shareID
        self.deviceName = deviceName
        self.expiresAt = expiresAt
        self.location = location
        self.track = track
    }

    /// The arrival sequences of the fixes the view holds. A live stream skips a fix it holds:
    /// a set, not the highest, because with several nodes sequences are not in commit order.
    public var sequences: Set<Int64> {
        var all = Set(track.map(\.sequence))
        if let location { all.insert(location.sequence) }
        return all
    }
}

/// Primitive reads and writes of share links, inside one transaction.
public protocol ShareTransaction {
    /// The owner and name of device `deviceID`, nil when it does not exist.
    func shareableDevice(id: DeviceID) throws -> (ownerID: UserID, name: String)?
    /// The device's links, newest first.
    func shares(deviceID: DeviceID) throws -> [ShareLink]
    func share(tokenHash: String) throws -> ShareLink?
    func insertShare(_ share: ShareLink, tokenHash: String) throws
    /// Deletes the link if it belongs to `deviceID`; returns whether it did.
    func deleteShare(id: ShareID, deviceID: DeviceID) throws -> Bool
    /// Deletes the device's links that expired before `before` (ms); returns how many.
    func deleteExpiredShares(deviceID: DeviceID, before: Int64) throws -> Int
    func updateShare(_ share: ShareLink) throws
    func addShareView(id: ShareID) throws
    /// The device's newest fix by timestamp (ties: the later arrival), with its accuracy.
    func latestFix(deviceID: DeviceID) throws -> SharedFix?
    /// The newest `limit` fixes of the device timestamped `since` or later, oldest first.
    func track(deviceID: DeviceID, since: Int64, limit: Int) throws -> [SharedFix]
}

/// Runs share-link transactions: reads on one snapshot, writes in the next durable commit.
public protocol ShareStore: Sendable {
    func readShares<T>(_ body: (any ShareTransaction) throws -> T) throws -> T
    @discardableResult
    func writeShares<T: Sendable>(_ body: @escaping @Sendable (any ShareTransaction) throws -> T) async throws -> T
}

/// Told when a link stops working early or gets a new expiry (the live streams of share links).
public protocol ShareLinkSink: Sendable {
    /// The link was revoked (or its device removed): its open streams end now.
    func shareRevoked(_ id: ShareID)
    /// The link's device was removed: every stream of it ends now.
    func deviceRemoved(_ id: DeviceID)
    /// The link was renewed: its streams now end at `expiresAt` (ms).
    func shareRenewed(_ id: ShareID, expiresAt: Int64)
}

/// Receives every committed ingest, in commit order (the share links' live streams).
public protocol DeviceFixSink: Sendable {
    func fixesStored(_ outcome: IngestOutcome)
}

/// The share links' live streams of one node as a relay of every node's commits feeds them
/// (several nodes on one database): told of fixes and link changes, it can also say which
/// devices are watched here and start streams afresh when something may have been missed.
public protocol RelayedShareStreams: DeviceFixSink, ShareLinkSink {
    /// Whether a stream on this node shows `deviceID` (other devices' fixes need not be read).
    func isWatching(_ deviceID: DeviceID) -> Bool
    /// Ends the streams of `deviceID` (of every device when nil) without an `end` event, so
    /// their clients reconnect to a fresh snapshot: for when fixes may have been missed.
    func restart(deviceID: DeviceID?)
}
