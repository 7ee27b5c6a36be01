/// Import tokens (API.md, `POST /v1/devices/{id}/import-tokens`): stored only as hashes, each
/// for one device, used up by one import before it expires.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol ImportTokenStore: Sendable {
    /// Stores a new import token for device `deviceID` if `ownerID` owns it (and is not
    /// disabled), keeping the device's `keepPerDevice` newest unexpired tokens. Returns false when
    /// the device is not the owner's.
    func insertImportToken(tokenHash: String, deviceID: DeviceID, ownerID: UserID, createdAt: Int64, expiresAt: Int64,
                           keepPerDevice: Int) async throws -> Bool
    /// (device, owner) of an unexpired import token whose owner is not disabled; nil otherwise.
    func importTokenDevice(tokenHash: String, now: Int64) throws -> (DeviceID, UserID)?
    /// Uses the token up for device `deviceID`: deletes it and returns the device's owner, or nil
    /// when it is not (or no longer) an unexpired token of that device of an enabled owner.
    func redeemImportToken(tokenHash: String, deviceID: DeviceID, now: Int64) async throws -> UserID?
}
