import ErrorCodes
import LocationFormats
import Tracking

/// The reads of what phone apps said besides fixes (`DeviceLogStore`'s contract), written once
/// for both stores. Writing a report stays with each store's append (SQLite's prepared inserts
/// in the writer's commit, PostgreSQL's one pipeline with `unnest`).
public enum DeviceLogTables {
    /// Deletes the rows of `table` (`device_rejections` or `device_events`) of the device whose
    /// key is bound first and again second but its newest, as many as the third parameter says:
    /// a report's append keeps each log bounded (`DeviceReport.maxRejectionsKept`, `maxEventsKept`).
    public static func trimSQL(_ table: String) -> String {
        """
        DELETE FROM \(table) WHERE device_key = ? AND id <=
          (SELECT id FROM \(table) WHERE device_key = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
        """
    }

    /// The device's kept rejections, newest first.
    public static func rejections(deviceID: DeviceID, on db: some SQLExecutor) throws -> [IngestRejection] {
        try db.rows("""
            SELECT r.at, r.source, r.reason, r.message, r.sample, r.count FROM device_rejections r
            JOIN devices d ON d.key = r.device_key WHERE d.id = ? ORDER BY r.id DESC LIMIT ?
            """, [.id(deviceID), .int(DeviceReport.maxRejectionsKept)]) { row in
            IngestRejection(at: try row.time(0), source: IngestSource(rawValue: try row.text(1)) ?? .owntracks,
                            reason: ErrorCode(rawValue: try row.text(2)), message: try row.text(3), sample: try row.text(4),
                            count: Int(clamping: try row.int64(5)))
        }
    }

    /// The device's kept region events, newest first.
    public static func deviceEvents(deviceID: DeviceID, on db: some SQLExecutor) throws -> [DeviceEvent] {
        try db.rows("""
            SELECT e.received_at, e.ts, e.event, e.region, e.lon, e.lat, e.accuracy, e.detected_by FROM device_events e
            JOIN devices d ON d.key = e.device_key WHERE d.id = ? ORDER BY e.id DESC LIMIT ?
            """, [.id(deviceID), .int(DeviceReport.maxEventsKept)]) { row in
            DeviceEvent(receivedAt: try row.time(0), transition: RegionTransition(
                event: RegionTransition.Event(rawValue: try row.text(2)) ?? .enter, region: try row.text(3),
                timestamp: try row.int64(1), longitude: try row.optionalDouble(4), latitude: try row.optionalDouble(5),
                accuracy: try row.optionalDouble(6), trigger: try row.optionalText(7)))
        }
    }

    public static func ownTracksSecret(deviceID: DeviceID, on db: some SQLExecutor) throws -> String? {
        try db.firstRow("SELECT owntracks_secret FROM devices WHERE id = ?", [.id(deviceID)]) { try $0.optionalText(0) } ?? nil
    }
}

/// `DeviceLogStore` over `DeviceLogTables`: a store gets it by declaring its conformance.
extension SQLStatementReads {
    public func rejections(deviceID: DeviceID) throws -> [IngestRejection] {
        try readSQLStatement { try DeviceLogTables.rejections(deviceID: deviceID, on: $0) }
    }

    public func deviceEvents(deviceID: DeviceID) throws -> [DeviceEvent] {
        try readSQLStatement { try DeviceLogTables.deviceEvents(deviceID: deviceID, on: $0) }
    }

    public func ownTracksSecret(deviceID: DeviceID) throws -> String? {
        try readSQLStatement { try DeviceLogTables.ownTracksSecret(deviceID: deviceID, on: $0) }
    }
}
