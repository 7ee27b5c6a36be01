import LocationFormats
import PostgresClient
import SQLCore
import Timestamps
import Tracking

/// A device's report (status, rejections, region events), written inside an append's
/// transaction in one pipeline (one round trip, and none when there is nothing to write); the
/// status is read as `SQLCore.DirectoryTables.status` reads it.
enum PostgresDeviceReport {
    /// Moves `last_seen_at` only forward and replaces the battery only by a later reading, so
    /// writers on several nodes agree whatever their order.
    static let statusSQL = """
        UPDATE devices SET last_seen_at = GREATEST(coalesce(last_seen_at, $2), $2),
          battery = CASE WHEN $4::bigint IS NOT NULL AND (battery_at IS NULL OR battery_at <= $4) THEN $3::float8 ELSE battery END,
          battery_at = CASE WHEN $4::bigint IS NOT NULL AND (battery_at IS NULL OR battery_at <= $4) THEN $4 ELSE battery_at END
        WHERE key = $1
        """

    /// `DeviceLogTables.trimSQL` of the two logs, numbered for PostgreSQL once.
    static let trimRejectionsSQL = SQLDialect.postgres.statement(DeviceLogTables.trimSQL("device_rejections"))
    static let trimEventsSQL = SQLDialect.postgres.statement(DeviceLogTables.trimSQL("device_events"))

    /// Writes `report` for the device whose status this transaction read as `current`.
    static func write(_ report: DeviceReport, deviceKey: Int64, current: DeviceStatus, on c: Connection) throws {
        let next = current.updated(by: report)
        guard next != nil || !report.rejections.isEmpty || !report.events.isEmpty else { return }
        _ = try c.pipeline { p in
            if let next {
                try p.append(statusSQL, [.int64(deviceKey), next.lastSeenAt.map(PostgresValue.int64) ?? .null,
                                         .optional(next.battery?.percent), next.battery.map { .int64($0.timestamp) } ?? .null])
            }
            if !report.rejections.isEmpty {
                let r = report.rejections
                try p.append("""
                    INSERT INTO device_rejections (device_key, at, source, reason, message, sample, count)
                    SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
                    """, [.int64(deviceKey), .int64Array(r.map(\.at.millisecondsSince1970)), .textArray(r.map(\.source.rawValue)),
                          .textArray(r.map(\.reason.rawValue)), .textArray(r.map(\.message)), .textArray(r.map(\.sample)),
                          .int64Array(r.map { Int64($0.count) })])
                try p.append(trimRejectionsSQL, [.int64(deviceKey), .int64(deviceKey), .int(DeviceReport.maxRejectionsKept)])
            }
            if !report.events.isEmpty {
                // NULL travels as NaN and as "" (no valid position is NaN; no trigger is empty).
                let events = report.events, transitions = report.events.map(\.transition)
                try p.append("""
                    INSERT INTO device_events (device_key, received_at, ts, event, region, lon, lat, accuracy, detected_by)
                    SELECT $1, received_at, ts, event, region, nullif(lon, 'NaN'), nullif(lat, 'NaN'), nullif(accuracy, 'NaN'),
                           nullif(detected_by, '')
                    FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::float8[], $7::float8[], $8::float8[], $9::text[])
                      AS t(received_at, ts, event, region, lon, lat, accuracy, detected_by)
                    ON CONFLICT DO NOTHING
                    """, [.int64(deviceKey), .int64Array(events.map(\.receivedAt.millisecondsSince1970)),
                          .int64Array(transitions.map(\.timestamp)), .textArray(transitions.map(\.event.rawValue)),
                          .textArray(transitions.map(\.region)), .doubleArray(transitions.map { $0.longitude ?? .nan }),
                          .doubleArray(transitions.map { $0.latitude ?? .nan }), .doubleArray(transitions.map { $0.accuracy ?? .nan }),
                          .textArray(transitions.map { $0.trigger ?? "" })])
                try p.append(trimEventsSQL, [.int64(deviceKey), .int64(deviceKey), .int(DeviceReport.maxEventsKept)])
            }
        }
    }
}

/// Rejections, region events and the OwnTracks secret: `SQLCore.DeviceLogTables`, written once
/// for both stores (writing a report stays with the append, above).
extension PostgresStore: DeviceLogStore {}
