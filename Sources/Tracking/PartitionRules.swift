/// The permission model of API.md, in one place. Every endpoint asks it.
///
/// | partition | read | write |
/// | `user=U` | U's user token | nobody (server actions only) |
/// | `device=D` | D's owner; members of groups D shares with | D's own device token only |
/// | `group=G` | G's members | nobody (read-only; server actions only) |
///
/// Device tokens never read a partition and write only their own device's locations (their one
/// read is the OwnTracks friends reply, `friendsReader`); user tokens never write locations; a
/// share link reads `device=D` of its own device only, and of it only the latest location and
/// the fixes since the link was made. Memberships change only through server actions (create, accept an
/// invitation, leave, remove, hand over), never by writing a partition — which is what closes
/// the original app's hole of members rewriting their membership's group id.
public struct PartitionRules: Sendable {
    let facts: any PartitionFacts

    public init(facts: any PartitionFacts) { self.facts = facts }

    public func canRead(_ credential: Credential, _ partition: Partition) throws -> Bool {
        let userID: UserID
        switch credential {
        case .anonymous, .device: return false
        case .share(_, let deviceID, _): return partition == .device(deviceID)
        case .user(let id): userID = id
        }
        switch partition {
        case .user(let id):
            return id == userID
        case .device(let deviceID):
            if try facts.deviceOwner(deviceID: deviceID) == userID { return true }
            return try facts.isSharedWith(deviceID: deviceID, viewerID: userID)
        case .group(let groupID):
            return try facts.isMember(userID: userID, groupID: groupID)
        }
    }

    public func canWrite(_ credential: Credential, _ partition: Partition) -> Bool {
        guard case .device(let tokenDevice, _) = credential, case .device(let deviceID) = partition else { return false }
        return tokenDevice == deviceID
    }

    /// The part of device `deviceID`'s history the caller may read: all of it for its owner,
    /// the sharing periods for members of groups it shares with now (API.md, "Visibility of
    /// history"). Throws 401 without a credential, 404 when the device is not readable at all.
    public func historyWindows(_ credential: Credential, deviceID: DeviceID) throws -> HistoryWindows {
        try requireRead(credential, .device(deviceID), hiddenAs: "device")
        if case .share(_, _, let since) = credential { return HistoryWindows(periods: [(start: since, end: nil)]) }
        guard case .user(let userID) = credential else { throw TrackingError.notFound("device") }
        if try facts.deviceOwner(deviceID: deviceID) == userID { return .all }
        return try facts.sharedHistoryWindows(deviceID: deviceID, viewerID: userID)
    }

    /// The device whose OwnTracks friends reply the caller may receive: only a device token, for
    /// its own device (what the reply holds is `FriendsService`'s rule). 401 without a
    /// credential, 403 for any other kind.
    public func friendsReader(_ credential: Credential) throws -> DeviceID {
        switch credential {
        case .device(let deviceID, _): return deviceID
        case .anonymous: throw TrackingError.unauthenticated
        case .user, .share: throw TrackingError.wrongCredentialKind("only a device token receives its group's locations in the OwnTracks reply: cannot read partition group=<id>")
        }
    }

    /// Throws 404 when the caller may not read (hiding whether the object exists), 401 when
    /// there is no credential at all.
    public func requireRead(_ credential: Credential, _ partition: Partition, hiddenAs what: String) throws {
        if credential == .anonymous { throw TrackingError.unauthenticated }
        guard try canRead(credential, partition) else { throw TrackingError.notFound(what) }
    }

    /// Throws 403 naming the partition when the caller may not write its data.
    public func requireWrite(_ credential: Credential, _ partition: Partition) throws {
        if credential == .anonymous { throw TrackingError.unauthenticated }
        guard canWrite(credential, partition) else { throw TrackingError.cannotWrite(partition) }
    }
}
