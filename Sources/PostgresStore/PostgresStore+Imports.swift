import PostgresClient
import SQLCore
import Tracking

extension PostgresStore: HistoryImportStore {
    /// Nothing to wait for: every batch is in its indexes when its commit returns (no merge
    /// backlog held in memory, unlike the SQLite store).
    public func awaitIngestCapacity() async {}

    public func logImportEvents(_ tally: ImportEventTally) async throws -> [GroupEvent] {
        try await write({ c in
            try DeviceSharingTables.importEvents(tally, on: PostgresExecutor(c: c)) { try Self.appendEvents(groupID: $0, $1, on: c) }
        }, lockOrder: tally.deviceID.rawValue)
    }

    /// The rows `sharing(from:)` reads, for device `$1`: a row per sharing period of each
    /// membership whose member shares, with the version of the group's places (0: it never had one).
    static let sharingPeriodsSQL = """
        SELECT m.group_id, m.user_id, p.start_ts, p.end_ts,
               coalesce((SELECT version FROM place_versions pv WHERE pv.group_id = m.group_id), 0)
        FROM memberships m JOIN sharing_periods p ON p.group_id = m.group_id AND p.user_id = m.user_id
        WHERE m.device_id = $1 AND m.share_location
        """

    /// The memberships of `sharingPeriodsSQL`'s rows in group order, and the version of each
    /// group's places.
    static func sharing(from result: QueryResult) throws -> (sharing: [DeviceSharing], placeVersions: [GroupID: Int64]) {
        var sharing = DeviceSharingRows()
        var versions: [GroupID: Int64] = [:]
        for row in result.rows {
            try sharing.add(PostgresSQLRow(row: row))
            versions[try row.id(0)] = try row.int64(4)
        }
        return (sharing.sharing, versions)
    }
}
