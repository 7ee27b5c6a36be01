import GeoKit
import LocationFormats
import Storage
import Synchronization
import Timestamps

extension SQLiteBackend: LocationStore {
    public func append(deviceID: String, fixes: [Fix], onCommit: @escaping @Sendable (IngestOutcome) -> Void) async throws -> IngestOutcome {
        let sequences = self.sequences
        return try await write({ db in
            guard let device = try db.firstRow("SELECT key, last_ts FROM devices WHERE id = ?", [.text(deviceID)], {
                (key: $0.int64(0), lastTimestamp: $0.optionalInt64(1))
            }) else { throw TrackingError.notFound("device") }
            var outcome = IngestOutcome()
            let survivors = try Self.deduplicate(fixes, deviceKey: device.key, in: db, outcome: &outcome)
            guard !survivors.isEmpty else { return outcome }
            var next = try sequences.reserve(survivors.count, in: db)
            var rows: [(cell: Int64, sequence: Int64, fix: Fix)] = []
            rows.reserveCapacity(survivors.count)
            for fix in survivors {
                let cell = CellID(LatLng(degreesLatitude: fix.latitude, longitude: fix.longitude)).int64Key
                rows.append((cell, next, fix))
                outcome.stored.append(StoredFix(deviceID: deviceID, sequence: next, fix: fix))
                next += 1
            }
            // Sorted by key: each B-tree page is touched once per commit, not once per row.
            rows.sort { ($0.cell, $0.sequence) < ($1.cell, $1.sequence) }
            let insert = try db.prepare("""
                INSERT INTO fixes (cell, device_key, ts, seq, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for row in rows {
                let f = row.fix
                try insert.bind([.integer(row.cell), .integer(device.key), .integer(f.timestamp), .integer(row.sequence),
                                 .real(f.longitude), .real(f.latitude), .optional(f.accuracy), .optional(f.altitude),
                                 .optional(f.speed), .optional(f.heading), .optional(f.battery), .optional(f.clientID)])
                try insert.run()
            }
            outcome.accepted = rows.count
            // The latest location is the newest by timestamp (ties: the later arrival).
            let newest = outcome.stored.max { ($0.fix.timestamp, $0.sequence) < ($1.fix.timestamp, $1.sequence) }
            if let newest, device.lastTimestamp.map({ newest.fix.timestamp >= $0 }) ?? true {
                let cell = CellID(LatLng(degreesLatitude: newest.fix.latitude, longitude: newest.fix.longitude)).int64Key
                try db.run("UPDATE devices SET last_lon = ?, last_lat = ?, last_ts = ?, last_cell = ? WHERE key = ?",
                           [.real(newest.fix.longitude), .real(newest.fix.latitude), .integer(newest.fix.timestamp),
                            .integer(cell), .integer(device.key)])
                outcome.newLatestSequence = newest.sequence
            }
            outcome.events = try Self.locationEvents(deviceID: deviceID, outcome: outcome, in: db)
            return outcome
        }, onCommit: onCommit)
    }

    /// Location events for every group in which the device's member shares, one per stored fix
    /// in arrival order.
    static func locationEvents(deviceID: String, outcome: IngestOutcome, in db: Database) throws -> [GroupEvent] {
        let shares = try db.rows("SELECT group_id, user_id FROM memberships WHERE device_id = ? AND share_location = 1",
                                 [.text(deviceID)]) { ($0.string(0), $0.string(1)) }
        var events: [GroupEvent] = []
        for (groupID, userID) in shares {
            events += try appendEvents(groupID: groupID, outcome.stored.map { stored in
                (.location, userID, EventPayload.location(
                    deviceID: deviceID, userID: userID, longitude: stored.fix.longitude, latitude: stored.fix.latitude,
                    timestamp: Timestamp.rfc3339(millisecondsSince1970: stored.fix.timestamp),
                    latest: stored.sequence == outcome.newLatestSequence))
            }, in: db)
        }
        return events
    }

    /// Drops duplicates, in submission order: a fix with a client id already stored (or earlier
    /// in this batch), or a fix without id whose timestamp equals a stored fix's (or an earlier
    /// kept one's in this batch).
    static func deduplicate(_ fixes: [Fix], deviceKey: Int64, in db: Database, outcome: inout IngestOutcome) throws -> [Fix] {
        let byID = try db.prepare("SELECT 1 FROM fixes WHERE device_key = ? AND client_id = ? LIMIT 1")
        let byTime = try db.prepare("SELECT 1 FROM fixes WHERE device_key = ? AND ts = ? LIMIT 1")
        var seenIDs = Set<String>()
        var keptTimestamps = Set<Int64>()
        var survivors: [Fix] = []
        survivors.reserveCapacity(fixes.count)
        for fix in fixes {
            let duplicate: Bool
            if let id = fix.clientID {
                if seenIDs.contains(id) {
                    duplicate = true
                } else {
                    try byID.bind([.integer(deviceKey), .text(id)])
                    duplicate = try byID.step()
                    byID.reset()
                }
            } else if keptTimestamps.contains(fix.timestamp) {
                duplicate = true
            } else {
                try byTime.bind([.integer(deviceKey), .integer(fix.timestamp)])
                duplicate = try byTime.step()
                byTime.reset()
            }
            if duplicate {
                outcome.duplicates += 1
            } else {
                if let id = fix.clientID { seenIDs.insert(id) }
                keptTimestamps.insert(fix.timestamp)
                survivors.append(fix)
            }
        }
        return survivors
    }

    public func history(deviceID: String, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int) throws -> HistoryPage {
        try read { db in
            guard let key = try db.firstRow("SELECT key FROM devices WHERE id = ?", [.text(deviceID)], { $0.int64(0) }) else {
                throw TrackingError.notFound("device")
            }
            let start = cursor ?? HistoryCursor(timestamp: from ?? Int64.min, sequence: Int64.min)
            let lowerTimestamp = max(start.timestamp, from ?? Int64.min)
            var fixes: [StoredFix] = []
            try db.forEachRow("""
                SELECT ts, seq, lon, lat, accuracy, altitude, speed, heading, battery, client_id FROM fixes
                WHERE device_key = ? AND ts >= ? AND ts <= ? AND (ts, seq) > (?, ?)
                ORDER BY ts, seq LIMIT ?
                """, [.integer(key), .integer(lowerTimestamp), .integer(to ?? Int64.max),
                      .integer(start.timestamp), .integer(start.sequence), .int(limit + 1)]) { row in
                fixes.append(StoredFix(deviceID: deviceID, sequence: row.int64(1), fix: Fix(
                    longitude: row.double(2), latitude: row.double(3), timestamp: row.int64(0),
                    accuracy: row.optionalDouble(4), altitude: row.optionalDouble(5), speed: row.optionalDouble(6),
                    heading: row.optionalDouble(7), battery: row.optionalDouble(8), clientID: row.optionalString(9))))
            }
            guard fixes.count > limit else { return HistoryPage(fixes: fixes, next: nil) }
            fixes.removeLast()
            let last = fixes[fixes.count - 1]
            return HistoryPage(fixes: fixes, next: HistoryCursor(timestamp: last.fix.timestamp, sequence: last.sequence))
        }
    }

    public func deleteHistory(deviceID: String, before: Int64) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await write { db -> Int in
                guard let key = try db.firstRow("SELECT key FROM devices WHERE id = ?", [.text(deviceID)], { $0.int64(0) }) else {
                    throw TrackingError.notFound("device")
                }
                return try Self.deleteBatch(deviceKey: key, before: before, limit: 10_000, in: db)
            }
            total += deleted
            if deleted < 10_000 { return total }
        }
    }

    public func purge(before: Int64, batch: Int) async throws -> Int {
        let keys = try read { db in try db.rows("SELECT key FROM devices", [], { $0.int64(0) }) }
        var total = 0
        for key in keys {
            while true {
                let deleted = try await write { db in try Self.deleteBatch(deviceKey: key, before: before, limit: batch, in: db) }
                total += deleted
                if deleted < batch { break }
            }
        }
        return total
    }

    /// Deletes up to `limit` of the device's oldest fixes before `before`, and recomputes its
    /// latest location if that was among them.
    static func deleteBatch(deviceKey: Int64, before: Int64, limit: Int, in db: Database) throws -> Int {
        let deleted = try db.run("""
            DELETE FROM fixes WHERE (cell, device_key, ts, seq) IN
              (SELECT cell, device_key, ts, seq FROM fixes WHERE device_key = ? AND ts < ? ORDER BY ts LIMIT ?)
            """, [.integer(deviceKey), .integer(before), .int(limit)])
        if deleted > 0 {
            try db.run("""
                UPDATE devices SET (last_lon, last_lat, last_ts, last_cell) =
                  (SELECT lon, lat, ts, cell FROM fixes WHERE device_key = devices.key ORDER BY ts DESC, seq DESC LIMIT 1)
                WHERE key = ? AND last_ts < ?
                """, [.integer(deviceKey), .integer(before)])
        }
        return deleted
    }
}

/// Hands out fix sequence numbers. Used only on the writer thread; the mutex makes that safe
/// to state. The first use reads the highest stored sequence.
final class SequenceAllocator: Sendable {
    private let next = Mutex<Int64?>(nil)

    func reserve(_ count: Int, in db: Database) throws -> Int64 {
        try next.withLock { value in
            let start = try value ?? ((db.firstRow("SELECT max(seq) FROM fixes", [], { $0.optionalInt64(0) }) ?? nil) ?? 0) + 1
            value = start + Int64(count)
            return start
        }
    }
}
