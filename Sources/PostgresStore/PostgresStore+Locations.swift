import GeoKit
import LocationFormats
import PostgresClient
import SQLCore
import Timestamps
import Tracking

extension PostgresStore: LocationStore {
    /// The append, answered by the device's writer thread right after the commit.
    public func append(deviceID: DeviceID, fixes: [Fix], report: DeviceReport?, events rule: LocationEventRule,
                       onCommit: @escaping @Sendable (IngestOutcome) -> Void,
                       completion: @escaping @Sendable (Result<IngestOutcome, Error>) -> Void) {
        // Cells are computed on the caller's thread, to keep the writer's transaction short.
        let cells = fixes.map { CellID(LatLng(degreesLatitude: $0.latitude, longitude: $0.longitude)).int64Key }
        let shapes = placeShapes
        let index = placeIndex
        let door = commits
        // The copies of groups' places an append loads go into the cache only once it has
        // committed (a batch that runs again, or fails, keeps nothing).
        write({ c in
            try Self.append(deviceID: deviceID, fixes: fixes, cells: cells, report: report, rule: rule, shapes: shapes, index: index,
                            on: c)
        }, lockOrder: deviceID.rawValue, completion: { result in
            switch result {
            case .success(let appended):
                index.keep(appended.places)
                door.publishCommittedHere(appended.outcome.events)
                onCommit(appended.outcome)
                completion(.success(appended.outcome))
            case .failure(let error):
                completion(.failure(error))
            }
        })
    }

    /// The append inside the writer's transaction: dedupe (`DuplicateRule` against what is
    /// stored, then the unique indexes against what other nodes commit meanwhile), insert,
    /// move the latest location forward if a newer fix arrived, log the location events and
    /// the place arrivals; and write the device's report (`PostgresDeviceReport`).
    ///
    /// Three round trips for a batch of a device that shares into groups without places (two
    /// when it shares into none), whatever the batch's size: the reads it needs go in one
    /// pipeline, the insert with the latest-location update in a second, the share notice and
    /// each group's events in a third. Statements run in the order sent, so event heads are
    /// still locked in group id order.
    static func append(deviceID: DeviceID, fixes: [Fix], cells: [Int64], report: DeviceReport?, rule: LocationEventRule,
                       shapes: PlaceShapeCache, index: PlaceIndexCache, on c: Connection) throws -> (outcome: IngestOutcome, places: LoadedPlaces) {
        let reads = try AppendReads(deviceID: deviceID, fixes: fixes, on: c)
        if let report { try PostgresDeviceReport.write(report, deviceKey: reads.deviceKey, current: reads.status, on: c) }
        var outcome = IngestOutcome()
        let survivors = reads.survivors(of: fixes)
        guard !survivors.isEmpty else {
            outcome.duplicates = fixes.count
            return (outcome, [])
        }
        let planned = zip(survivors, reads.sequences).map { StoredFix(deviceID: deviceID, sequence: $1, fix: fixes[$0]) }
        let written = try store(planned, cells: survivors.map { cells[$0] }, deviceKey: reads.deviceKey, on: c)
        outcome.stored = written.stored
        outcome.accepted = written.stored.count
        outcome.duplicates = fixes.count - outcome.accepted
        outcome.newLatestSequence = written.newLatestSequence
        outcome.events = try logLocationEvents(deviceID: deviceID, deviceKey: reads.deviceKey, outcome: outcome, rule: rule,
                                               sharing: reads.sharing, notifyShares: reads.isShared, on: c)
        if !rule.silent, outcome.newLatestSequence != nil, !reads.sharing.isEmpty {
            // Place arrivals (not for imports): the fixes that became the latest in turn; of a
            // backfill (an append larger than maxEventsPerAppend) only its newest.
            let fresh = PlaceArrivalRun.freshFixes(outcome.stored, previousLatest: reads.lastTimestamp,
                                                   maxEventsPerAppend: rule.maxEventsPerAppend)
            let ledger = PostgresPlaceArrivals(c: c, shapes: shapes, index: index, placeVersions: reads.placeVersions)
            for (groupID, entries) in try PlaceArrivalRun.entries(deviceID: deviceID, device: DeviceKey(storeValue: reads.deviceKey),
                                                                  fresh: fresh, sharing: reads.sharing, ledger: ledger) {
                outcome.events += try PostgresStore.appendEvents(groupID: groupID, entries, on: c)
            }
            return (outcome, ledger.loadedPlaces)
        }
        return (outcome, [])
    }

