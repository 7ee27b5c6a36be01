/// The owner's reads of a device's rejections and events, and the secret the OwnTracks
/// endpoint opens a device's messages with. Another caller gets 404 (the device is hidden).
public struct DeviceLogService: Sendable {
    let store: any DeviceLogStore
    let directory: any DirectoryStore

    public init(store: any DeviceLogStore, directory: any DirectoryStore) {
        self.store = store
        self.directory = directory
    }

    /// What the device's apps sent that could not be stored, newest first (owner only).
    public func rejections(deviceID: DeviceID, ownerID: UserID) throws -> [IngestRejection] {
        try requireOwner(deviceID, ownerID)
        return try store.rejections(deviceID: deviceID)
    }

    /// The region events the device's phone reported, newest first (owner only).
    public func events(deviceID: DeviceID, ownerID: UserID) throws -> [DeviceEvent] {
        try requireOwner(deviceID, ownerID)
        return try store.deviceEvents(deviceID: deviceID)
    }

    /// The OwnTracks secret of the device whose token `credential` is; nil for any other credential.
    public func ownTracksSecret(for credential: Credential) throws -> String? {
        guard case .device(let deviceID, _) = credential else { return nil }
        return try store.ownTracksSecret(deviceID: deviceID)
    }

    private func requireOwner(_ deviceID: DeviceID, _ ownerID: UserID) throws {
        guard try directory.deviceOwner(deviceID: deviceID) == ownerID else { throw TrackingError.notFound("device") }
    }
}
