import GeoKit
import LocationFormats
import PostgresClient
import Timestamps
import Tracking

extension PostgresStore: LocationStore {
    public func append(deviceID: DeviceID, fixes: [Fix], events rule: LocationEventRule,
                       onCommit: @escaping @Sendable (IngestOutcome) -> Void) async throws -> IngestOutcome {
        // Cells are computed on the caller's thread, to keep the writer's transaction short.
        let cells = fixes.map { CellID(LatLng(degreesLatitude: $0.latitude, longitude: $0.longitude)).int64Key }
        let shapes = placeShapes
        return try await write({ c in
            try Self.append(deviceID: deviceID, fixes: fixes, cells: cells, rule: rule, shapes: shapes, on: c)
        }, lockOrder: deviceID.rawValue, onCommit: onCommit)
    }

    /// The append inside the writer's transaction: dedupe (`DuplicateRule` against what is
    /// stored, then the unique indexes against what other nodes commit meanwhile), insert,
    /// move the latest location forward if a newer fix arrived, log the location events and
    /// the place arrivals.
    static func append(deviceID: DeviceID, fixes: [Fix], cells: [Int64], rule: LocationEventRule, shapes: PlaceShapeCache,
                       on c: Connection) throws -> IngestOutcome {
        // Whether a share link shows the device now: then other nodes' share streams hear of
        // the fixes (`ShareFixNotice`).
        guard let device = try c.firstRow("""
            SELECT key, last_ts, EXISTS (SELECT 1 FROM shares s WHERE s.device_id = devices.id AND s.expires_at > $2)
            FROM devices WHERE id = $1
            """, [.id(deviceID), .int64(Timestamp.nowMilliseconds())], {
            (key: try $0.int64(0), lastTimestamp: try $0.optionalInt64(1), isShared: try $0.bool(2))
        }) else {
            throw TrackingError.notFound("device")
        }
        let deviceKey = device.key
        var outcome = IngestOutcome()
        let survivors = try deduplicate(fixes, deviceKey: deviceKey, on: c)
        guard !survivors.isEmpty else {
            outcome.duplicates = fixes.count
            return outcome
        }
        let sequences = try c.rows("SELECT nextval('fix_seq') FROM generate_series(1, $1)", [.int(survivors.count)]) {
            try $0.int64(0)
        }.sorted()
        guard sequences.count == survivors.count else {
            throw PostgresError(sqlState: .internalError, origin: .client, message: "fix_seq gave \(sequences.count) of \(survivors.count) numbers")
        }
        let inserted = try insert(survivors.map { fixes[$0] }, cells: survivors.map { cells[$0] }, sequences: sequences,
                                  deviceKey: deviceKey, on: c)
        for (index, sequence) in zip(survivors, sequences) where inserted.contains(sequence) {
            outcome.stored.append(StoredFix(deviceID: deviceID, sequence: sequence, fix: fixes[index]))
        }
        outcome.accepted = outcome.stored.count
        outcome.duplicates = fixes.count - outcome.accepted
        // The latest location is the newest by timestamp (ties: the later arrival), moved only
        // forward: the row lock and the WHERE make concurrent writers on any node agree.
        if let newest = outcome.stored.max(by: { ($0.fix.timestamp, $0.sequence) < ($1.fix.timestamp, $1.sequence) }) {
            let cell = CellID(LatLng(degreesLatitude: newest.fix.latitude, longitude: newest.fix.longitude)).int64Key
            let moved = try c.run("""
                UPDATE devices SET last_lon = $2, last_lat = $3, last_ts = $4, last_seq = $5, last_cell = $6
                WHERE key = $1 AND (last_ts IS NULL OR (last_ts, coalesce(last_seq, 0)) < ($4, $5))
                """, [.int64(deviceKey), .double(newest.fix.longitude), .double(newest.fix.latitude), .int64(newest.fix.timestamp),
                      .int64(newest.sequence), .int64(cell)])
            if moved > 0 { outcome.newLatestSequence = newest.sequence }
        }
        if device.isShared, !outcome.stored.isEmpty {
            try c.run("SELECT pg_notify($1, $2)", [.text(shareFixChannel), .text(ShareFixNotice(outcome, deviceID: deviceID).payload)])
        }
        let sharing = try sharingPeriods(deviceID: deviceID, on: c)
        outcome.events = try locationEvents(deviceID: deviceID, deviceKey: deviceKey, outcome: outcome, rule: rule, sharing: sharing, on: c)
        if !rule.silent, outcome.newLatestSequence != nil, !sharing.isEmpty {
            // Place arrivals (not for imports): the fixes that became the latest in turn; of a
            // backfill (an append larger than maxEventsPerAppend) only its newest.
            let fresh = PlaceArrivalRun.freshFixes(outcome.stored, previousLatest: device.lastTimestamp,
                                                   maxEventsPerAppend: rule.maxEventsPerAppend)
            for (groupID, entries) in try PlaceArrivalRun.entries(
                deviceID: deviceID, device: DeviceKey(storeValue: deviceKey), fresh: fresh, sharing: sharing,
                ledger: PostgresPlaceArrivals(c: c, shapes: shapes)) {
                outcome.events += try PostgresStore.appendEvents(groupID: groupID, entries, on: c)
            }
        }
        return outcome
    }

