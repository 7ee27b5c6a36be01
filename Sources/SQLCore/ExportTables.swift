import Tracking

/// What an export reads (`ExportStore`'s contract), written once for both stores: its subjects
/// and a device's fixes page by page; each runs inside the caller's read on `db`.
public enum ExportTables {
    /// The columns `subject(_:windows:)` decodes, in its order (then `history_version`).
    static let subjectColumns = "d.key, d.id, d.name, u.id, u.display_name, d.last_lon, d.last_lat, d.last_ts, d.history_version"

    static func subject(_ row: any SQLRow, windows: HistoryWindows) throws -> ExportSubject {
        ExportSubject(deviceKey: DeviceKey(storeValue: try row.int64(0)), deviceID: try row.id(1), deviceName: try row.text(2),
                      userID: try row.id(3), displayName: try row.text(4),
                      last: try row.isNull(7) ? nil : LastLocation(position: try row.position(5), timestamp: try row.time(7)),
                      windows: windows)
    }

    /// The group's sharing members' devices in id order (bytewise), each with its sharing
    /// windows and the latest position the group may see (`SharedLatest`): one snapshot.
    public static func subjects(groupID: GroupID, on db: some SQLExecutor) throws -> [ExportSubject] {
        let windows = try DirectoryTables.sharingWindows(groupID: groupID, on: db)
        let rows = try db.rows("""
            SELECT \(subjectColumns) FROM memberships m JOIN devices d ON d.id = m.device_id JOIN users u ON u.id = m.user_id
            WHERE m.group_id = ? AND m.share_location = TRUE ORDER BY d.id\(db.dialect.bytewise)
            """, [.id(groupID)]) { (subject: try subject($0, windows: windows[try $0.id(3)] ?? .none), version: try $0.int64(8)) }
        return try rows.map { row in
            var shown = row.subject
            shown.last = try SharedLatestTables.sharedLatest(deviceKey: row.subject.deviceKey.storeValue, last: row.subject.last,
                                                             windows: row.subject.windows, version: row.version, on: db)
            return shown
        }
    }

    /// The device as its owner exports it (every fix: windows `.all`).
    public static func subject(deviceID: DeviceID, on db: some SQLExecutor) throws -> ExportSubject? {
        try db.firstRow("SELECT \(subjectColumns) FROM devices d JOIN users u ON u.id = d.owner_id WHERE d.id = ?",
                        [.id(deviceID)]) { try subject($0, windows: .all) }
    }

    /// The device's fixes timestamped in `from...to` (ms; nil: unbounded).
    public static func countRows(deviceKey: DeviceKey, from: Int64?, to: Int64?, on db: some SQLExecutor) throws -> Int {
        try db.firstRow("SELECT count(*) FROM \(db.dialect.fixesTable) WHERE device_key = ? AND ts BETWEEN ? AND ?",
                        [.integer(deviceKey.storeValue), .integer(from ?? Int64.min), .integer(to ?? Int64.max)]) { try $0.int(0) } ?? 0
    }

    /// Up to `limit` of the device's fixes in `from...to` after `cursor`, in (time, arrival) order,
    /// with the columns `detail` asks for; read as they stream (no copy of the page's rows).
    public static func rows(deviceKey: DeviceKey, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int,
                            detail: ExportRow.Detail, on db: some SQLExecutor) throws -> [ExportRow] {
        let start = cursor ?? HistoryCursor(timestamp: from ?? Int64.min, sequence: Int64.min)
        let everything = detail == .everything
        var rows: [ExportRow] = []
        try db.forEachRow("""
            SELECT ts, seq, lon, lat, altitude\(everything ? ", accuracy, speed, heading, battery, client_id" : "") FROM \(db.dialect.fixesTable)
            WHERE device_key = ? AND ts >= ? AND ts <= ? AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?
            """, [.integer(deviceKey.storeValue), .integer(max(start.timestamp, from ?? Int64.min)), .integer(to ?? Int64.max),
                  .integer(start.timestamp), .integer(start.sequence), .int(max(0, limit))]) { row in
            guard everything else {
                rows.append(ExportRow(timestamp: try row.int64(0), sequence: try row.int64(1), longitude: try row.double(2),
                                      latitude: try row.double(3), altitude: try row.optionalDouble(4)))
                return
            }
            rows.append(ExportRow(timestamp: try row.int64(0), sequence: try row.int64(1), longitude: try row.double(2),
                                  latitude: try row.double(3), altitude: try row.optionalDouble(4), accuracy: try row.optionalDouble(5),
                                  speed: try row.optionalDouble(6), heading: try row.optionalDouble(7), battery: try row.optionalDouble(8),
                                  clientID: try row.optionalText(9)))
        }
        return rows
    }
}

/// `ExportStore` over `ExportTables`: a store gets it by declaring its conformance.
extension SQLStatementReads {
    public func exportSubjects(groupID: GroupID) throws -> [ExportSubject] {
        try readSQL { try ExportTables.subjects(groupID: groupID, on: $0) }
    }

    public func exportSubject(deviceID: DeviceID) throws -> ExportSubject? {
        try readSQLStatement { try ExportTables.subject(deviceID: deviceID, on: $0) }
    }

    public func countRows(deviceKey: DeviceKey, from: Int64?, to: Int64?) throws -> Int {
        try readSQLStatement { try ExportTables.countRows(deviceKey: deviceKey, from: from, to: to, on: $0) }
    }

    public func exportRows(deviceKey: DeviceKey, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int,
                           detail: ExportRow.Detail) throws -> [ExportRow] {
        try readSQLStatement {
            try ExportTables.rows(deviceKey: deviceKey, from: from, to: to, after: cursor, limit: limit, detail: detail, on: $0)
        }
    }
}
