import LocationFormats
import Tracking

/// A device's stored fixes (`SQLDialect.fixesTable`) as both stores read them: its history page
/// by page, and deletion batch by batch (each store deletes one batch its own way,
/// `FixBatchDeletion`). Appends stay each store's (their hot paths).
public enum FixTables {
    /// Moves device `?`'s history version: every append and deletion of its fixes, in their
    /// transaction (`SharedLatestCache` keys by it).
    public static let historyChangedSQL = "UPDATE devices SET history_version = history_version + 1 WHERE key = ?"

    /// The columns `storedFix(_:deviceID:)` decodes, in its order.
    public static let storedFixColumns = "ts, seq, lon, lat, accuracy, altitude, speed, heading, battery, client_id"

    /// A row of `storedFixColumns` as a fix of `deviceID`.
    public static func storedFix(_ row: some SQLRow, deviceID: DeviceID) throws -> StoredFix {
        StoredFix(deviceID: deviceID, sequence: try row.int64(1), fix: Fix(
            longitude: try row.double(2), latitude: try row.double(3), timestamp: try row.int64(0),
            accuracy: try row.optionalDouble(4), altitude: try row.optionalDouble(5), speed: try row.optionalDouble(6),
            heading: try row.optionalDouble(7), battery: try row.optionalDouble(8), clientID: try row.optionalText(9)))
    }

    /// Up to `limit` of the device's fixes in (timestamp, sequence) order with a timestamp in
    /// [`from`, `to`] (ms since 1970; nil: open) after `cursor`, and the cursor of the next page
    /// when more remain. Throws `TrackingError.notFound` for a device that does not exist.
    public static func history(deviceID: DeviceID, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int,
                               on db: some SQLExecutor) throws -> HistoryPage {
        guard let key = try DirectoryTables.deviceKey(id: deviceID, on: db) else { throw TrackingError.notFound("device") }
        let start = cursor ?? HistoryCursor(timestamp: from ?? Int64.min, sequence: Int64.min)
        var fixes: [StoredFix] = []
        try db.forEachRow("""
            SELECT \(storedFixColumns) FROM \(db.dialect.fixesTable)
            WHERE device_key = ? AND ts >= ? AND ts <= ? AND (ts, seq) > (?, ?)
            ORDER BY ts, seq LIMIT ?
            """, [.integer(key), .integer(max(start.timestamp, from ?? Int64.min)), .integer(to ?? Int64.max),
                  .integer(start.timestamp), .integer(start.sequence), .int(max(0, limit) + 1)]) {
            fixes.append(try storedFix($0, deviceID: deviceID))
        }
        guard fixes.count > limit, let last = fixes.dropLast().last else { return HistoryPage(fixes: fixes, next: nil) }
        fixes.removeLast()
        return HistoryPage(fixes: fixes, next: HistoryCursor(timestamp: last.fix.timestamp, sequence: last.sequence))
    }
}

/// `LocationStore.history` in one snapshot.
extension SQLTransactions {
    public func history(deviceID: DeviceID, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int) throws -> HistoryPage {
        try readSQL { try FixTables.history(deviceID: deviceID, from: from, to: to, after: cursor, limit: limit, on: $0) }
    }
}

/// A store that deletes fixes one batch per write transaction: `LocationStore.deleteHistory` and
/// `purge` are written once over its `deleteFixBatch`.
public protocol FixBatchDeletion: SQLTransactions {
    /// In one write transaction of its own: deletes up to `limit` (≥ 1) of the oldest fixes
    /// before `before` (ms since 1970) of `device`, with all that depends on them (events
    /// redacted, the latest location recomputed); returns how many it deleted. Throws
    /// `TrackingError.notFound` for a device id that does not exist.
    func deleteFixBatch(of device: FixOwner, before: Int64, limit: Int) async throws -> Int
}

/// The device whose fixes a batch deletes: by id (a client's request) or by key (retention).
public enum FixOwner: Sendable {
    case id(DeviceID)
    case key(Int64)

    /// The device's key, read in the transaction on `db` for an id.
    public func key(on db: some SQLExecutor) throws -> Int64 {
        switch self {
        case .key(let key): return key
        case .id(let id):
            guard let key = try DirectoryTables.deviceKey(id: id, on: db) else { throw TrackingError.notFound("device") }
            return key
        }
    }
}

extension FixBatchDeletion {
    public func deleteHistory(deviceID: DeviceID, before: Int64) async throws -> Int {
        try await deleteFixes(of: .id(deviceID), before: before, batch: 10_000)
    }

    /// Every device's fixes before `before`, device by device in key order, `batch` at a time.
    public func purge(before: Int64, batch: Int) async throws -> Int {
        let keys = try readSQL { try $0.rows("SELECT key FROM devices ORDER BY key", []) { try $0.int64(0) } }
        var total = 0
        for key in keys { total += try await deleteFixes(of: .key(key), before: before, batch: batch) }
        return total
    }

    /// Deletes batch after batch until one deletes fewer than `batch` (at least 1); returns the total.
    private func deleteFixes(of device: FixOwner, before: Int64, batch: Int) async throws -> Int {
        let batch = max(1, batch)
        var total = 0
        while true {
            let deleted = try await deleteFixBatch(of: device, before: before, limit: batch)
            total += deleted
            if deleted < batch { return total }
        }
    }
}