    /// The positions in `fixes` that are not duplicates of what this transaction sees stored.
    ///
    /// A batch whose fixes all carry client ids reads nothing: `DuplicateRule` drops the batch's
    /// own repeats, and the insert's `ON CONFLICT DO NOTHING` on the unique client-id index skips
    /// what is stored, exactly as the rule would. A batch with fixes without id reads the
    /// stored ids and timestamps it names (a fix without id is a duplicate of any stored fix at
    /// its timestamp, which no index decides), in one unprepared statement planned with the
    /// batch's values and the table's size as it is now: a prepared statement's generic plan,
    /// fixed while a new database's `fixes` was still empty, filtered every stored fix of the
    /// device at every append.
    static func deduplicate(_ fixes: [Fix], deviceKey: Int64, on c: Connection) throws -> [Int] {
        let times = Array(Set(fixes.filter { $0.clientID == nil }.map(\.timestamp)))
        guard !times.isEmpty else {
            return DuplicateRule.survivors(of: fixes, storedID: { _, _ in false }, storedTimestamp: { _ in false })
        }
        let ids = Array(Set(fixes.compactMap(\.clientID)))
        var storedIDs: Set<String> = []
        var storedTimes: Set<Int64> = []
        let found = try c.query("""
            SELECT client_id, NULL::bigint FROM fixes WHERE device_key = $1 AND client_id IS NOT NULL AND client_id = ANY($2::text[])
            UNION ALL
            SELECT DISTINCT NULL, ts FROM fixes WHERE device_key = $1 AND ts = ANY($3::bigint[])
            """, [.int64(deviceKey), .textArray(ids), .int64Array(times)])
        for row in found.rows {
            if let id = try row.optionalText(0) { storedIDs.insert(id) }
            if let time = try row.optionalInt64(1) { storedTimes.insert(time) }
        }
        return DuplicateRule.survivors(of: fixes, storedID: { _, id in storedIDs.contains(id) },
                                       storedTimestamp: { storedTimes.contains($0) })
    }

    /// Inserts the fixes in one statement (arrays of columns, `unnest`); a row another
    /// transaction committed meanwhile with the same client id, or the same timestamp without
    /// id, is skipped by its unique index. Returns the sequences inserted.
    ///
    /// First a plain `INSERT` under a savepoint: duplicates are rare, and `ON CONFLICT`'s check
    /// of every unique index before each row costs more than the savepoint. When a unique index
    /// refuses a row (a batch sent again, or the same batch on another node at once), the
    /// insert is undone and made again with `ON CONFLICT DO NOTHING`.
    static func insert(_ fixes: [Fix], cells: [Int64], sequences: [Int64], deviceKey: Int64, on c: Connection) throws -> Set<Int64> {
        // NULL travels as NaN (no valid fix has one) and as "" (no client id is empty).
        func column(_ value: (Fix) -> Double?) -> PostgresValue { .doubleArray(fixes.map { value($0) ?? .nan }) }
        let values: [PostgresValue] = [.int64(deviceKey), .int64Array(fixes.map(\.timestamp)), .int64Array(sequences), .int64Array(cells),
                                       .doubleArray(fixes.map(\.longitude)), .doubleArray(fixes.map(\.latitude)),
                                       column(\.accuracy), column(\.altitude), column(\.speed), column(\.heading), column(\.battery),
                                       .textArray(fixes.map { $0.clientID ?? "" })]
        func insert(onConflict: String) throws -> [Int64] {
            try c.rows("""
                INSERT INTO fixes (device_key, ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
                SELECT $1, ts, seq, cell, lon, lat, nullif(accuracy, 'NaN'), nullif(altitude, 'NaN'), nullif(speed, 'NaN'),
                       nullif(heading, 'NaN'), nullif(battery, 'NaN'), nullif(client_id, '')
                FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
                            $9::float8[], $10::float8[], $11::float8[], $12::text[])
                  AS t(ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
                \(onConflict) RETURNING seq
                """, values) { try $0.int64(0) }
        }
        try c.execute("SAVEPOINT fod_insert")
        do {
            let rows = try insert(onConflict: "")
            try c.execute("RELEASE SAVEPOINT fod_insert")
            return Set(rows)
        } catch let error as PostgresError where error.isUniqueViolation {
            try c.execute("ROLLBACK TO SAVEPOINT fod_insert; RELEASE SAVEPOINT fod_insert")
            return Set(try insert(onConflict: "ON CONFLICT DO NOTHING"))
        }
    }

    /// Location events for every group in which the device's member shares, as `rule` says,
    /// groups in id order (every writer locks event heads in the same order).
    static func locationEvents(deviceID: DeviceID, deviceKey: Int64, outcome: IngestOutcome, rule: LocationEventRule,
                               sharing periods: [DeviceSharing], on c: Connection) throws -> [GroupEvent] {
        guard !outcome.stored.isEmpty, !rule.silent else { return [] }
        var events: [GroupEvent] = []
        for sharing in periods {
            events += try appendEvents(groupID: sharing.groupID, rule.entries(
                deviceID: deviceID, deviceKey: DeviceKey(storeValue: deviceKey), userID: sharing.userID, stored: outcome.stored,
                newLatestSequence: outcome.newLatestSequence, windows: sharing.windows), on: c)
        }
        return events
    }

