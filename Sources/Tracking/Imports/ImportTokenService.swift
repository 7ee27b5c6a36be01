import Crypto
import Timestamps

/// Import tokens (API.md, `POST /v1/devices/{id}/import-tokens`): the owner of a device gets a
/// token that imports one history file into that device within an hour, so a file can be
/// uploaded from the browser without the phone's device token.
///
/// An import token is a credential of its own: it is shown once and stored hashed; it is
/// accepted only by `POST /v1/devices/{id}/import` of its device, where it acts as that device's
/// token for one import and is used up; everywhere else it is an unknown token (401). A
/// disabled owner's import tokens are deleted and accepted nowhere.
public final class ImportTokenService: Sendable {
    /// Import tokens start with this.
    public static let tokenPrefix = "fodi_"
    /// How long a new import token works (ms): an hour.
    public static let lifetimeMilliseconds: Int64 = 3_600_000
    /// Unused tokens a device keeps; a new one beyond replaces the oldest.
    public static let keepPerDevice = 10

    let store: any ImportTokenStore

    public init(store: any ImportTokenStore) {
        self.store = store
    }

    /// Whether `token` has the form of an import token (whether it works is `credential`'s question).
    public static func isImportToken(_ token: String) -> Bool {
        token.hasPrefix(tokenPrefix) && token.utf8.count < 200
    }

    /// A new import token for device `deviceID`, which `ownerID` must own (404 otherwise, hiding it).
    public func create(deviceID: DeviceID, ownerID: UserID, now: Int64 = Timestamp.nowMilliseconds()) async throws
        -> (token: String, expiresAt: Timestamp) {
        let token = Secrets.newToken(prefix: Self.tokenPrefix)
        let expiresAt = now + Self.lifetimeMilliseconds
        guard try await store.insertImportToken(tokenHash: Secrets.tokenHash(token), deviceID: deviceID, ownerID: ownerID,
                                                createdAt: now, expiresAt: expiresAt, keepPerDevice: Self.keepPerDevice) else {
            throw TrackingError.notFound("device")
        }
        return (token, Timestamp(millisecondsSince1970: expiresAt))
    }

    /// The credential `token` gives to an import into `deviceID`: that device's, for this one
    /// import (a read; `redeem` uses the token up).
    /// - Throws: 401 for a token that is unknown, used or expired; 403 naming the partition for
    ///   another device's token.
    public func credential(token: String, deviceID: DeviceID, now: Int64 = Timestamp.nowMilliseconds()) throws -> Credential {
        guard Self.isImportToken(token), let (tokenDevice, ownerID) = try store.importTokenDevice(tokenHash: Secrets.tokenHash(token), now: now) else {
            throw TrackingError.unauthenticated
        }
        guard tokenDevice == deviceID else { throw TrackingError.cannotWrite(.device(deviceID)) }
        return .device(deviceID: deviceID, ownerID: ownerID)
    }

    /// Uses `token` up for an import into `deviceID`; 401 when it was used (or expired) meanwhile.
    public func redeem(token: String, deviceID: DeviceID, now: Int64 = Timestamp.nowMilliseconds()) async throws {
        guard try await store.redeemImportToken(tokenHash: Secrets.tokenHash(token), deviceID: deviceID, now: now) != nil else {
            throw TrackingError.unauthenticated
        }
    }
}
