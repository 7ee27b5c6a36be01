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
