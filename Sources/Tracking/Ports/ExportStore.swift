/// Reads what exports need, in pages (bounded memory for any history size).
///
/// Each call is synchronous and reads one committed snapshot; pages continue by cursor, so a
/// long export sees fixes committed meanwhile only after its cursor. Times are milliseconds
/// since 1970. Storage faults throw `StoreFailure`.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol ExportStore: Sendable {
    /// Devices of members sharing with the group now, in device-id order, each with its
    /// sharing periods in the group as `windows`.
    func exportSubjects(groupID: GroupID) throws -> [ExportSubject]
    /// The device with its owner's names; `windows` is `.all` (the caller narrows it).
    func exportSubject(deviceID: DeviceID) throws -> ExportSubject?
    func countRows(deviceKey: DeviceKey, from: Int64?, to: Int64?) throws -> Int
    /// Up to `limit` fixes of a device in [from, to] after `cursor`, oldest first (by time, then
    /// arrival), with the fields `detail` asks for.
    func exportRows(deviceKey: DeviceKey, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int,
                    detail: ExportRow.Detail) throws -> [ExportRow]
}
