import GeoKit
import PostgresClient
import Tracking

/// What `fod db check --database` finds: the promises the store keeps across nodes, checked on
/// the stored rows.
public struct PostgresConsistency: Sendable {
    public var schemaVersion: Int64 = 0
    public var fixes = 0
    public var devices = 0
    public var groups = 0
    /// Each a sentence naming what is wrong; empty when everything holds.
    public var problems: [String] = []

    public var isConsistent: Bool { problems.isEmpty }
}

extension PostgresStore {
    /// The newest schema version this build knows.
    public static var knownSchemaVersion: Int64 { PostgresSchema.migrations.last?.version ?? 0 }

    /// Checks, in one snapshot: the schema is this build's; every device's latest location is
    /// its newest fix by (timestamp, sequence); every group's event ids run without gaps up to
    /// its head; every fix's cell is the S2 leaf cell of its position (the 2dsphere index).
    /// Reads every fix once, in pages of `pageSize` (ms of work per 10k fixes).
    public func consistency(pageSize: Int = 10_000) throws -> PostgresConsistency {
        try readSnapshot { c in
            var report = PostgresConsistency()
            report.schemaVersion = try PostgresSchema.version(c)
            if report.schemaVersion != Self.knownSchemaVersion {
                report.problems.append("schema version \(report.schemaVersion), this build knows \(Self.knownSchemaVersion)")
            }
            report.devices = try c.firstRow("SELECT count(*) FROM devices", []) { try $0.int64(0) }.map(Int.init) ?? 0
            let stale = try c.rows("""
                SELECT d.id, d.last_ts, d.last_seq, n.ts, n.seq FROM devices d
                LEFT JOIN LATERAL (SELECT ts, seq FROM fixes f WHERE f.device_key = d.key ORDER BY ts DESC, seq DESC LIMIT 1) n ON true
                WHERE (d.last_ts, d.last_seq) IS DISTINCT FROM (n.ts, n.seq)
                LIMIT 20
                """, []) { row in
                "device \(try row.text(0)): latest location at (\(try row.optionalInt64(1).map(String.init) ?? "none"), "
                    + "\(try row.optionalInt64(2).map(String.init) ?? "none")), newest fix at (\(try row.optionalInt64(3).map(String.init) ?? "none"), "
                    + "\(try row.optionalInt64(4).map(String.init) ?? "none"))"
            }
            report.problems += stale
            report.groups = try c.firstRow("SELECT count(*) FROM event_heads", []) { try $0.int64(0) }.map(Int.init) ?? 0
            report.problems += try c.rows("""
                SELECT h.group_id, h.last_id, e.low, e.high, e.n FROM event_heads h
                LEFT JOIN LATERAL (SELECT min(id) AS low, max(id) AS high, count(*) AS n FROM events WHERE group_id = h.group_id) e ON true
                WHERE e.n > 0 AND (e.high <> h.last_id OR e.high - e.low + 1 <> e.n)
                LIMIT 20
                """, []) { row in
                "group \(try row.text(0)): event head \(try row.int64(1)), events \(try row.int64(2))…\(try row.int64(3)) "
                    + "but \(try row.int64(4)) of them (a gap or a head out of step)"
            }
            var after: (key: Int64, ts: Int64, seq: Int64) = (.min, .min, .min)
            var wrongCells = 0
            while true {
                let page = try c.rows("""
                    SELECT device_key, ts, seq, cell, lon, lat FROM fixes WHERE (device_key, ts, seq) > ($1, $2, $3)
                    ORDER BY device_key, ts, seq LIMIT $4
                    """, [.int64(after.key), .int64(after.ts), .int64(after.seq), .int(max(1, pageSize))]) { row in
                    (key: try row.int64(0), ts: try row.int64(1), seq: try row.int64(2), cell: try row.int64(3),
                     lon: try row.double(4), lat: try row.double(5))
                }
                for fix in page where CellID(LatLng(degreesLatitude: fix.lat, longitude: fix.lon)).int64Key != fix.cell {
                    wrongCells += 1
                }
                report.fixes += page.count
                guard let last = page.last, page.count == max(1, pageSize) else { break }
                after = (last.key, last.ts, last.seq)
            }
            if wrongCells > 0 { report.problems.append("\(wrongCells) fixes whose cell is not the leaf cell of their position") }
            return report
        }
    }
}
