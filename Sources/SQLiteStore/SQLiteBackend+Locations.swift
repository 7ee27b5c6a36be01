import GeoKit
import LocationFormats
import SQLCore
import Storage
import Synchronization
import Timestamps
import Tracking

extension SQLiteBackend: LocationStore {
    /// The append, answered by the writer thread itself right after the commit.
    public func append(deviceID: DeviceID, fixes: [Fix], report: DeviceReport?, events rule: LocationEventRule,
                       onCommit: @escaping @Sendable (IngestOutcome) -> Void,
                       completion: @escaping @Sendable (Result<IngestOutcome, Error>) -> Void) {
        let sequences = self.sequences
        let unmerged = self.unmerged
        let merger = self.merger
        let placeShapes = self.placeShapes
        let placeIndex = self.placeIndex
        let filter = self.clientIDFilter
        let door = self.commits
        // Cells are computed here, on the caller's thread, to keep the single writer short.
        let cells = fixes.map { CellID(LatLng(degreesLatitude: $0.latitude, longitude: $0.longitude)).int64Key }
        let idHashes = fixes.map { $0.clientID.map(UnmergedFixes.ClientKey.idHash) ?? 0 }
        let lookups = fixes.map(ClientIDLookup.init)
        // The copies of groups' places an append loads go into the cache only once it has
        // committed (`PlaceIndexCache.keep(_:)`).
        write({ db -> (outcome: IngestOutcome, places: LoadedPlaces) in
            guard let device = try db.firstRow("SELECT key, last_ts, \(DirectoryTables.statusColumns) FROM devices WHERE id = ?",
                                               [.id(deviceID)], {
                (key: $0.int64(0), lastTimestamp: $0.optionalInt64(1), status: try DirectoryTables.status(SQLiteStatementRow(statement: $0), at: 2))
            }) else { throw TrackingError.notFound("device") }
            if let report { try SQLiteDeviceReport.write(report, deviceKey: device.key, current: device.status, in: db) }
            var outcome = IngestOutcome()
            let survivors = try Self.deduplicate(fixes, idHashes: idHashes, lookups: lookups, deviceKey: device.key,
                                                 lastTimestamp: device.lastTimestamp, unmerged: unmerged, filter: filter,
                                                 in: db, outcome: &outcome)
            guard !survivors.isEmpty else { return (outcome, []) }
            let first = try sequences.reserve(survivors.count, in: db)
            // Survivors by position, as index entries; `fixes` is read in place (no copies).
            var entries: [IndexEntry] = []
            entries.reserveCapacity(survivors.count)
            outcome.stored.reserveCapacity(survivors.count)
            for (offset, index) in survivors.enumerated() {
                let fix = fixes[index]
                entries.append(IndexEntry(cell: cells[index], deviceKey: DeviceKey(storeValue: device.key), timestamp: fix.timestamp,
                                          sequence: first + Int64(offset), longitude: fix.longitude, latitude: fix.latitude))
                outcome.stored.append(StoredFix(deviceID: deviceID, sequence: first + Int64(offset), fix: fix))
            }
            // One queue row for the whole append (a pure append at the end of a rowid table) and
            // history rows in key order (a device's new fixes land at the end of its range):
            // nothing here touches a random-key B-tree. Derived ids are not queued for
            // `client_ids`: their history row is where they are looked up.
            let record = IndexQueueRecord(firstSequence: first, deviceKey: device.key, items: zip(entries, survivors).map {
                ($0, lookups[$1] == .derived ? nil : fixes[$1].clientID)
            })
            let enqueue = try db.prepare("INSERT INTO index_queue (seq, device_key, fixes) VALUES (?, ?, ?)")
            try enqueue.bind(first, at: 1)
            try enqueue.bind(device.key, at: 2)
            try enqueue.bind(record.encoded(), at: 3)
            try enqueue.run()
            let insert = try db.prepare("""
                INSERT INTO locations (device_key, ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            // Positions into `entries` / `survivors`, in (timestamp, sequence) order.
            let order = entries.indices.sorted { (entries[$0].timestamp, entries[$0].sequence) < (entries[$1].timestamp, entries[$1].sequence) }
            for position in order {
                let entry = entries[position]
                let fix = fixes[survivors[position]]
                try insert.bind(device.key, at: 1)
                try insert.bind(entry.timestamp, at: 2)
                try insert.bind(entry.sequence, at: 3)
                try insert.bind(entry.cell, at: 4)
                try insert.bind(entry.longitude, at: 5)
                try insert.bind(entry.latitude, at: 6)
                try insert.bind(fix.accuracy, at: 7)
                try insert.bind(fix.altitude, at: 8)
                try insert.bind(fix.speed, at: 9)
                try insert.bind(fix.heading, at: 10)
                try insert.bind(fix.battery, at: 11)
                try insert.bind(fix.clientID, at: 12)
                try insert.run()
            }
            outcome.accepted = entries.count
            // The latest location is the newest by timestamp (ties: the later arrival).
            let newest = outcome.stored.max { ($0.fix.timestamp, $0.sequence) < ($1.fix.timestamp, $1.sequence) }
            if let newest, device.lastTimestamp.map({ newest.fix.timestamp >= $0 }) ?? true {
                let cell = CellID(LatLng(degreesLatitude: newest.fix.latitude, longitude: newest.fix.longitude)).int64Key
                try db.run("""
                    UPDATE devices SET last_lon = ?, last_lat = ?, last_ts = ?, last_cell = ?, history_version = history_version + 1
                    WHERE key = ?
                    """, [.real(newest.fix.longitude), .real(newest.fix.latitude), .integer(newest.fix.timestamp),
                          .integer(cell), .integer(device.key)])
                outcome.newLatestSequence = newest.sequence
            } else {
                // A backfill: the newest fix stays, the history changed (`SharedLatestCache`).
                try db.run(FixTables.historyChangedSQL, [.integer(device.key)])
            }
            let sharing = try DeviceSharingTables.sharing(deviceID: deviceID, on: SQLiteExecutor(db: db))
            outcome.events = try Self.locationEvents(deviceID: deviceID, deviceKey: device.key, outcome: outcome, rule: rule,
                                                     sharing: sharing, in: db)
            var loaded: LoadedPlaces = []
            if !rule.silent, outcome.newLatestSequence != nil, !sharing.isEmpty {
                // Place arrivals (not for imports): the fixes that became the latest in turn; of a
                // backfill (an append larger than maxEventsPerAppend) only its newest.
                let fresh = PlaceArrivalRun.freshFixes(outcome.stored, previousLatest: device.lastTimestamp,
                                                       maxEventsPerAppend: rule.maxEventsPerAppend)
                let ledger = PlaceArrivalStore(db: db, shapes: placeShapes, index: placeIndex)
                for (groupID, entries) in try PlaceArrivalRun.entries(deviceID: deviceID, device: DeviceKey(storeValue: device.key),
                                                                      fresh: fresh, sharing: sharing, ledger: ledger) {
                    outcome.events += try Self.appendEvents(groupID: groupID, entries, in: db)
                }
                loaded = ledger.loadedPlaces
            }
            unmerged.add(entries)
            return (outcome, loaded)
        }, completion: { result in
            switch result {
            case .success(let appended):
                placeIndex.keep(appended.places)
                merger.noteAppended()
                door.publish(appended.outcome.events)
                door.fixesStored(appended.outcome)
                onCommit(appended.outcome)
                completion(.success(appended.outcome))
            case .failure(let error):
                completion(.failure(error))
            }
        })
    }

    /// Location events for every group in which the device's member shares, as `rule` says.
    static func locationEvents(deviceID: DeviceID, deviceKey: Int64, outcome: IngestOutcome, rule: LocationEventRule,
                               sharing periods: [DeviceSharing], in db: Database) throws -> [GroupEvent] {
        var events: [GroupEvent] = []
        for sharing in periods {
            events += try appendEvents(groupID: sharing.groupID, rule.entries(
                deviceID: deviceID, deviceKey: DeviceKey(storeValue: deviceKey), userID: sharing.userID, stored: outcome.stored,
                newLatestSequence: outcome.newLatestSequence, windows: sharing.windows), in: db)
        }
        return events
    }

    /// The indexes of the fixes to store (`DuplicateRule`). A client id a client chose is looked
    /// up in the mirror of unmerged ids (each kept id is staged there at once, so concurrent
    /// appends see it), then in `client_ids` unless `filter` rules it out. An import's derived id
    /// (`ClientIDLookup.derived`) is looked up in history at its own time, where alone it is
    /// kept, then (for a client that sent the same string as its own id) in the mirror and, past
    /// the filter, `client_ids`. A timestamp newer than the device's latest cannot be stored yet,
    /// so it needs no lookup in history. `idHashes[i]` is the client id's `idHash`.
    static func deduplicate(_ fixes: [Fix], idHashes: [UInt64], lookups: [ClientIDLookup], deviceKey: Int64, lastTimestamp: Int64?,
                            unmerged: UnmergedFixes, filter: ClientIDFilter, in db: Database,
                            outcome: inout IngestOutcome) throws -> [Int] {
        let byID = try db.prepare("SELECT 1 FROM client_ids WHERE device_key = ? AND client_id = ?")
        let byTime = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? LIMIT 1")
        let byTimeAndID = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? AND client_id = ? LIMIT 1")
        func inClientIDs(_ id: String) throws -> Bool {
            try byID.bind(deviceKey, at: 1)
            try byID.bind(id, at: 2)
            defer { byID.reset() }
            return try byID.step()
        }
        func inHistory(_ id: String, at timestamp: Int64) throws -> Bool {
            guard let lastTimestamp, timestamp <= lastTimestamp else { return false }
            try byTimeAndID.bind(deviceKey, at: 1)
            try byTimeAndID.bind(timestamp, at: 2)
            try byTimeAndID.bind(id, at: 3)
            defer { byTimeAndID.reset() }
            return try byTimeAndID.step()
        }
        let survivors = try DuplicateRule.survivors(of: fixes, storedID: { index, id in
            let key = UnmergedFixes.ClientKey(deviceKey: deviceKey, clientID: id, idHash: idHashes[index])
            switch lookups[index] {
            case .derived:
                if try inHistory(id, at: fixes[index].timestamp) || unmerged.containsClientID(key) { return true }
                return try filter.mayContain(key.fingerprint) && inClientIDs(id)
            case .chosen(let importTimestamp):
                if let importTimestamp, try inHistory(id, at: importTimestamp) { return true }
                guard unmerged.stageClientIDIfAbsent(key) else { return true }
                guard filter.mayContainThenNote(key.fingerprint) else { return false }
                if try inClientIDs(id) {
                    unmerged.unstage(key)
                    return true
                }
                return false
            case .none:
                return false
            }
        }, storedTimestamp: { timestamp in
            guard let lastTimestamp, timestamp <= lastTimestamp else { return false }
            try byTime.bind(deviceKey, at: 1)
            try byTime.bind(timestamp, at: 2)
            defer { byTime.reset() }
            return try byTime.step()
        })
        outcome.duplicates += fixes.count - survivors.count
        return survivors
    }

    /// Deletes up to `limit` of the device's oldest fixes before `before` — from history, the
    /// merged indexes and the in-memory mirror (a queued fix that no longer is in history is
    /// skipped by the merge) — and recomputes its latest location if that was among them.
    static func deleteBatch(deviceKey: Int64, before: Int64, limit: Int, unmerged: UnmergedFixes, in db: Database) throws -> Int {
        let victims = try db.rows("""
            SELECT ts, seq, cell, client_id FROM locations WHERE device_key = ? AND ts < ? ORDER BY ts, seq LIMIT ?
            """, [.integer(deviceKey), .integer(before), .int(limit)]) {
            (ts: $0.int64(0), seq: $0.int64(1), cell: $0.int64(2), clientID: $0.optionalString(3))
        }
        guard !victims.isEmpty else { return 0 }
        let fromIndex = try db.prepare("DELETE FROM cell_index WHERE cell = ? AND device_key = ? AND ts = ? AND seq = ?")
        let fromClientIDs = try db.prepare("DELETE FROM client_ids WHERE device_key = ? AND client_id = ?")
        for victim in victims {
            try fromIndex.bind([.integer(victim.cell), .integer(deviceKey), .integer(victim.ts), .integer(victim.seq)])
            _ = try fromIndex.run()
            if let id = victim.clientID {
                try fromClientIDs.bind([.integer(deviceKey), .text(id)])
                _ = try fromClientIDs.run()
            }
        }
        let last = victims[victims.count - 1]
        let deleted = try db.run("DELETE FROM locations WHERE device_key = ? AND (ts, seq) <= (?, ?)",
                                 [.integer(deviceKey), .integer(last.ts), .integer(last.seq)])
        try db.run("""
            UPDATE devices SET (last_lon, last_lat, last_ts, last_cell) =
              (SELECT lon, lat, ts, cell FROM locations WHERE device_key = devices.key ORDER BY ts DESC, seq DESC LIMIT 1)
            WHERE key = ? AND last_ts < ?
            """, [.integer(deviceKey), .integer(before)])
        try db.run("UPDATE index_state SET deletions = deletions + 1")
        try db.run(FixTables.historyChangedSQL, [.integer(deviceKey)])
        try redactLocationEvents(deviceKey: deviceKey, before: last.ts + 1, in: db)
        unmerged.remove(deviceKey: deviceKey, sequences: Set(victims.map(\.seq)),
                        clientIDs: victims.compactMap { v in v.clientID.map { .init(deviceKey: deviceKey, clientID: $0) } })
        return deleted
    }

    /// Deletes every fix of the device (history, merged indexes, queue): for device and account
    /// deletion, inside their transaction.
    static func deleteAllFixes(deviceKey: Int64, unmerged: UnmergedFixes, in db: Database) throws {
        try db.run("""
            DELETE FROM cell_index WHERE (cell, device_key, ts, seq) IN
              (SELECT cell, device_key, ts, seq FROM locations WHERE device_key = ?)
            """, [.integer(deviceKey)])
        try db.run("DELETE FROM client_ids WHERE device_key = ?", [.integer(deviceKey)])
        try db.run("DELETE FROM index_queue WHERE device_key = ?", [.integer(deviceKey)])
        try db.run("DELETE FROM locations WHERE device_key = ?", [.integer(deviceKey)])
        try db.run("UPDATE index_state SET deletions = deletions + 1")
        try db.run(FixTables.historyChangedSQL, [.integer(deviceKey)])
        try redactLocationEvents(deviceKey: deviceKey, before: nil, in: db)
        unmerged.remove(deviceKey: deviceKey, sequences: nil, clientIDs: [])
    }
}

/// `deleteHistory` and `purge`: `SQLCore`'s, over `deleteBatch`.
extension SQLiteBackend: FixBatchDeletion {
    public func deleteFixBatch(of device: FixOwner, before: Int64, limit: Int) async throws -> Int {
        let unmerged = self.unmerged
        return try await write { db in
            try Self.deleteBatch(deviceKey: try device.key(on: SQLiteExecutor(db: db)), before: before, limit: limit, unmerged: unmerged, in: db)
        }
    }
}

/// Hands out fix sequence numbers. Used only on the writer thread; the mutex makes that safe
/// to state. The first use reads the highest sequence ever handed out; each reservation
/// records its end in `index_state` (same transaction), so numbers are never reused (a
/// rolled-back reservation leaves a gap).
final class SequenceAllocator: Sendable {
    private let next = Mutex<Int64?>(nil)

    func reserve(_ count: Int, in db: Database) throws -> Int64 {
        let start = try next.withLock { value in
            let start = try value ?? ((db.firstRow("SELECT last_seq FROM index_state", [], { $0.int64(0) }) ?? 0) + 1)
            value = start + Int64(count)
            return start
        }
        try db.run("UPDATE index_state SET last_seq = ?", [.integer(start + Int64(count) - 1)])
        return start
    }
}

/// How the writer looks a fix's client id up, decided off the writer thread.
enum ClientIDLookup: Equatable {
    /// No client id (the timestamp rule applies).
    case none
    /// An id a client chose: staged in the mirror, noted in the filter, merged into
    /// `client_ids`. `importTimestamp` is set when the id has the shape of an import's derived
    /// ids (`ImportPointID`): it is then also looked up in history at that time, where an
    /// imported fix with that id would be.
    case chosen(importTimestamp: Int64?)
    /// The id an import derived for this very fix (`ImportPointID.isDerived`): kept only in the
    /// fix's `locations` row, at the time it names, so neither `client_ids`, the mirror nor the
    /// filter ever hold it.
    case derived

    init(_ fix: Fix) {
        guard let id = fix.clientID else { self = .none; return }
        switch ImportPointID.naming(of: id, for: fix) {
        case .thisFix?: self = .derived
        case .otherPoint(let timestamp)?: self = .chosen(importTimestamp: timestamp)
        case nil: self = .chosen(importTimestamp: nil)
        }
    }
}