    /// What an append reads before it writes, in one pipeline (one round trip): the device row,
    /// sequence numbers for every fix of the batch (a duplicate's number is left unused), the
    /// groups its member shares into (with the version of each one's places), and — only when some fix
    /// has no client id — the stored ids and timestamps the batch names.
    struct AppendReads {
        let deviceKey: Int64
        /// The device's latest fix time before this append.
        let lastTimestamp: Int64?
        /// The device's status before this append.
        let status: DeviceStatus
        /// Whether a share link shows the device now: then other nodes' share streams hear of
        /// the fixes (`ShareFixNotice`).
        let isShared: Bool
        /// Ascending; one per fix of the batch.
        let sequences: [Int64]
        let sharing: [DeviceSharing]
        /// The version of each sharing group's places (`place_versions`; 0: never had one).
        let placeVersions: [GroupID: Int64]
        private let storedIDs: Set<String>
        private let storedTimes: Set<Int64>
        /// A batch whose fixes all carry client ids reads nothing stored: `DuplicateRule` drops
        /// the batch's own repeats, and the plain insert's unique client-id index refuses what
        /// is stored (then `store` inserts again, skipping those rows).
        private let readsStored: Bool

        init(deviceID: DeviceID, fixes: [Fix], on c: Connection) throws {
            let times = Array(Set(fixes.filter { $0.clientID == nil }.map(\.timestamp)))
            readsStored = !times.isEmpty
            let results = try c.pipeline { p in
                try p.append("""
                    SELECT key, last_ts, EXISTS (SELECT 1 FROM shares s WHERE s.device_id = devices.id AND s.expires_at > $2),
                           \(DirectoryTables.statusColumns)
                    FROM devices WHERE id = $1
                    """, [.id(deviceID), .int64(Timestamp.nowMilliseconds())])
                try p.append("SELECT nextval('fix_seq') FROM generate_series(1, $1)", [.int(fixes.count)])
                try p.append(PostgresStore.sharingPeriodsSQL, [.id(deviceID)])
                if !times.isEmpty {
                    // Unprepared: planned with the batch's values and the table's size as it is
                    // now (a generic plan, fixed while a new database's `fixes` was still empty,
                    // filtered every stored fix of the device at every append).
                    try p.append("""
                        SELECT client_id, NULL::bigint FROM fixes
                        WHERE device_key = (SELECT key FROM devices WHERE id = $1) AND client_id IS NOT NULL
                          AND client_id = ANY($2::text[])
                        UNION ALL
                        SELECT DISTINCT NULL, ts FROM fixes
                        WHERE device_key = (SELECT key FROM devices WHERE id = $1) AND ts = ANY($3::bigint[])
                        """, [.id(deviceID), .textArray(Array(Set(fixes.compactMap(\.clientID)))), .int64Array(times)], prepared: false)
                }
            }
            guard let device = results[0].first else { throw TrackingError.notFound("device") }
            deviceKey = try device.int64(0)
            lastTimestamp = try device.optionalInt64(1)
            isShared = try device.bool(2)
            status = try DirectoryTables.status(PostgresSQLRow(row: device), at: 3)
            sequences = try results[1].rows.map { try $0.int64(0) }.sorted()
            guard sequences.count == fixes.count else {
                throw PostgresError(sqlState: .internalError, origin: .client,
                                    message: "fix_seq gave \(sequences.count) of \(fixes.count) numbers")
            }
            (sharing, placeVersions) = try PostgresStore.sharing(from: results[2])
            var ids: Set<String> = [], stamps: Set<Int64> = []
            if results.count > 3 {
                for row in results[3].rows {
                    if let id = try row.optionalText(0) { ids.insert(id) }
                    if let time = try row.optionalInt64(1) { stamps.insert(time) }
                }
            }
            storedIDs = ids
            storedTimes = stamps
        }

