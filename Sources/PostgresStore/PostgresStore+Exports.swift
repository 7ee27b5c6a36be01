import PostgresClient
import Tracking

extension PostgresStore: ExportStore {
    static let subjectColumns = "d.key, d.id, d.name, u.id, u.display_name, d.last_lon, d.last_lat, d.last_ts, d.history_version"

    static func subject(_ row: Row, windows: HistoryWindows) throws -> ExportSubject {
        ExportSubject(deviceKey: DeviceKey(storeValue: try row.int64(0)), deviceID: try row.id(1), deviceName: try row.text(2), userID: try row.id(3),
                      displayName: try row.text(4), last: try row.lastLocation(at: 5), windows: windows)
    }

    public func exportSubjects(groupID: GroupID) throws -> [ExportSubject] {
        try readSnapshot { c in
            let windows = try Self.sharingWindows(groupID: groupID, on: c)
            return try c.rows("""
                SELECT \(Self.subjectColumns) FROM memberships m JOIN devices d ON d.id = m.device_id JOIN users u ON u.id = m.user_id
                WHERE m.group_id = $1 AND m.share_location ORDER BY d.id COLLATE "C"
                """, [.id(groupID)]) { (subject: try Self.subject($0, windows: windows[try $0.id(3)] ?? .none), version: try $0.int64(8)) }
                .map { row in
                    var shown = row.subject
                    shown.last = try Self.sharedLatest(deviceKey: row.subject.deviceKey.storeValue, last: row.subject.last,
                                                       windows: row.subject.windows, version: row.version, on: c)
                    return shown
                }
        }
    }

    public func exportSubject(deviceID: DeviceID) throws -> ExportSubject? {
        try read { c in
            try c.firstRow("SELECT \(Self.subjectColumns) FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.id = $1",
                           [.id(deviceID)]) { try Self.subject($0, windows: .all) }
        }
    }

    public func countRows(deviceKey: DeviceKey, from: Int64?, to: Int64?) throws -> Int {
        try read { c in
            Int(try c.queryPrepared("SELECT count(*) FROM fixes WHERE device_key = $1 AND ts BETWEEN $2 AND $3",
                                    [.int64(deviceKey.storeValue), .int64(from ?? Int64.min), .int64(to ?? Int64.max)]).row(0).int64(0))
        }
    }

    public func exportRows(deviceKey: DeviceKey, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int,
                           detail: ExportRow.Detail) throws -> [ExportRow] {
        try read { c in
            let start = cursor ?? HistoryCursor(timestamp: from ?? Int64.min, sequence: Int64.min)
            let everything = detail == .everything
            return try c.rows("""
                SELECT ts, seq, lon, lat, altitude\(everything ? ", accuracy, speed, heading, battery, client_id" : "") FROM fixes
                WHERE device_key = $1 AND ts >= $2 AND ts <= $3 AND (ts, seq) > ($4, $5) ORDER BY ts, seq LIMIT $6
                """, [.int64(deviceKey.storeValue), .int64(max(start.timestamp, from ?? Int64.min)), .int64(to ?? Int64.max),
                      .int64(start.timestamp), .int64(start.sequence), .int(max(0, limit))]) { row in
                guard everything else {
                    return ExportRow(timestamp: try row.int64(0), sequence: try row.int64(1), longitude: try row.double(2),
                                     latitude: try row.double(3), altitude: try row.optionalDouble(4))
                }
                return ExportRow(timestamp: try row.int64(0), sequence: try row.int64(1), longitude: try row.double(2),
                                 latitude: try row.double(3), altitude: try row.optionalDouble(4), accuracy: try row.optionalDouble(5),
                                 speed: try row.optionalDouble(6), heading: try row.optionalDouble(7), battery: try row.optionalDouble(8),
                                 clientID: try row.optionalText(9))
            }
        }
    }
}
