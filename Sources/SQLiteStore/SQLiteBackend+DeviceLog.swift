import LocationFormats
import SQLCore
import Storage
import Timestamps
import Tracking

/// A device's report (status, rejections, region events), written inside an append's
/// transaction on the writer thread; the status is read as `SQLCore.DirectoryTables.status` reads it.
enum SQLiteDeviceReport {
    /// Writes `report` for the device whose stored status is `current`.
    static func write(_ report: DeviceReport, deviceKey: Int64, current: DeviceStatus, in db: Database) throws {
        if let next = current.updated(by: report) {
            try db.run("UPDATE devices SET last_seen_at = ?, battery = ?, battery_at = ? WHERE key = ?",
                       [.optional(next.lastSeenAt), .optional(next.battery?.percent), .optional(next.battery?.timestamp),
                        .integer(deviceKey)])
        }
        if !report.rejections.isEmpty {
            let insert = try db.prepare("""
                INSERT INTO device_rejections (device_key, at, source, reason, message, sample, count) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for rejection in report.rejections {
                try insert.bind([.integer(deviceKey), .time(rejection.at), .text(rejection.source.rawValue),
                                 .text(rejection.reason.rawValue), .text(rejection.message), .text(rejection.sample),
                                 .int(rejection.count)])
                _ = try insert.run()
            }
            try db.run(DeviceLogTables.trimSQL("device_rejections"),
                       [.integer(deviceKey), .integer(deviceKey), .int(DeviceReport.maxRejectionsKept)])
        }
        if !report.events.isEmpty {
            let insert = try db.prepare("""
                INSERT INTO device_events (device_key, received_at, ts, event, region, lon, lat, accuracy, detected_by)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            for event in report.events {
                let t = event.transition
                try insert.bind([.integer(deviceKey), .time(event.receivedAt), .integer(t.timestamp), .text(t.event.rawValue),
                                 .text(t.region), .optional(t.longitude), .optional(t.latitude), .optional(t.accuracy),
                                 .optional(t.trigger)])
                _ = try insert.run()
            }
            try db.run(DeviceLogTables.trimSQL("device_events"), [.integer(deviceKey), .integer(deviceKey), .int(DeviceReport.maxEventsKept)])
        }
    }
}

/// Rejections, region events and the OwnTracks secret: `SQLCore.DeviceLogTables`, written once
/// for both stores (writing a report stays with the append, above).
extension SQLiteBackend: DeviceLogStore {}
