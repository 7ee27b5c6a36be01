/// Reads of what a device's phone app sent besides its fixes. Written by `LocationStore.append`
/// (a `DeviceReport`, in the same commit as the fixes).
///
/// Each read is synchronous and sees one committed snapshot; storage faults throw `StoreFailure`.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol DeviceLogStore: Sendable {
    /// The device's kept rejections, newest first (at most `DeviceReport.maxRejectionsKept`).
    func rejections(deviceID: DeviceID) throws -> [IngestRejection]
    /// The device's kept region events, newest received first (at most `DeviceReport.maxEventsKept`).
    func deviceEvents(deviceID: DeviceID) throws -> [DeviceEvent]
    /// The passphrase the owner set for OwnTracks payload encryption; nil when none. It opens
    /// and seals the device's messages and is never shown: no reply, export or log carries it.
    func ownTracksSecret(deviceID: DeviceID) throws -> String?
}
