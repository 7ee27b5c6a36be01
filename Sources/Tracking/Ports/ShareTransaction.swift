/// Primitive reads and writes of share links, inside one transaction.
///
/// Valid only inside the `ShareStore` call that gave it; its reads see its own writes. Times
/// are milliseconds since 1970; storage faults throw `StoreFailure`.
///
/// Implemented by `ShareTables` (SQLCore), for both stores.
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
