import Crypto
import Timestamps

/// Adding, listing, renaming and removing devices, and rotating their tokens. Only the owner
/// (a user token) manages a device; other callers get 404, hiding that it exists.
public final class DeviceService: Sendable {
    /// Device tokens start with this; user tokens with `AccountService.userTokenPrefix`.
    public static let tokenPrefix = "fodd_"
    /// Most devices one user may add.
    public static let maxDevicesPerUser = 100

    let store: any DirectoryStore

    public init(store: any DirectoryStore) {
        self.store = store
    }

    /// Adds a device; returns it with its token, shown this once.
    public func add(ownerID: UserID, name rawName: String, platformID: String?) async throws -> (Device, String) {
        let name = try Validate.name(rawName, field: "name")
        if let platformID, platformID.utf8.count > 200 {
            throw TrackingError.invalid("platformId must be at most 200 bytes")
        }
        let device = Device(id: DeviceID.generate(), ownerID: ownerID, name: name, platformID: platformID,
                            createdAt: .now)
        let token = Secrets.newToken(prefix: Self.tokenPrefix)
        let hash = Secrets.tokenHash(token)
        try await store.writeDirectory { tx in
            guard try tx.devices(ownerID: ownerID).count < Self.maxDevicesPerUser else {
                throw TrackingError.conflict("a user may have at most \(Self.maxDevicesPerUser) devices", code: .tooManyDevices)
            }
            try tx.insertDevice(device, tokenHash: hash)
        }
        return (device, token)
    }

    public func list(ownerID: UserID) throws -> [Device] {
        try store.readDirectory { try $0.devices(ownerID: ownerID) }
    }

    /// The device, if the caller may read its partition (owner, or a member it shares with).
    /// A member sees as its latest location the newest fix taken while it was shared with
    /// them (`SharedLatest`); its owner sees the newest of all.
    public func device(id: DeviceID, for credential: Credential) throws -> Device {
        let windows = try PartitionRules(facts: store).historyWindows(credential, deviceID: id)
        return try store.readDirectory { tx in
            guard var device = try tx.device(id: id) else { throw TrackingError.notFound("device") }
            if !windows.isAll {
                device.lastLocation = try SharedLatest.resolve(device.lastLocation, time: \.timestamp.millisecondsSince1970,
                                                               windows: windows) { try tx.newestFix(deviceID: id, in: $0) }
            }
            return device
        }
    }

    /// Longest OwnTracks secret taken, in UTF-8 bytes (the apps use its first 32 bytes as the key).
    public static let maxOwnTracksSecretBytes = 1_024

    /// A change of the OwnTracks payload encryption secret.
    public enum SecretChange: Sendable, Equatable {
        /// Use this passphrase (an empty one turns encryption off, as in the apps).
        case set(String)
        /// No secret: encryption off.
        case remove
    }

    public func rename(id: DeviceID, ownerID: UserID, to rawName: String) async throws -> Device {
        try await update(id: id, ownerID: ownerID, name: rawName, receiveGroupLocations: nil)
    }

    /// Changes what is given (nil: unchanged) of the owner's device: its name, whether its
    /// OwnTracks replies carry the group's locations, and its OwnTracks secret (write-only).
    public func update(id: DeviceID, ownerID: UserID, name rawName: String?, receiveGroupLocations: Bool?,
                       ownTracksSecret: SecretChange? = nil) async throws -> Device {
        let name = try rawName.map { try Validate.name($0, field: "name") }
        var secret: String??
        switch ownTracksSecret {
        case .set(let passphrase)?:
            guard passphrase.utf8.count <= Self.maxOwnTracksSecretBytes else {
                throw TrackingError.invalid("owntracksSecret must be at most \(Self.maxOwnTracksSecretBytes) bytes")
            }
            secret = .some(passphrase.isEmpty ? nil : passphrase)
        case .remove?: secret = .some(nil)
        case nil: secret = nil
        }
        let change = secret
        return try await store.writeDirectory { tx in
            _ = try Self.owned(id, by: ownerID, in: tx)
            if let name { try tx.renameDevice(id: id, name: name) }
            if let receiveGroupLocations { try tx.setReceiveGroupLocations(id: id, receiveGroupLocations) }
            if let change { try tx.setOwnTracksSecret(id: id, change) }
            guard let device = try tx.device(id: id) else { throw TrackingError.notFound("device") }
            return device
        }
    }

    /// Removes the device, its locations and the memberships using it. A device that carries
    /// the owner's own membership in a group they own cannot go (409): hand the group over or
    /// delete it first, so a group never loses its owner's membership.
    public func remove(id: DeviceID, ownerID: UserID) async throws {
        try await store.writeDirectory({ tx -> [GroupEvent] in
            _ = try Self.owned(id, by: ownerID, in: tx)
            let owned = Set(try tx.ownedGroupIDs(userID: ownerID))
            let memberships = try tx.memberships(deviceID: id)
            if let blocking = memberships.first(where: { owned.contains($0.groupID) }) {
                throw TrackingError.conflict("device is your membership device in group \(blocking.groupID), which you own; hand the group over or delete it first",
                                             code: .deviceInUse)
            }
            let events = try GroupService.departureEvents(memberships, ownedBy: nil, reason: .deviceRemoved, in: tx)
            try tx.deleteDevice(id: id)
            return events
        }, onCommit: { _ in })
    }

    /// A new token for the device; the old one stops working at once.
    public func rotateToken(id: DeviceID, ownerID: UserID) async throws -> String {
        let token = Secrets.newToken(prefix: Self.tokenPrefix)
        let hash = Secrets.tokenHash(token)
        try await store.writeDirectory { tx in
            _ = try Self.owned(id, by: ownerID, in: tx)
            try tx.replaceDeviceToken(id: id, tokenHash: hash)
        }
        return token
    }

    /// The credential of a device token, or nil when unknown or rotated away.
    public func credential(forDeviceToken token: String) throws -> Credential? {
        guard token.hasPrefix(Self.tokenPrefix), token.utf8.count < 200 else { return nil }
        let hash = Secrets.tokenHash(token)
        guard let (deviceID, ownerID) = try store.deviceCredential(tokenHash: hash) else { return nil }
        return .device(deviceID: deviceID, ownerID: ownerID)
    }

    static func owned(_ id: DeviceID, by ownerID: UserID, in tx: any DirectoryTransaction) throws -> Device {
        guard let device = try tx.device(id: id), device.ownerID == ownerID else { throw TrackingError.notFound("device") }
        return device
    }
}