    public func history(deviceID: DeviceID, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int) throws -> HistoryPage {
        try readSnapshot { c in
            guard let key = try c.firstRow("SELECT key FROM devices WHERE id = $1", [.id(deviceID)], { try $0.int64(0) }) else {
                throw TrackingError.notFound("device")
            }
            let start = cursor ?? HistoryCursor(timestamp: from ?? Int64.min, sequence: Int64.min)
            var fixes = try c.rows("""
                SELECT \(Self.storedFixColumns) FROM fixes
                WHERE device_key = $1 AND ts >= $2 AND ts <= $3 AND (ts, seq) > ($4, $5)
                ORDER BY ts, seq LIMIT $6
                """, [.int64(key), .int64(max(start.timestamp, from ?? Int64.min)), .int64(to ?? Int64.max),
                      .int64(start.timestamp), .int64(start.sequence), .int(max(0, limit) + 1)]) { try Self.storedFix($0, deviceID: deviceID) }
            guard fixes.count > limit, let last = fixes.dropLast().last else { return HistoryPage(fixes: fixes, next: nil) }
            fixes.removeLast()
            return HistoryPage(fixes: fixes, next: HistoryCursor(timestamp: last.fix.timestamp, sequence: last.sequence))
        }
    }

    /// The columns `storedFix` decodes, in its order.
    static let storedFixColumns = "ts, seq, lon, lat, accuracy, altitude, speed, heading, battery, client_id"

    /// A row of `storedFixColumns` as the fix of `deviceID`.
    static func storedFix(_ row: Row, deviceID: DeviceID) throws -> StoredFix {
        StoredFix(deviceID: deviceID, sequence: try row.int64(1), fix: Fix(
            longitude: try row.double(2), latitude: try row.double(3), timestamp: try row.int64(0),
            accuracy: try row.optionalDouble(4), altitude: try row.optionalDouble(5), speed: try row.optionalDouble(6),
            heading: try row.optionalDouble(7), battery: try row.optionalDouble(8), clientID: try row.optionalText(9)))
    }

    public func deleteHistory(deviceID: DeviceID, before: Int64) async throws -> Int {
        let batch = 10_000
        var total = 0
        while true {
            let deleted = try await write { c -> Int in
                guard let key = try c.firstRow("SELECT key FROM devices WHERE id = $1", [.id(deviceID)], { try $0.int64(0) }) else {
                    throw TrackingError.notFound("device")
                }
                return try Self.deleteBatch(deviceKey: key, before: before, limit: batch, on: c)
            }
            total += deleted
            if deleted < batch { return total }
        }
    }

    public func purge(before: Int64, batch: Int) async throws -> Int {
        let batch = max(1, batch)
        let keys = try read { c in try c.rows("SELECT key FROM devices ORDER BY key", [], { try $0.int64(0) }) }
        var total = 0
        for key in keys {
            while true {
                let deleted = try await write { c in try Self.deleteBatch(deviceKey: key, before: before, limit: batch, on: c) }
                total += deleted
                if deleted < batch { break }
            }
        }
        return total
    }

    /// Deletes up to `limit` of the device's oldest fixes before `before`, redacts their
    /// events, and recomputes its latest location if that was among them.
    static func deleteBatch(deviceKey: Int64, before: Int64, limit: Int, on c: Connection) throws -> Int {
        let deleted = try c.rows("""
            WITH victims AS (SELECT ts, seq FROM fixes WHERE device_key = $1 AND ts < $2 ORDER BY ts, seq LIMIT $3)
            DELETE FROM fixes f USING victims v WHERE f.device_key = $1 AND f.ts = v.ts AND f.seq = v.seq RETURNING f.ts
            """, [.int64(deviceKey), .int64(before), .int(limit)]) { try $0.int64(0) }
        guard let newestDeleted = deleted.max() else { return 0 }
        try c.run("""
            UPDATE devices SET (last_lon, last_lat, last_ts, last_seq, last_cell) =
              (SELECT lon, lat, ts, seq, cell FROM fixes WHERE device_key = devices.key ORDER BY ts DESC, seq DESC LIMIT 1)
            WHERE key = $1 AND last_ts < $2
            """, [.int64(deviceKey), .int64(before)])
        try redactLocationEvents(deviceKey: deviceKey, before: newestDeleted + 1, on: c)
        return deleted.count
    }

    /// Deletes every fix of the device and redacts its location events (device and account
    /// deletion, inside their transaction).
    static func deleteAllFixes(deviceKey: Int64, on c: Connection) throws {
        try c.run("DELETE FROM fixes WHERE device_key = $1", [.int64(deviceKey)])
        try redactLocationEvents(deviceKey: deviceKey, before: nil, on: c)
    }
}
