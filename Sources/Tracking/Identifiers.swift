import Crypto

/// An opaque, URL-safe id of one kind of object. Each kind is its own type, so a `UserID` can
/// never be passed where a `GroupID` is expected (`removeMember(groupID:memberID:by:)` does not
/// compile with its arguments swapped).
///
/// Invariant: `rawValue` is whatever the client or the store said; ids the server makes are
/// `prefix` + 22 URL-safe characters (128 random bits).
public protocol EntityID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible
where RawValue == String {
    /// The prefix of ids the server makes (`u_`, `d_`, …).
    static var prefix: String { get }
    init(rawValue: String)
}

extension EntityID {
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    /// A fresh random id.
    public static func generate() -> Self { Self(rawValue: Secrets.newID(prefix: prefix)) }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A person with an account.
public struct UserID: EntityID {
    public static let prefix = "u_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A phone or tracker.
public struct DeviceID: EntityID {
    public static let prefix = "d_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A group of people sharing their devices' locations.
public struct GroupID: EntityID {
    public static let prefix = "g_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A signed-in session (its token is stored only hashed).
public struct SessionID: EntityID {
    public static let prefix = "s_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A place (geofence) of a group.
public struct PlaceID: EntityID {
    public static let prefix = "p_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A share link of a device.
public struct ShareID: EntityID {
    public static let prefix = "sh_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The id of an event in one group's log: 1, 2, 3, … in commit order, without gaps.
public struct EventID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    /// Before every event (`since=0`).
    public static let start = EventID(0)
    public var description: String { String(rawValue) }
    public static func < (a: EventID, b: EventID) -> Bool { a.rawValue < b.rawValue }
}

/// A user's notification channel (a webhook, ntfy topic or Gotify server).
public struct ChannelID: EntityID {
    public static let prefix = "ch_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A member's alert: tell a channel when a device enters or leaves a place.
public struct AlertID: EntityID {
    public static let prefix = "al_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// One notification to one channel (the `webhook-id`, the same on every retry).
public struct DeliveryID: EntityID {
    public static let prefix = "msg_"
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}