        /// The positions in `fixes` that are not duplicates of what this transaction saw stored.
        func survivors(of fixes: [Fix]) -> [Int] {
            guard readsStored else {
                return DuplicateRule.survivors(of: fixes, storedID: { _, _ in false }, storedTimestamp: { _ in false })
            }
            return DuplicateRule.survivors(of: fixes, storedID: { _, id in storedIDs.contains(id) },
                                           storedTimestamp: { storedTimes.contains($0) })
        }
    }

    /// Inserts `planned` (arrays of columns, `unnest`) and moves the device's latest location
    /// forward to the newest of what was inserted. Returns what was stored (a row another
    /// transaction committed meanwhile with the same client id, or the same timestamp without
    /// id, is skipped by its unique index) and the sequence of the new latest fix, if it moved.
    ///
    /// First a plain `INSERT` under a savepoint, sent in one pipeline with the update:
    /// duplicates are rare, and `ON CONFLICT`'s check of every unique index before each row
    /// costs more than the savepoint. When a unique index refuses a row (a batch sent again,
    /// or the same batch on another node at once), the server skips the rest of the pipeline;
    /// the insert is undone and made again with `ON CONFLICT DO NOTHING`, then the update.
    /// The latest location is the newest by timestamp (ties: the later arrival), moved only
    /// forward: the row lock and the WHERE make concurrent writers on any node agree.
    static func store(_ planned: [StoredFix], cells: [Int64], deviceKey: Int64,
                      on c: Connection) throws -> (stored: [StoredFix], newLatestSequence: Int64?) {
        // NULL travels as NaN (no valid fix has one) and as "" (no client id is empty).
        func column(_ value: (Fix) -> Double?) -> PostgresValue { .doubleArray(planned.map { value($0.fix) ?? .nan }) }
        let values: [PostgresValue] = [
            .int64(deviceKey), .int64Array(planned.map(\.fix.timestamp)), .int64Array(planned.map(\.sequence)), .int64Array(cells),
            .doubleArray(planned.map(\.fix.longitude)), .doubleArray(planned.map(\.fix.latitude)),
            column(\.accuracy), column(\.altitude), column(\.speed), column(\.heading), column(\.battery),
            .textArray(planned.map { $0.fix.clientID ?? "" })]
        func insertSQL(onConflict: String) -> String {
            """
            INSERT INTO fixes (device_key, ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
            SELECT $1, ts, seq, cell, lon, lat, nullif(accuracy, 'NaN'), nullif(altitude, 'NaN'), nullif(speed, 'NaN'),
                   nullif(heading, 'NaN'), nullif(battery, 'NaN'), nullif(client_id, '')
            FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
                        $9::float8[], $10::float8[], $11::float8[], $12::text[])
              AS t(ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
            \(onConflict) RETURNING seq
            """
        }
        let moveLatestSQL = """
            UPDATE devices SET last_lon = $2, last_lat = $3, last_ts = $4, last_seq = $5, last_cell = $6
            WHERE key = $1 AND (last_ts IS NULL OR (last_ts, coalesce(last_seq, 0)) < ($4, $5))
            """
        func moveLatestValues(_ newest: StoredFix) -> [PostgresValue] {
            let cell = CellID(LatLng(degreesLatitude: newest.fix.latitude, longitude: newest.fix.longitude)).int64Key
            return [.int64(deviceKey), .double(newest.fix.longitude), .double(newest.fix.latitude), .int64(newest.fix.timestamp),
                    .int64(newest.sequence), .int64(cell)]
        }
        func newest(_ fixes: [StoredFix]) -> StoredFix? {
            fixes.max(by: { ($0.fix.timestamp, $0.sequence) < ($1.fix.timestamp, $1.sequence) })
        }
        guard let newestPlanned = newest(planned) else { return ([], nil) }
        do {
            let results = try c.pipeline { p in
                try p.append("SAVEPOINT fod_insert")
                try p.append(insertSQL(onConflict: ""), values)
                try p.append("RELEASE SAVEPOINT fod_insert")
                try p.append(moveLatestSQL, moveLatestValues(newestPlanned))
                try p.append(Self.historyChangedSQL, [.int64(deviceKey)])
            }
            return (planned, results[3].affectedRows > 0 ? newestPlanned.sequence : nil)
        } catch let error as PostgresError where error.isUniqueViolation {
            try c.execute("ROLLBACK TO SAVEPOINT fod_insert; RELEASE SAVEPOINT fod_insert")
            let inserted = Set(try c.rows(insertSQL(onConflict: "ON CONFLICT DO NOTHING"), values) { try $0.int64(0) })
            let kept = planned.filter { inserted.contains($0.sequence) }
            guard let newestKept = newest(kept) else { return ([], nil) }
            let moved = try c.run(moveLatestSQL, moveLatestValues(newestKept)) > 0
            try c.run(Self.historyChangedSQL, [.int64(deviceKey)])
            return (kept, moved ? newestKept.sequence : nil)
        }
    }

