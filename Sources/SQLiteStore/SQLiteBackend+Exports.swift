import Tracking
import Storage

extension SQLiteBackend: ExportStore {
    static let subjectColumns = """
        d.key, d.id, d.name, u.id, u.display_name, d.last_lon, d.last_lat, d.last_ts, d.history_version
        """

    static func subject(_ row: Statement, windows: HistoryWindows) -> ExportSubject {
        ExportSubject(deviceKey: DeviceKey(storeValue: row.int64(0)), deviceID: row.id(1), deviceName: row.string(2), userID: row.id(3),
                      displayName: row.string(4),
                      last: row.isNull(7) ? nil : LastLocation(position: row.position(5), timestamp: row.time(7)),
                      windows: windows)
    }

    public func exportSubjects(groupID: GroupID) throws -> [ExportSubject] {
        try read { db in
            let windows = try Self.sharingWindows(groupID: groupID, in: db)
            return try db.rows("""
                SELECT \(Self.subjectColumns) FROM memberships m JOIN devices d ON d.id = m.device_id JOIN users u ON u.id = m.user_id
                WHERE m.group_id = ? AND m.share_location = 1 ORDER BY d.id
                """, [.id(groupID)]) { row in
                var subject = Self.subject(row, windows: windows[row.id(3)] ?? .none)
                subject.last = try Self.sharedLatest(deviceKey: row.int64(0), last: subject.last, windows: subject.windows,
                                                     version: row.int64(8), in: db)
                return subject
            }
        }
    }

    public func exportSubject(deviceID: DeviceID) throws -> ExportSubject? {
        try read { db in
            try db.firstRow("SELECT \(Self.subjectColumns) FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.id = ?",
                            [.id(deviceID)]) { Self.subject($0, windows: .all) }
        }
    }

    public func countRows(deviceKey: DeviceKey, from: Int64?, to: Int64?) throws -> Int {
        try read { db in
            try db.firstRow("SELECT count(*) FROM locations WHERE device_key = ? AND ts BETWEEN ? AND ?",
                            [.integer(deviceKey.storeValue), .integer(from ?? Int64.min), .integer(to ?? Int64.max)]) { $0.int(0) } ?? 0
        }
    }

    public func exportRows(deviceKey: DeviceKey, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int,
                           detail: ExportRow.Detail) throws -> [ExportRow] {
        try read { db in
            let start = cursor ?? HistoryCursor(timestamp: from ?? Int64.min, sequence: Int64.min)
            let everything = detail == .everything
            return try db.rows("""
                SELECT ts, seq, lon, lat, altitude\(everything ? ", accuracy, speed, heading, battery, client_id" : "") FROM locations
                WHERE device_key = ? AND ts >= ? AND ts <= ? AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?
                """, [.integer(deviceKey.storeValue), .integer(max(start.timestamp, from ?? Int64.min)), .integer(to ?? Int64.max),
                      .integer(start.timestamp), .integer(start.sequence), .int(limit)]) { row in
                guard everything else {
                    return ExportRow(timestamp: row.int64(0), sequence: row.int64(1), longitude: row.double(2), latitude: row.double(3),
                                     altitude: row.optionalDouble(4))
                }
                return ExportRow(timestamp: row.int64(0), sequence: row.int64(1), longitude: row.double(2), latitude: row.double(3),
                                 altitude: row.optionalDouble(4), accuracy: row.optionalDouble(5), speed: row.optionalDouble(6),
                                 heading: row.optionalDouble(7), battery: row.optionalDouble(8), clientID: row.optionalString(9))
            }
        }
    }
}