    /// Logs the location events for every group in which the device's member shares, as
    /// `rule` says, and (`notifyShares`) tells other nodes' share streams of the stored fixes:
    /// one pipeline, groups in id order (every writer locks event heads in the same order).
    static func logLocationEvents(deviceID: DeviceID, deviceKey: Int64, outcome: IngestOutcome, rule: LocationEventRule,
                                  sharing periods: [DeviceSharing], notifyShares: Bool, on c: Connection) throws -> [GroupEvent] {
        guard !outcome.stored.isEmpty else { return [] }
        var logs: [EventAppend] = []
        if !rule.silent {
            for sharing in periods {
                let entries = rule.entries(deviceID: deviceID, deviceKey: DeviceKey(storeValue: deviceKey), userID: sharing.userID,
                                           stored: outcome.stored, newLatestSequence: outcome.newLatestSequence, windows: sharing.windows)
                if !entries.isEmpty { logs.append(EventAppend(groupID: sharing.groupID, entries: entries)) }
            }
        }
        guard notifyShares || !logs.isEmpty else { return [] }
        let results = try c.pipeline { p in
            if notifyShares {
                try p.append("SELECT pg_notify($1, $2)", [.text(shareFixChannel), .text(ShareFixNotice(outcome, deviceID: deviceID).payload)])
            }
            for log in logs { try p.append(EventAppend.sql, log.parameters) }
        }
        var events: [GroupEvent] = []
        for (log, result) in zip(logs, results.dropFirst(notifyShares ? 1 : 0)) { events += try log.events(from: result) }
        return events
    }

    /// The columns `storedFix` decodes, in its order (`FixTables`').
    static let storedFixColumns = FixTables.storedFixColumns

    /// A row of `storedFixColumns` as the fix of `deviceID`.
    static func storedFix(_ row: Row, deviceID: DeviceID) throws -> StoredFix {
        try FixTables.storedFix(PostgresSQLRow(row: row), deviceID: deviceID)
    }

    /// `FixTables.historyChangedSQL`, numbered for PostgreSQL once.
    static let historyChangedSQL = SQLDialect.postgres.statement(FixTables.historyChangedSQL)

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
        try c.run(historyChangedSQL, [.int64(deviceKey)])
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

/// `deleteHistory` and `purge`: `SQLCore`'s, over `deleteBatch`.
extension PostgresStore: FixBatchDeletion {
    public func deleteFixBatch(of device: FixOwner, before: Int64, limit: Int) async throws -> Int {
        try await write { c in
            try Self.deleteBatch(deviceKey: try device.key(on: PostgresExecutor(c: c)), before: before, limit: limit, on: c)
        }
    }
}
